import BeaconCore
import Testing

@testable import BeaconProfiles

/// Each encoding a profile file can name, both ways, and what it refuses.
@Suite("declarative profile value encodings")
struct ValueEncodingTests {
    static let big16 = IntegerLayout(width: 2, signed: false, byteOrder: .big)
    static let little16 = IntegerLayout(width: 2, signed: false, byteOrder: .little)

    @Test("uint16 big- and little-endian, int8, int16, uint32: bytes and back")
    func integers() {
        #expect(ValueEncoding.integer(Self.big16).encodeNumber(0x1234) == .success([0x12, 0x34]))
        #expect(ValueEncoding.integer(Self.little16).encodeNumber(0x1234) == .success([0x34, 0x12]))
        #expect(ValueEncoding.integer(Self.big16).decodeNumber([0xFF, 0xFE]) == .success(65534))
        #expect(ValueEncoding.integer(Self.little16).decodeNumber([0xFF, 0xFE]) == .success(0xFEFF))
        let int8 = ValueEncoding.integer(IntegerLayout(width: 1, signed: true))
        #expect(int8.encodeNumber(-59) == .success([0xC5]))
        #expect(int8.decodeNumber([0xC6]) == .success(-58))
        let int16 = ValueEncoding.integer(IntegerLayout(width: 2, signed: true, byteOrder: .big))
        #expect(int16.decodeNumber([0x80, 0x00]) == .success(-32768))
        #expect(int16.encodeNumber(-2) == .success([0xFF, 0xFE]))
        let uint32 = ValueEncoding.integer(IntegerLayout(width: 4, signed: false, byteOrder: .little))
        #expect(uint32.encodeNumber(0x0102_0304) == .success([4, 3, 2, 1]))
        #expect(uint32.decodeNumber([0xFF, 0xFF, 0xFF, 0xFF]) == .success(0xFFFF_FFFF))
    }

    @Test("values that do not fit and bytes of the wrong length are refused")
    func refusals() {
        #expect(ValueEncoding.integer(Self.big16).encodeNumber(65536).isFailure)
        #expect(ValueEncoding.integer(Self.big16).encodeNumber(-1).isFailure)
        #expect(ValueEncoding.integer(IntegerLayout(width: 1, signed: true)).encodeNumber(128).isFailure)
        #expect(ValueEncoding.integer(Self.big16).decodeNumber([1]) == .failure(.length(expected: 2, got: 1)))
        #expect(ValueEncoding.integer(Self.big16).decodeNumber([1, 2, 3]) == .failure(.length(expected: 2, got: 3)))
        #expect(ValueEncoding.uuid.decodeNumber([1]) == .failure(.notANumber))
    }

    @Test("intervals in 1 ms and in Bluetooth's 0.625 ms units")
    func intervals() {
        let slots = ValueEncoding.interval(Self.little16, unitMicroseconds: 625)
        #expect(slots.encodeNumber(100) == .success([0xA0, 0x00]))  // 160 × 0.625 ms
        #expect(slots.decodeNumber([0xA0, 0x00]) == .success(100))
        #expect(slots.decodeNumber([0xA1, 0x00]) == .success(101))  // 100.625 ms, to the nearest ms
        if case .failure(let why) = slots.encodeNumber(101) {
            #expect(why.description == "101 ms is not a whole number of the beacon's 0.625 ms units")
        } else {
            Issue.record("101 ms was encoded in 0.625 ms units")
        }
        #expect(slots.encodeNumber(50_000).isFailure)  // 80 000 units: beyond 16 bits
        let milliseconds = ValueEncoding.interval(Self.big16, unitMicroseconds: 1000)
        #expect(milliseconds.encodeNumber(950) == .success([0x03, 0xB6]))
        #expect(milliseconds.decodeNumber([0x03, 0xB6]) == .success(950))
        #expect(milliseconds.encodeNumber(Int.max).isFailure)
    }

    @Test("TX power as a table of levels")
    func levels() {
        let table = ValueEncoding.levels(IntegerLayout(width: 1, signed: false), levels: [-30, -20, -16, -12, -8, -4, 0, 4])
        #expect(table.encodeNumber(-12) == .success([3]))
        #expect(table.decodeNumber([7]) == .success(4))
        #expect(table.decodeNumber([8]) == .failure(.outOfRange("level 8 of 8")))
        if case .failure(let why) = table.encodeNumber(-10) {
            #expect(why.description == "-10 dBm is not one of the beacon's levels: -30, -20, -16, -12, -8, -4, 0, 4 dBm")
        } else {
            Issue.record("-10 dBm was encoded as a level")
        }
    }

    @Test("a proximity UUID as 16 bytes, most significant first; ASCII text with trailing NULs")
    func uuidAndText() throws {
        let uuid = try ProximityUUID(parsing: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E1")
        let bytes = ValueEncoding.uuidBytes(uuid)
        #expect(bytes.first == 0xE2 && bytes.last == 0xE1 && bytes.count == 16)
        #expect(ValueEncoding.decodeUUID(bytes) == .success(uuid))
        #expect(ValueEncoding.decodeUUID(Array(bytes.prefix(15))) == .failure(.length(expected: 16, got: 15)))
        #expect(ValueEncoding.decodeASCII(Array("B1 v2".utf8) + [0, 0], maxLength: 20) == .success("B1 v2"))
        #expect(ValueEncoding.decodeASCII([0x41, 0x1B], maxLength: 20) == .failure(.notText))
        #expect(ValueEncoding.decodeASCII(Array(repeating: 0x41, count: 21), maxLength: 20) == .failure(.length(expected: 20, got: 21)))
    }

    @Test("passwords as ASCII, hexadecimal bytes and numbers")
    func passwords() {
        #expect(PasswordEncoding.bytes(of: BeaconPassword("abc123"), as: .ascii(length: 6)) == .success(Array("abc123".utf8)))
        #expect(PasswordEncoding.bytes(of: BeaconPassword("abc"), as: .ascii(length: 6)).isFailure)
        #expect(PasswordEncoding.bytes(of: BeaconPassword("caf\u{E9}"), as: .ascii(length: nil)).isFailure)
        #expect(PasswordEncoding.bytes(of: BeaconPassword("0A0b"), as: .hex(length: 2)) == .success([0x0A, 0x0B]))
        #expect(PasswordEncoding.bytes(of: BeaconPassword("0G0b"), as: .hex(length: 2)).isFailure)
        #expect(PasswordEncoding.bytes(of: BeaconPassword("4660"), as: .number(Self.big16)) == .success([0x12, 0x34]))
        #expect(PasswordEncoding.bytes(of: BeaconPassword("65536"), as: .number(Self.big16)).isFailure)
        #expect(PasswordEncoding.bytes(of: BeaconPassword("-1"), as: .number(Self.big16)).isFailure)
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}

/// Inputs the fuzz target (Fuzz/ProfileFileFuzz) found.
@Suite("declarative profile encodings: fuzz findings")
struct ValueEncodingFuzzFindingsTests {
    @Test("a signed interval layout with a negative count is refused, not rounded into another value")
    func negativeInterval() {
        let layout = IntegerLayout(width: 2, signed: true, byteOrder: .little)
        #expect(ValueEncoding.interval(layout, unitMicroseconds: 1000).decodeNumber([0x03, 0xB6]) == .failure(.outOfRange("a negative interval (-18941 units)")))
    }
}
