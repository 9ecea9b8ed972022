import BeaconCore
import Foundation
import HCI
import HCITransports
import Testing

@testable import BeaconFleet

/// Telemetry frames among advertising reports, live and from captures: Eddystone-TLM laid out
/// from google/eddystone's eddystone-tlm/tlm-plain.md, KKM's frames from the KBeacon SDK's
/// readers (kkmhogen/android_kbeaconlib2, KBAdvPackage/).
@Suite("Telemetry frames to readings")
struct TelemetryExtractionTests {
    /// Flags, the Eddystone UUID listed, and a TLM frame as service data: 3000 mV, 22.5 °C,
    /// 12345 advertisements, 1000.0 s.
    static let tlmData = bytes("02 01 06 03 03 AA FE 11 16 AA FE 20 00 0B B8 16 80 00 00 30 39 00 00 27 10")
    /// A KKM sensor frame as KKM manufacturer data: battery (3100 mV) and temperature (−2.25 °C).
    static let kkmSensorData = bytes("02 01 06 0A FF 53 0A 21 00 03 0C 1C FD C0")
    /// A KKM system frame as Eddystone service data: model 7, 84 %, its MAC, firmware 5.12.
    static let kkmSystemData = bytes("02 01 06 0E 16 AA FE 22 07 54 DD 33 0A 10 20 30 05 0C")

    static func legacy(_ address: String, _ data: [UInt8], type: LEAddressType = .random) throws -> LEAdvertisingReport {
        LEAdvertisingReport(eventType: .advNonconnInd, addressType: type, address: try bluetoothAddress(address), data: data, rssi: -60)
    }

    @Test("an iBeacon and a TLM frame from one address: a sighting and a reading, same address, time, clock and receiver")
    func iBeaconAndTLMFromOneAddress() throws {
        var extractor = SightingExtractor(receiver: "hci1")
        let event = HCIEvent.le(.advertisingReport([
            try Self.legacy("D1:00:00:00:00:07", testIBeaconData), try Self.legacy("D1:00:00:00:00:07", Self.tlmData),
        ]))
        let extraction = extractor.extract(from: event, at: 4.5)
        let readings = extractor.telemetry.take()
        #expect(extraction.sightings.map(\.address?.description) == ["D1:00:00:00:00:07"])
        #expect(readings == [TelemetryReading(
            address: try bluetoothAddress("D1:00:00:00:00:07"), addressIsRandom: true, batteryMillivolts: 3000,
            temperature: 22.5, time: 4.5, clock: .elapsed, receiver: "hci1", source: .eddystoneTLM)])
        #expect(extractor.counts.iBeaconReports == 1 && extractor.counts.otherReports == 1)
        #expect(extractor.counts.telemetryReadings == 1)
        #expect(extractor.counts.description.hasSuffix("; telemetry: 1 readings, 0 encrypted, 0 malformed"))
    }

    @Test("KKM's sensor and system frames become readings in millivolts and in percent")
    func kkmFrames() throws {
        var extractor = SightingExtractor(receiver: "hci0")
        let event = HCIEvent.le(.advertisingReport([
            try Self.legacy("D1:00:00:00:00:01", Self.kkmSensorData, type: .public),
            try Self.legacy("D1:00:00:00:00:02", Self.kkmSystemData, type: .public),
        ]))
        _ = extractor.extract(from: event, at: 1)
        let readings = extractor.telemetry.take()
        #expect(readings.map(\.batteryMillivolts) == [3100, nil])
        #expect(readings.map(\.batteryPercent) == [nil, 84])
        #expect(readings.map(\.temperature) == [-2.25, nil])
        #expect(readings.allSatisfy { $0.source == .kkm && !$0.addressIsRandom })
    }

    @Test("encrypted, malformed and unmeasured frames are counted and yield no reading")
    func unreadableFrames() throws {
        var extractor = SightingExtractor(receiver: "hci0")
        let encrypted = bytes("02 01 06 15 16 AA FE 20 01") + [UInt8](repeating: 0x5A, count: 16)
        let short = bytes("02 01 06 0D 16 AA FE 20 00 0B B8 16 80 00 00 30 39")
        // VBATT 0 and TEMP 0x8000: the beacon measures neither.
        let unmeasured = bytes("02 01 06 11 16 AA FE 20 00 00 00 80 00 00 00 00 01 00 00 00 01")
        let event = HCIEvent.le(.advertisingReport(try [encrypted, short, unmeasured].map { try Self.legacy("D1:00:00:00:00:09", $0) }))
        let extraction = extractor.extract(from: event, at: 0)
        #expect(extractor.telemetry.take().isEmpty)
        #expect(extractor.counts.encryptedTelemetry == 1)
        #expect(extractor.counts.malformedTelemetry == 1)
        #expect(extractor.counts.telemetryReadings == 0)
        #expect(extraction.problems == ["telemetry from D1:00:00:00:00:09: an unencrypted TLM frame of 10 bytes, where the frame has 14"])
    }

    @Test("extended data holding both an iBeacon and a TLM frame yields both")
    func extendedDataWithBoth() throws {
        var extractor = SightingExtractor(receiver: "hci0")
        let report = try SightingExtractorTests.extended(testIBeaconData + Array(Self.tlmData.dropFirst(3)), .complete)
        let extraction = extractor.extract(from: .le(.extendedAdvertisingReport([report])), at: 2)
        #expect(extraction.sightings.count == 1)
        #expect(extractor.telemetry.take().map(\.batteryMillivolts) == [3000])
    }

    @Test("a btsnoop capture with TLM frames: readings on the capture's clock, from the scan's receiver")
    func captureWithTLM() async throws {
        let capture = SightingCaptureTests.CaptureFile()
        let writer = try BTSnoopWriter(path: capture.path, clock: SightingCaptureTests.steppingClock())
        for index in 0..<4 {
            let data = index.isMultiple(of: 2) ? testIBeaconData : Self.tlmData
            try writer.write(try HCIEvent.le(.advertisingReport([try Self.legacy("D1:00:00:00:00:03", data)])).packet(), direction: .controllerToHost)
        }
        writer.close()
        let whole = try SightingCaptureTests.readWhole(capture.path)
        #expect(whole.sightings.map(\.time) == [0, 0.5])
        #expect(whole.telemetry.map(\.time) == [0.25, 0.75])
        #expect(whole.telemetry.allSatisfy { $0.receiver == capture.path && $0.address == whole.sightings[0].address })
        #expect(whole.counts.telemetryReadings == 2)

        let recording = try await SightingRecording.open(path: capture.path)
        var sightings: [Sighting] = []
        for try await sighting in recording.sightings { sightings.append(sighting) }
        #expect(sightings == whole.sightings)
        #expect(recording.telemetry.take() == whole.telemetry)
        #expect(SightingSource.recording(recording).telemetry === recording.telemetry)
    }
}
