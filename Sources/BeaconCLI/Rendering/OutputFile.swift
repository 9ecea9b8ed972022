import FleetManifest

/// Writes `text` to `path` atomically (where every file beaconctl writes is written:
/// `ManifestFileReplacement`), or to standard output.
func writeOutput(_ text: String, to path: String?) throws {
    guard let path else {
        // By its last byte: "\r\n" (CSV's record end) is one Character, which `hasSuffix("\n")` misses.
        Console.current.write(text.utf8.last == UInt8(ascii: "\n") ? text : text + "\n")
        return
    }
    do {
        try ManifestFileReplacement.write(Array(text.utf8), to: path)
    } catch {
        throw CommandFailure(.usageOrInput, error.description)
    }
}
