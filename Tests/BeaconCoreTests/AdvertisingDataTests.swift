import Testing
@testable import BeaconCore

@Suite("AD structures")
struct AdvertisingDataTests {
    @Test func splitsTheAirLocateFrame() throws {
        let structures = try AdvertisingData.parse(IBeaconAdvertisementTests.airLocateData).get()
        #expect(structures.count == 2)
        #expect(structures[0] == ADStructure(type: 0x01, data: [0x06]))
        #expect(structures[1].type == 0xFF)
        #expect(structures[1].data.count == 25)
    }

    @Test func findsTheIBeaconAfterOtherStructures() throws {
        // A complete local name ("B1") before the manufacturer data, and no flags.
        let data: [UInt8] = [0x03, 0x09, 0x42, 0x31] + Array(IBeaconAdvertisementTests.airLocateData[3...])
        let beacon = try #require(IBeaconAdvertisement(advertisingData: data))
        #expect(beacon.identity.major == 1 && beacon.measuredPower == -59)
    }

    @Test func stopsAtZeroLengthPadding() throws {
        let padded = IBeaconAdvertisementTests.airLocateData + [0x00, 0xAA]
        #expect(try AdvertisingData.parse(padded).get().count == 2)
        #expect(IBeaconAdvertisement(advertisingData: padded) != nil)
    }

    @Test func reportsTruncationWithItsOffset() {
        let truncated = Array(IBeaconAdvertisementTests.airLocateData.dropLast(2))
        #expect(AdvertisingData.parse(truncated) == .failure(.truncated(offset: 3, length: 26, available: 24)))
        #expect(IBeaconAdvertisement(advertisingData: truncated) == nil)
    }

    @Test func ignoresOtherManufacturersAndEmptyData() throws {
        var other = IBeaconAdvertisementTests.airLocateData
        other[5] = 0x59  // Nordic's company id instead of Apple's
        #expect(IBeaconAdvertisement(advertisingData: other) == nil)
        #expect(IBeaconAdvertisement(advertisingData: [UInt8]()) == nil)
        #expect(try AdvertisingData.parse([UInt8]()).get().isEmpty)
    }

    @Test func neverTrapsOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = AdvertisingData.parse(bytes)
            _ = IBeaconAdvertisement(advertisingData: bytes)
        }
    }
}
