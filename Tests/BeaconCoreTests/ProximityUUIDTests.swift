import Testing
@testable import BeaconCore

@Suite("ProximityUUID")
struct ProximityUUIDTests {
    @Test func parsesCanonicalUpperAndLowerCase() throws {
        let upper = try ProximityUUID(parsing: "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3")
        let lower = try ProximityUUID(parsing: "89d6e936-f61f-4227-bcd2-6e94c5a6b2e3")
        #expect(upper == lower)
        #expect(upper.description == "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3")
        #expect(upper.bytes == [0x89, 0xD6, 0xE9, 0x36, 0xF6, 0x1F, 0x42, 0x27,
                                0xBC, 0xD2, 0x6E, 0x94, 0xC5, 0xA6, 0xB2, 0xE3])
    }

    @Test func roundTripsThroughBytes() throws {
        let uuid = try ProximityUUID(parsing: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(ProximityUUID(bytes: uuid.bytes) == uuid)
        #expect(ProximityUUID(bytes: [UInt8](repeating: 0, count: 15)) == nil)
        #expect(ProximityUUID(bytes: [UInt8](repeating: 0, count: 17)) == nil)
    }

    @Test(arguments: [
        ("89D6E936F61F4227BCD26E94C5A6B2E3", ProximityUUIDParseError.missingHyphens),
        ("{89D6E936-F61F-4227-BCD2-6E94C5A6B2E3}", .enclosed),
        ("89D6E936-F61F-4227-BCD2-6E94C5A6B2E", .wrongLength(35)),
        ("", .wrongLength(0)),
        ("89D6E936+F61F-4227-BCD2-6E94C5A6B2E3", .hyphenExpected(offset: 8)),
        ("89D6E936-F61F-4227-BCD2-6E94C5A6B2EG", .invalidCharacter(offset: 35, character: "G")),
    ])
    func rejectsMalformedText(text: String, expected: ProximityUUIDParseError) {
        #expect(throws: expected) { try ProximityUUID(parsing: text) }
    }

    @Test func zeroIsRecognised() throws {
        #expect(try ProximityUUID(parsing: "00000000-0000-0000-0000-000000000000").isZero)
        #expect(!(try ProximityUUID(parsing: "00000000-0000-0000-0000-000000000001").isZero))
    }

    @Test func ordersByValue() throws {
        let low = try ProximityUUID(parsing: "00000000-0000-0000-0000-0000000000FF")
        let high = try ProximityUUID(parsing: "00000000-0000-0001-0000-000000000000")
        #expect(low < high)
    }
}
