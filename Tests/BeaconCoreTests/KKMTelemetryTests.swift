import BeaconCore
import Testing

/// KKM's system and sensor frames, laid out by hand from the KBeacon SDK's readers
/// (kkmhogen/android_kbeaconlib2, KBAdvPackage/KBAdvPacketSystem.java and
/// KBAdvPacketSensor.java; the company identifier and UUIDs from KBUtility.java).
@Suite("KKM telemetry frames")
struct KKMTelemetryTests {
    @Test("a system frame: model, battery percent, firmware major.minor (its MAC skipped)")
    func system() {
        let frame: [UInt8] = [0x22, 0x07, 0x54, 0xDD, 0x33, 0x0A, 0x10, 0x20, 0x30, 0x05, 0x0C]
        #expect(KKMTelemetry(frame: frame) == .system(.init(model: 7, batteryPercent: 84, firmware: "5.12")))
        #expect(KKMTelemetry(frame: frame + [0xEE]) == .system(.init(model: 7, batteryPercent: 84, firmware: "5.12")), "later fields are left")
    }

    @Test("a sensor frame: each flagged value in mask order, big-endian, temperature in signed 8.8", arguments: [
        ([0x21, 0x00, 0x01, 0x0B, 0xB8] as [UInt8], 3000 as UInt16?, nil as Double?),
        ([0x21, 0x00, 0x02, 0x16, 0x80], nil, 22.5),
        ([0x21, 0x00, 0x03, 0x0C, 0x1C, 0xFD, 0xC0], 3100, -2.25),
        // Humidity 45.5 %: no effect on the temperature.
        ([0x21, 0x00, 0x07, 0x0C, 0x1C, 0x16, 0x80, 0x2D, 0x80], 3100, 22.5),
        // Humidity −2.0: the temperature's range extended by (−1 − −2) × 100 °C.
        ([0x21, 0x00, 0x06, 0x16, 0x80, 0xFE, 0x00], nil, 122.5),
        // Only sensors this reader leaves (acceleration): no battery, no temperature.
        ([0x21, 0x00, 0x08, 0, 1, 0, 2, 0, 3], nil, nil),
    ])
    func sensor(frame: [UInt8], battery: UInt16?, temperature: Double?) {
        #expect(KKMTelemetry(frame: frame) == .sensor(.init(batteryMillivolts: battery, temperature: temperature)))
    }

    @Test("short frames, flagged values cut off and levels above 100 % are malformed; other frames are not KKM's", arguments: [
        ([0x22, 0x07, 0x54, 0xDD, 0x33, 0x0A, 0x10, 0x20, 0x30, 0x05] as [UInt8],
         "a KKM system frame of 10 bytes, where the frame has at least 11"),
        ([0x22, 0x07, 0x65, 0, 0, 0, 0, 0, 0, 1, 0], "a KKM system frame with a battery level of 101 %, above 100"),
        ([0x21, 0x00], "a KKM sensor frame of 2 bytes, where the frame has at least 3"),
        ([0x21, 0x00, 0x01, 0x0B], "a KKM sensor frame of 4 bytes that ends before its battery voltage (byte 3)"),
        ([0x21, 0x00, 0x03, 0x0B, 0xB8, 0x16], "a KKM sensor frame of 6 bytes that ends before its temperature (byte 5)"),
    ])
    func malformed(frame: [UInt8], reason: String) {
        #expect(KKMTelemetry(frame: frame) == .malformed(reason))
    }

    @Test func otherFramesAreNotKKMs() {
        for frame: [UInt8] in [[], [0x20, 0x00], [0x10, 0x00, 0x01], [0x03, 0x01, 0x02]] {
            #expect(KKMTelemetry(frame: frame) == nil)
        }
    }

    @Test("found as KKM manufacturer data (company 0x0A53 sent 53 0A) and as Eddystone service data")
    func inAdvertisingData() {
        let manufacturer: [UInt8] = [0x02, 0x01, 0x06, 0x08, 0xFF, 0x53, 0x0A, 0x21, 0x00, 0x01, 0x0B, 0xB8]
        #expect(AdvertisedTelemetry(advertisingData: manufacturer) == .kkm(.sensor(.init(batteryMillivolts: 3000, temperature: nil))))
        let service: [UInt8] = [0x0E, 0x16, 0xAA, 0xFE, 0x22, 0x01, 0x64, 0, 0, 0, 0, 0, 0, 2, 3]
        #expect(AdvertisedTelemetry(advertisingData: service) == .kkm(.system(.init(model: 1, batteryPercent: 100, firmware: "2.3"))))
        // Another company's manufacturer data with the same first byte is not KKM's.
        #expect(AdvertisedTelemetry(advertisingData: [0x08, 0xFF, 0x4C, 0x00, 0x21, 0x00, 0x01, 0x0B, 0xB8]) == nil)
    }
}
