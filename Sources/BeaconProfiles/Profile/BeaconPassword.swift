/// A beacon's password (KBeacon) or lock code (Eddystone). Its text is for the profile's
/// authentication alone: it never shows in a description, a debug dump, a mirror, a log
/// line or an error message, so that nothing beaconctl prints or records can leak it.
public struct BeaconPassword: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The password as UTF-8, as vendors put it into their digests.
    let utf8: [UInt8]

    public init(_ text: String) {
        utf8 = Array(text.utf8)
    }

    /// The password's length in bytes (for length rules; the content stays hidden).
    public var byteCount: Int { utf8.count }

    /// Whether every byte is printable ASCII (0x20–0x7E), as vendors' apps type them.
    public var isPrintableASCII: Bool { utf8.allSatisfy { (0x20...0x7E).contains($0) } }

    public var description: String { "<password redacted>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
