/// A 48-bit Bluetooth device address (BD_ADDR).
///
/// Written most significant byte first (`C4:5B:BE:12:34:56`), sent least significant byte
/// first (Core v5.4 Vol 4 Part E 5.2; Vol 2 Part B 1.2). `bytes` is the written order and
/// `littleEndianBytes` the wire order, so the two can never be confused.
///
/// The address alone, without its kind (public or random): HCI carries the kind in a field
/// of its own with more than two values (Vol 4 Part E 7.7.65.2), a manifest's `mac:` names
/// no kind, and an expected address matches a heard one by its 48 bits. Whoever knows the
/// kind keeps it beside the address (`Sighting.addressIsRandom`, `LEAddressType`).
///
/// One type from every entry (HCI reports, sighting lines, captures, gateways' messages, the
/// manifest) to every writer: parsed once where it enters, written one way, `description`.
public struct BluetoothAddress: Hashable, Comparable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The address as a number; only the low 48 bits are used.
    public let value: UInt64

    /// `nil` when `value` does not fit in 48 bits.
    public init?(value: UInt64) {
        guard value >> 48 == 0 else { return nil }
        self.value = value
    }

    package init(truncating value: UInt64) {
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

    /// Parses `AA:BB:CC:DD:EE:FF` (upper or lower case); `nil` for anything else
    /// (`parse(_:)` says what is wrong).
    public init?(_ description: String) {
        var description = description
        guard let address = description.withUTF8({ BluetoothAddress(utf8: $0) }) else { return nil }
        self = address
    }

    /// `AA:BB:CC:DD:EE:FF` (upper or lower case) read from its UTF-8 bytes in place, with no
    /// `String` made: sighting lines and manifests bring one per line. Inlinable, so that
    /// callers get it specialised for their bytes rather than walk a generic collection.
    @inlinable
    public init?<Text: Collection<UInt8>>(utf8 text: Text) {
        guard text.count == 17 else { return nil }
        var value: UInt64 = 0
        var index = text.startIndex
        // Six octets of two digits, a colon before each but the first.
        for octet in 0..<6 {
            if octet > 0 {
                guard text[index] == UInt8(ascii: ":") else { return nil }
                text.formIndex(after: &index)
            }
            guard let high = HexDigit.value(text[index]) else { return nil }
            text.formIndex(after: &index)
            guard let low = HexDigit.value(text[index]) else { return nil }
            text.formIndex(after: &index)
            value = value << 8 | UInt64(high << 4 | low)
        }
        // Twelve nibbles: 48 bits at most.
        self.value = value
    }

    /// Twelve hexadecimal digits without separators (`c45bbe000001`), as several gateways
    /// write an address; `nil` for anything else.
    @inlinable
    public init?<Text: Collection<UInt8>>(hexDigits text: Text) {
        guard text.count == 12 else { return nil }
        var value: UInt64 = 0
        for byte in text {
            guard let nibble = HexDigit.value(byte) else { return nil }
            value = value << 4 | UInt64(nibble)
        }
        // Twelve nibbles: 48 bits at most.
        self.value = value
    }

    /// `AA:BB:CC:DD:EE:FF` (either case), or what is wrong with the text in words a person
    /// who typed it can act on.
    public static func parse(_ text: String) -> Result<BluetoothAddress, SpellingProblem> {
        if let address = BluetoothAddress(text) { return .success(address) }
        return .failure(SpellingProblem(text))
    }

    /// Why a text is not `AA:BB:CC:DD:EE:FF`.
    public enum SpellingProblem: Error, Equatable, Sendable, CustomStringConvertible {
        case wrongSeparator
        case wrongOctetCount(Int)
        case badOctet(position: Int, text: String)

        /// What is wrong with a text that `BluetoothAddress(_:)` refused.
        public init(_ text: String) {
            let octets = text.split(separator: ":", omittingEmptySubsequences: false)
            guard octets.count == 6 else {
                if text.split(separator: "-", omittingEmptySubsequences: false).count == 6 {
                    self = .wrongSeparator
                } else {
                    self = .wrongOctetCount(octets.count)
                }
                return
            }
            for (index, octet) in octets.enumerated()
            where octet.utf8.count != 2 || !octet.utf8.allSatisfy({ HexDigit.value($0) != nil }) {
                self = .badOctet(position: index + 1, text: String(octet))
                return
            }
            // Six octets of two hexadecimal digits each would have been accepted.
            self = .wrongOctetCount(octets.count)
        }

        public var description: String {
            switch self {
            case .wrongSeparator:
                return "octets are separated by '-'; write them with ':' (AA:BB:CC:DD:EE:FF)"
            case .wrongOctetCount(let count):
                return "an address has 6 octets separated by ':' (AA:BB:CC:DD:EE:FF); this has \(count)"
            case .badOctet(let position, let text):
                return "octet \(position) is `\(text)`; each octet is two hexadecimal digits"
            }
        }
    }

    /// `00:00:00:00:00:00`, the placeholder for "no peer" in advertising parameters.
    public static let zero = BluetoothAddress(truncating: 0)

    /// Written order: most significant byte first.
    public var bytes: [UInt8] { littleEndianBytes.reversed() }

    /// Wire order: least significant byte first.
    public var littleEndianBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }

    /// `AA:BB:CC:DD:EE:FF`, upper case: the one way every writer spells an address.
    public var description: String {
        // Written straight into the string's storage: writers of sighting lines format
        // one address per sighting, millions a second.
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

    /// The text of an address that may be missing: empty for none (a gateway that publishes
    /// no address), as every output has written it.
    public static func text(_ address: BluetoothAddress?) -> String {
        address?.description ?? ""
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.value < rhs.value
    }

    /// Orders addresses that may be missing as their texts order: none first, then by value
    /// (upper-case hexadecimal of one length sorts as the number does).
    public static func ascending(_ lhs: BluetoothAddress?, _ rhs: BluetoothAddress?) -> Bool {
        switch (lhs, rhs) {
        case (let left?, let right?): left < right
        case (nil, .some): true
        default: false
        }
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
