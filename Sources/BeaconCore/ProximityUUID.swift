/// A 128-bit proximity UUID, the first part of an iBeacon identity.
///
/// Stored as two big-endian 64-bit halves so it is `Hashable`, `Comparable` and cheap to
/// copy. On the air the UUID is sent most significant byte first (Apple, "Proximity Beacon
/// Specification" r1, section 2.1), which is the order of `bytes`.
public struct ProximityUUID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Builds a UUID from exactly 16 bytes, most significant first; `nil` for any other count.
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            if offset < 8 {
                high = high << 8 | UInt64(byte)
            } else {
                low = low << 8 | UInt64(byte)
            }
        }
        self.init(high: high, low: low)
    }

    /// The all-zero UUID. Never a valid beacon identity: many unconfigured beacons send it.
    public static let zero = ProximityUUID(high: 0, low: 0)

    public var isZero: Bool { high == 0 && low == 0 }

    /// The 16 bytes, most significant first (air order).
    public var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(16)
        for shift in stride(from: 56, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: low >> UInt64(shift))) }
        return result
    }

    /// Canonical 8-4-4-4-12 upper-case form, as CoreLocation prints it.
    public var description: String {
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var characters = [UInt8]()
        characters.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { characters.append(UInt8(ascii: "-")) }
            characters.append(hexDigits[Int(byte >> 4)])
            characters.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    public static func < (lhs: ProximityUUID, rhs: ProximityUUID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    /// Parses the canonical 8-4-4-4-12 hexadecimal form, upper or lower case.
    public init(parsing text: String) throws(ProximityUUIDParseError) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else {
            let digits = utf8.filter { $0 != UInt8(ascii: "-") }
            if utf8.count == 32, digits.count == 32, digits.allSatisfy(Self.isHexDigit) {
                throw .missingHyphens
            }
            if let first = utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "<") {
                throw .enclosed
            }
            throw .wrongLength(utf8.count)
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbleCount = 0
        for (offset, character) in utf8.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard character == UInt8(ascii: "-") else { throw .hyphenExpected(offset: offset) }
                continue
            }
            guard let value = HexDigit.value(character) else {
                throw .invalidCharacter(offset: offset, character: Character(Unicode.Scalar(character)))
            }
            if nibbleCount < 16 {
                high = high << 4 | UInt64(value)
            } else {
                low = low << 4 | UInt64(value)
            }
            nibbleCount += 1
        }
        self.init(high: high, low: low)
    }

    private static func isHexDigit(_ c: UInt8) -> Bool { HexDigit.value(c) != nil }
}

/// Why a string is not a canonical UUID; `offset` counts UTF-8 bytes from the start.
public enum ProximityUUIDParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case wrongLength(Int)
    case missingHyphens
    case enclosed
    case hyphenExpected(offset: Int)
    case invalidCharacter(offset: Int, character: Character)

    public var description: String {
        switch self {
        case .wrongLength(let count):
            return "a UUID has 36 characters in the form 8-4-4-4-12 (e.g. 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3); this has \(count)"
        case .missingHyphens:
            return "UUID has 32 hex digits but no hyphens; write it as 8-4-4-4-12"
        case .enclosed:
            return "UUID is wrapped in braces or angle brackets; write the bare 8-4-4-4-12 form"
        case .hyphenExpected(let offset):
            return "expected '-' at character \(offset + 1) of the UUID (form 8-4-4-4-12)"
        case .invalidCharacter(let offset, let character):
            return "'\(character)' at character \(offset + 1) is not a hexadecimal digit"
        }
    }
}
