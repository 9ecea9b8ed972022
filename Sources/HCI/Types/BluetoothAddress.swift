/// A 48-bit Bluetooth device address (BD_ADDR).
///
/// Written most significant byte first (`C4:5B:BE:12:34:56`), sent least significant byte
/// first (Core v5.4 Vol 4 Part E 5.2; Vol 2 Part B 1.2). `bytes` is the written order and
/// `littleEndianBytes` the wire order, so the two can never be confused.
public struct BluetoothAddress: Hashable, Comparable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The address as a number; only the low 48 bits are used.
    public let value: UInt64

    /// `nil` when `value` does not fit in 48 bits.
    public init?(value: UInt64) {
        guard value >> 48 == 0 else { return nil }
        self.value = value
    }

    init(truncating value: UInt64) {
        self.value = value & 0xFFFF_FFFF_FFFF
    }

    /// Six bytes in written order, most significant first; `nil` for any other count.
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes) {
        guard bytes.count == 6 else { return nil }
        self.init(truncating: bytes.reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// Six bytes in wire order, least significant first; `nil` for any other count.
    public init?<Bytes: Collection<UInt8>>(littleEndianBytes: Bytes) {
        guard littleEndianBytes.count == 6 else { return nil }
        self.init(truncating: littleEndianBytes.reversed().reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (upper or lower case); `nil` for anything else.
    public init?(_ description: String) {
        let groups = description.split(separator: ":", omittingEmptySubsequences: false)
        guard groups.count == 6 else { return nil }
        var value: UInt64 = 0
        for group in groups {
            guard group.count == 2, group.allSatisfy(\.isHexDigit), let byte = UInt8(group, radix: 16) else {
                return nil
            }
            value = value << 8 | UInt64(byte)
        }
        self.init(truncating: value)
    }

    /// `00:00:00:00:00:00`, the placeholder for "no peer" in advertising parameters.
    public static let zero = BluetoothAddress(truncating: 0)

    /// Written order: most significant byte first.
    public var bytes: [UInt8] { littleEndianBytes.reversed() }

    /// Wire order: least significant byte first.
    public var littleEndianBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }

    public var description: String {
        // Written straight into the string's storage: capture and recording readers
        // format one address per sighting, millions a second.
        String(unsafeUninitializedCapacity: 17) { text in
            let digits: StaticString = "0123456789ABCDEF"
            let hex = digits.utf8Start
            for index in 0..<6 {
                let byte = Int(truncatingIfNeeded: value >> UInt64(40 - 8 * index)) & 0xFF
                text[3 * index] = hex[byte >> 4]
                text[3 * index + 1] = hex[byte & 0x0F]
                if index < 5 { text[3 * index + 2] = UInt8(ascii: ":") }
            }
            return 17
        }
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.value < rhs.value
    }

    // MARK: Static random addresses (Core v5.4 Vol 6 Part B 1.3.2.1)

    /// The 46 bits below the two type bits of a random address.
    private static let randomPartMask: UInt64 = 0x3FFF_FFFF_FFFF

    /// True for a valid static random address: the two most significant bits are 1, and
    /// the other 46 bits are neither all 0 nor all 1.
    public var isStaticRandom: Bool {
        let randomPart = value & Self.randomPartMask
        return value >> 46 == 0b11 && randomPart != 0 && randomPart != Self.randomPartMask
    }

    /// A fresh static random address from `generator`.
    public static func randomStatic<Generator: RandomNumberGenerator>(using generator: inout Generator) -> BluetoothAddress {
        while true {
            let randomPart = generator.next() & randomPartMask
            // All-zero and all-one random parts are forbidden; redraw (odds 2 in 2^46).
            if randomPart != 0 && randomPart != randomPartMask {
                return BluetoothAddress(truncating: 0b11 << 46 | randomPart)
            }
        }
    }

    /// A fresh static random address from the system's random source.
    public static func randomStatic() -> BluetoothAddress {
        var generator = SystemRandomNumberGenerator()
        return randomStatic(using: &generator)
    }
}
