import Foundation

/// What every systemd unit beaconctl prints needs: its ExecStart words, escaped the way
/// systemd reads them, and the running binary by absolute path.
enum SystemdUnitWords {
    /// One ExecStart word (systemd.service(5), "Command lines"): `%` and `$` are doubled so
    /// that systemd expands neither; a word with spaces, quotes or backslashes is quoted.
    static func quoted(_ word: String) -> String {
        var text = word.replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$")
        let needsQuotes = text.isEmpty || text.contains { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" || $0 == ";" }
        guard needsQuotes else { return text }
        text = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + text + "\""
    }

    /// The absolute path of the running executable.
    static func currentExecutable() -> String {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return resolved
        }
        let first = CommandLine.arguments.first ?? "beaconctl"
        return first.hasPrefix("/") ? first : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(first)
    }
}
