import Testing
@testable import BeaconCore

@Suite("iBeacon advertisement codec")
struct IBeaconAdvertisementTests {
    // Apple AirLocate's default beacon (UUID E2C56DB5-…, major 1, minor 1, power −59 = 0xC5):
    // the widely published advertising data, e.g. in the Raspberry Pi hcitool recipes
    // `hcitool cmd 0x08 0x0008 1E 02 01 06 1A FF 4C 00 02 15 E2 C5 … 00 01 00 01 C5 00`.
    static let airLocateData: [UInt8] = [
        0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
        0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
        0x00, 0x01, 0x00, 0x01, 0xC5,
    ]

    @Test func encodesTheThirtyBytesOfAdvertisingData() throws {
        let uuid = try ProximityUUID(parsing: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        let advertisement = IBeaconAdvertisement(
            identity: BeaconIdentity(uuid: uuid, major: 1, minor: 1), measuredPower: -59)
        #expect(advertisement.advertisingData == Self.airLocateData)
        #expect(advertisement.advertisingData.count == 30)
    }

    @Test func majorAndMinorAreBigEndian() throws {
        let advertisement = IBeaconAdvertisement(
            identity: BeaconIdentity(uuid: .zero, major: 0x1234, minor: 0xABCD), measuredPower: -1)
        let payload = advertisement.manufacturerPayload
        #expect(Array(payload[18...22]) == [0x12, 0x34, 0xAB, 0xCD, 0xFF])
    }

    @Test func decodesManufacturerData() throws {
        let manufacturerData = Array(Self.airLocateData[5...])
        let decoded = try #require(IBeaconAdvertisement(manufacturerData: manufacturerData))
        #expect(decoded.identity.major == 1)
        #expect(decoded.identity.minor == 1)
        #expect(decoded.measuredPower == -59)
        #expect(decoded.identity.uuid.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
    }

    @Test func rejectsWhatIsNotAnIBeacon() {
        var data = Array(Self.airLocateData[5...])
        #expect(IBeaconAdvertisement(manufacturerData: data.dropLast()) == nil)
        #expect(IBeaconAdvertisement(manufacturerData: data + [0]) == nil)
        data[0] = 0x4D  // another company
        #expect(IBeaconAdvertisement(manufacturerData: data) == nil)
        #expect(IBeaconAdvertisement(manufacturerData: [UInt8]()) == nil)
    }
}

@Suite("Beacon regions")
struct BeaconRegionTests {
    let uuid = ProximityUUID(high: 1, low: 2)
    let other = ProximityUUID(high: 3, low: 4)

    @Test func wildcardsAtEachLevel() throws {
        let any = try #require(BeaconRegion(identifier: "any", uuid: uuid))
        let store = try #require(BeaconRegion(identifier: "store", uuid: uuid, major: 7))
        let counter = try #require(BeaconRegion(identifier: "counter", uuid: uuid, major: 7, minor: 2))
        let beacon = BeaconIdentity(uuid: uuid, major: 7, minor: 2)
        #expect(any.matches(beacon) && store.matches(beacon) && counter.matches(beacon))
        let neighbour = BeaconIdentity(uuid: uuid, major: 7, minor: 3)
        #expect(any.matches(neighbour) && store.matches(neighbour) && !counter.matches(neighbour))
        let otherStore = BeaconIdentity(uuid: uuid, major: 8, minor: 2)
        #expect(any.matches(otherStore) && !store.matches(otherStore))
        #expect(!any.matches(BeaconIdentity(uuid: other, major: 7, minor: 2)))
    }

    @Test func minorWithoutMajorIsNotARegion() {
        #expect(BeaconRegion(identifier: "bad", uuid: uuid, minor: 1) == nil)
    }
}
