import BeaconCore
import HCI

/// An attribute type: a 16-bit Bluetooth UUID or a full 128-bit one (Core v5.4 Vol 3 Part B
/// 2.5.1). A 16-bit value stands for `0000xxxx-0000-1000-8000-00805F9B34FB`; the two forms
/// of one UUID are equal. On the wire ATT carries them little-endian, in 2 or 16 bytes.
public struct AttributeUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 128-bit value, most significant byte first.
    public let bytes: [UInt8]

    /// The Bluetooth Base UUID (Vol 3 Part B 2.5.1) with zeros where a 16-bit value goes.
    static let base: [UInt8] = [0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    public init(_ short: UInt16) {
        var bytes = Self.base
        bytes[2] = UInt8(truncatingIfNeeded: short >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: short)
        self.init(full: bytes)
    }

    private init(full bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// From the wire: 2 or 16 bytes, little-endian; `nil` for any other length.
    public init?<Bytes: Collection<UInt8>>(littleEndian wire: Bytes) {
        switch wire.count {
        case 2:
            let low = wire[wire.startIndex]
            let high = wire[wire.index(after: wire.startIndex)]
            self.init(UInt16(high) << 8 | UInt16(low))
        case 16:
            self.init(full: Array(wire.reversed()))
        default:
            return nil
        }
    }

    /// `2A00`, `0x2A00` or `a3c87500-8ed3-4bdf-8a39-a01bebede295` (any case); `nil` otherwise.
    public init?(_ text: String) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        if digits.count == 4, let value = UInt16(digits, radix: 16) {
            self.init(value)
            return
        }
        let parts = digits.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let hex = Array(parts.joined().utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var index = 0
        while index < hex.count {
            guard let high = HexDigit.value(hex[index]), let low = HexDigit.value(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(full: bytes)
    }

    /// The 16-bit value when this UUID is one of the Bluetooth base.
    public var shortValue: UInt16? {
        guard bytes[0] == 0, bytes[1] == 0, bytes[4...] == Self.base[4...] else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The wire form: 2 bytes when the UUID has a 16-bit alias, else 16, little-endian.
    public var littleEndian: [UInt8] {
        if let shortValue { return [UInt8(truncatingIfNeeded: shortValue), UInt8(truncatingIfNeeded: shortValue >> 8)] }
        return bytes.reversed()
    }

    /// `0x2A00` for 16-bit UUIDs, the usual 8-4-4-4-12 form otherwise (upper case, as
    /// beaconctl writes proximity UUIDs).
    public var description: String {
        if let shortValue { return HexText.code(shortValue, digits: 4) }
        let hex = bytes.map(HexText.byte)
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }

    // GATT declarations and descriptors (Core v5.4 Vol 3 Part G 3; Assigned Numbers 3.5).
    public static let primaryService = AttributeUUID(0x2800)
    public static let secondaryService = AttributeUUID(0x2801)
    public static let include = AttributeUUID(0x2802)
    public static let characteristic = AttributeUUID(0x2803)
    public static let clientCharacteristicConfiguration = AttributeUUID(0x2902)
}
