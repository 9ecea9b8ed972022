import BeaconCore
import Testing

/// Eddystone-TLM frames (google/eddystone, eddystone-tlm/tlm-plain.md and tlm-encrypted.md),
/// laid out by hand from the documents' tables.
@Suite("Eddystone-TLM")
struct EddystoneTelemetryTests {
    /// 3000 mV, 22.5 °C (0x1680 in 8.8), 12345 advertisements, 1000.0 s (10000 tenths).
    static let plainFrame: [UInt8] = [0x20, 0x00, 0x0B, 0xB8, 0x16, 0x80, 0x00, 0x00, 0x30, 0x39, 0x00, 0x00, 0x27, 0x10]

    @Test("an unencrypted frame: every field big-endian, temperature in signed 8.8 fixed point")
    func plain() throws {
        guard case .plain(let reading) = EddystoneTelemetry(frame: Self.plainFrame) else {
            Issue.record("expected a plain frame")
            return
        }
        #expect(reading.batteryMillivolts == 3000)
        #expect(reading.batteryVolts == 3.0)
        #expect(reading.temperature == 22.5)
        #expect(reading.advertisingCount == 12345)
        #expect(reading.uptimeTenths == 10000)
        #expect(reading.uptimeSeconds == 1000)
    }

    @Test("below zero, and the values that say 'not measured' (VBATT 0, TEMP 0x8000)", arguments: [
        ([0x00, 0x00, 0xFF, 0x80] as [UInt8], nil as UInt16?, -0.5 as Double?),
        ([0x0C, 0xE4, 0x80, 0x00], 3300, nil),
        ([0x0C, 0xE4, 0xF6, 0x40], 3300, -9.75),
    ])
    func specialValues(batteryAndTemperature: [UInt8], battery: UInt16?, temperature: Double?) {
        let frame: [UInt8] = [0x20, 0x00] + batteryAndTemperature + [0, 0, 0, 1, 0, 0, 0, 1]
        guard case .plain(let reading) = EddystoneTelemetry(frame: frame) else {
            Issue.record("expected a plain frame")
            return
        }
        #expect(reading.batteryMillivolts == battery)
        #expect(reading.temperature == temperature)
    }

    @Test("encrypted frames are said to be encrypted; other frames are not TLM; wrong lengths and versions are malformed")
    func otherFrames() {
        #expect(EddystoneTelemetry(frame: [0x20, 0x01] + [UInt8](repeating: 0xA5, count: 16)) == .encrypted)
        // Eddystone-UID (0x00), URL (0x10), EID (0x30), and nothing at all.
        for other: [UInt8] in [[0x00, 0xEE], [0x10, 0x00, 0x03], [0x30, 0x00], []] {
            #expect(EddystoneTelemetry(frame: other) == nil)
        }
        for (frame, says) in [
            ([0x20] as [UInt8], "no version"), (Array(Self.plainFrame.dropLast()), "13 bytes"),
            (Self.plainFrame + [0], "15 bytes"), ([0x20, 0x01, 0x00], "encrypted TLM frame of 3 bytes"),
            ([0x20, 0x02] + [UInt8](repeating: 0, count: 12), "version 2"),
        ] {
            guard case .malformed(let reason) = EddystoneTelemetry(frame: frame) else {
                Issue.record("expected malformed for \(frame)")
                continue
            }
            #expect(reason.contains(says), "\(reason)")
        }
    }

    @Test("found in advertising data as Eddystone service data (UUID 0xFEAA sent AA FE), beside other structures")
    func inAdvertisingData() {
        // Flags, the complete list of 16-bit UUIDs (FEAA), then the service data.
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE, 0x11, 0x16, 0xAA, 0xFE] + Self.plainFrame
        guard case .plain(let reading) = EddystoneTelemetry(advertisingData: data) else {
            Issue.record("expected a plain frame")
            return
        }
        #expect(reading.advertisingCount == 12345)
        // Another service's data, or truncated advertising data: none.
        #expect(EddystoneTelemetry(advertisingData: [0x11, 0x16, 0x0F, 0x18] + Self.plainFrame) == nil)
        #expect(EddystoneTelemetry(advertisingData: [0x11, 0x16, 0xAA, 0xFE, 0x20]) == nil)
    }
}
