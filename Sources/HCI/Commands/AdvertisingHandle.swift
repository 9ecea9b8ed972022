/// Identifies an advertising set on a controller (Advertising_Handle,
/// Core v5.4 Vol 4 Part E 7.8.53): 0x00–0xEF. The host picks it; the controller only
/// limits how many sets exist at once (LE Read Number of Supported Advertising Sets).
public struct AdvertisingHandle: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public static let validRange: ClosedRange<UInt8> = 0x00...0xEF

    /// `nil` above 0xEF.
    public init?(rawValue: UInt8) {
        guard Self.validRange.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public var description: String { "set \(rawValue)" }

    public static func < (lhs: AdvertisingHandle, rhs: AdvertisingHandle) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

extension HCIByteReader {
    mutating func readAdvertisingHandle() throws(HCIDecodingError) -> AdvertisingHandle {
        let raw = try readUInt8()
        guard let handle = AdvertisingHandle(rawValue: raw) else {
            throw invalid("Advertising_Handle", raw, expected: "0x00–0xEF")
        }
        return handle
    }
}
