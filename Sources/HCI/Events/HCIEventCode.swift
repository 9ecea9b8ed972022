/// An event code (Core v5.4 Vol 4 Part E 7.7). Open-ended: every code is representable.
public struct HCIEventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let disconnectionComplete = HCIEventCode(rawValue: 0x05)
    public static let commandComplete = HCIEventCode(rawValue: 0x0E)
    public static let commandStatus = HCIEventCode(rawValue: 0x0F)
    public static let hardwareError = HCIEventCode(rawValue: 0x10)
    public static let numberOfCompletedPackets = HCIEventCode(rawValue: 0x13)
    public static let dataBufferOverflow = HCIEventCode(rawValue: 0x1A)
    public static let leMeta = HCIEventCode(rawValue: 0x3E)
    public static let vendorSpecific = HCIEventCode(rawValue: 0xFF)

    private static let names: [UInt8: String] = [
        0x03: "Connection Complete",
        0x05: "Disconnection Complete",
        0x08: "Encryption Change",
        0x0C: "Read Remote Version Information Complete",
        0x0E: "Command Complete",
        0x0F: "Command Status",
        0x10: "Hardware Error",
        0x13: "Number Of Completed Packets",
        0x1A: "Data Buffer Overflow",
        0x30: "Encryption Key Refresh Complete",
        0x3E: "LE Meta",
        0xFF: "Vendor-specific",
    ]

    public var name: String? { Self.names[rawValue] }

    public var description: String {
        name.map { "\($0) (\(HexText.code(rawValue)))" } ?? "event \(HexText.code(rawValue))"
    }
}

/// An LE Meta subevent code (Core v5.4 Vol 4 Part E 7.7.65). Open-ended.
public struct LESubeventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let connectionComplete = LESubeventCode(rawValue: 0x01)
    public static let advertisingReport = LESubeventCode(rawValue: 0x02)
    public static let connectionUpdateComplete = LESubeventCode(rawValue: 0x03)
    public static let enhancedConnectionComplete = LESubeventCode(rawValue: 0x0A)
    public static let extendedAdvertisingReport = LESubeventCode(rawValue: 0x0D)
    public static let scanTimeout = LESubeventCode(rawValue: 0x11)
    public static let advertisingSetTerminated = LESubeventCode(rawValue: 0x12)
    public static let scanRequestReceived = LESubeventCode(rawValue: 0x13)

    private static let names: [UInt8: String] = [
        0x01: "LE Connection Complete",
        0x02: "LE Advertising Report",
        0x03: "LE Connection Update Complete",
        0x0A: "LE Enhanced Connection Complete",
        0x0B: "LE Directed Advertising Report",
        0x0D: "LE Extended Advertising Report",
        0x11: "LE Scan Timeout",
        0x12: "LE Advertising Set Terminated",
        0x13: "LE Scan Request Received",
        0x14: "LE Channel Selection Algorithm",
    ]

    public var name: String? { Self.names[rawValue] }

    public var description: String {
        name.map { "\($0) (\(HexText.code(rawValue)))" } ?? "LE subevent \(HexText.code(rawValue))"
    }
}
