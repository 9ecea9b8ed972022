import BeaconCore
import Foundation
import HCI
import HCITransports
import Synchronization
import Testing

@testable import BeaconFleet

@Suite("btsnoop captures to sightings")
struct SightingCaptureTests {
    /// A scratch capture file, removed at the end of the test.
    final class CaptureFile {
        let path = NSTemporaryDirectory() + "beaconctl-capture-\(UUID().uuidString).btsnoop"
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A capture file read whole, as the in-memory reader takes it.
    static func readWhole(_ path: String) throws(SightingStreamError) -> SightingCapture {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SightingStreamError(source: path, reason: "cannot read it")
        }
        return try SightingCapture(bytes: Array(data), source: path)
    }

    /// A clock for BTSnoopWriter stepping 250 ms per record from a fixed Unix time.
    static func steppingClock() -> @Sendable () -> Int64 {
        let next = Mutex<Int64>(1_700_000_000_000_000)
        return { next.withLock { value in defer { value += 250_000 }; return value } }
    }

    static func report(_ address: String, _ data: [UInt8], rssi: Int8?, type: LEAddressType = .public) throws -> LEAdvertisingReport {
        LEAdvertisingReport(eventType: .advNonconnInd, addressType: type, address: try bluetoothAddress(address), data: data, rssi: rssi)
    }

    /// What a scan on a controller looks like in a capture: commands, their answers, a
    /// multi-report event, an extended report in two fragments, a malformed event.
    static func writeScanCapture(to path: String) throws {
        let writer = try BTSnoopWriter(path: path, clock: steppingClock())
        defer { writer.close() }
        try writer.write(try HCICommandPacket(LESetScanEnable(true)).packet, direction: .hostToController)  // t = 0
        try writer.write(try HCIEvent.commandComplete(.init(answering: LESetScanEnable.self)).packet(), direction: .controllerToHost)
        let reports = [
            try report("C4:5B:BE:00:00:01", testIBeaconData, rssi: -60),
            try report("C4:5B:BE:00:00:02", bytes("02 01 06 03 03 AA FE"), rssi: -70),
            try report("C4:5B:BE:00:00:03", testIBeaconData, rssi: nil, type: .random),
        ]
        try writer.write(try HCIEvent.le(.advertisingReport(reports)).packet(), direction: .controllerToHost)  // t = 0.5
        let address = try bluetoothAddress("D0:00:00:00:00:01")
        let first = LEExtendedAdvertisingReport(
            eventType: .init(dataStatus: .incompleteMoreToCome), addressType: .random, address: address, sid: 1,
            rssi: -71, data: Array(testIBeaconData[..<16]))
        let last = LEExtendedAdvertisingReport(
            eventType: .init(dataStatus: .complete), addressType: .random, address: address, sid: 1,
            rssi: -72, data: Array(testIBeaconData[16...]))
        try writer.write(try HCIEvent.le(.extendedAdvertisingReport([first])).packet(), direction: .controllerToHost)
        try writer.write(try HCIEvent.le(.extendedAdvertisingReport([last])).packet(), direction: .controllerToHost)  // t = 1.0
        // An LE Advertising Report whose report count promises more than it holds.
        try writer.write(HCIPacket(type: .event, body: bytes("3E 03 02 02 03")), direction: .controllerToHost)
    }

    @Test func readsEveryReportOfACaptureWithRecordTimes() throws {
        let capture = CaptureFile()
        try Self.writeScanCapture(to: capture.path)
        let result = try Self.readWhole(capture.path)
        #expect(result.datalink == .hciUART)
        #expect(result.recordCount == 6)
        #expect(result.truncation == nil)
        #expect(result.startUnixMicroseconds == 1_700_000_000_000_000)
        let identity = BeaconIdentity(uuid: testUUID, major: 1, minor: 2)
        #expect(result.sightings.map(\.address?.description) == ["C4:5B:BE:00:00:01", "C4:5B:BE:00:00:03", "D0:00:00:00:00:01"])
        #expect(result.sightings.allSatisfy { $0.identity == identity && $0.receiver == capture.path })
        #expect(result.sightings.map(\.time) == [0.5, 0.5, 1.0])
        #expect(result.sightings.allSatisfy { $0.clock == .elapsed }, "from the first record, whose Unix time the summary keeps")
        #expect(result.sightings.map(\.rssi) == [-60, nil, -72])
        #expect(result.sightings.map(\.addressIsRandom) == [false, true, true])
        #expect(result.counts.iBeaconReports == 3)
        #expect(result.counts.otherReports == 1)
        #expect(result.counts.fragments == 1)
        #expect(result.counts.malformedEvents == 1)
    }

    @Test func aCaptureCutInItsLastRecordKeepsWhatPrecedes() throws {
        let capture = CaptureFile()
        try Self.writeScanCapture(to: capture.path)
        let whole = try Data(contentsOf: URL(fileURLWithPath: capture.path))
        // Drop the last record (a 24-byte header and a 6-byte packet) and the last 20 bytes
        // of the one before, the extended report's second fragment.
        let cut = Array(whole.dropLast(24 + 6 + 20))
        let result = try SightingCapture(bytes: cut, source: "cut.btsnoop")
        #expect(result.sightings.count == 2)
        #expect(result.truncation?.hasPrefix("btsnoop record 4 at byte") == true)
    }

    @Test func notACapture() throws {
        let error = try #require(throws: SightingStreamError.self) {
            _ = try SightingCapture(bytes: Array("{\"uuid\":1}".utf8), source: "scan.jsonl")
        }
        #expect(error.description == "scan.jsonl: not a btsnoop file: it does not start with \"btsnoop\\0\"")
        let missing = try #require(throws: SightingStreamError.self) {
            _ = try Self.readWhole("/nonexistent/capture.btsnoop")
        }
        #expect(missing.description.hasPrefix("/nonexistent/capture.btsnoop: cannot "))
    }

    @Test func linuxMonitorCapturesNameEachController() throws {
        // btmon's format (datalink 2001): flags = controller index << 16 | monitor opcode,
        // opcode 3 = event; the data is the event without an H4 indicator.
        var file = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x07, 0xD1]
        let event = try HCIEvent.le(.advertisingReport([Self.report("C4:5B:BE:00:00:01", testIBeaconData, rssi: -50)])).packet().body
        for (index, time) in [(UInt32(0), Int64(0)), (1, 2_000_000)] {
            let timestamp = UInt64(bitPattern: 0x00DC_DDB3_0F2F_8000 + 1_700_000_000_000_000 + time)
            file += withUnsafeBytes(of: UInt32(event.count).bigEndian, Array.init)
            file += withUnsafeBytes(of: UInt32(event.count).bigEndian, Array.init)
            file += withUnsafeBytes(of: (index << 16 | 3).bigEndian, Array.init)
            file += [0, 0, 0, 0]
            file += withUnsafeBytes(of: timestamp.bigEndian, Array.init)
            file += event
        }
        let result = try SightingCapture(bytes: file, source: "btmon.log")
        #expect(result.datalink == .linuxMonitor)
        #expect(result.sightings.map(\.receiver) == ["btmon.log hci0", "btmon.log hci1"])
        #expect(result.sightings.map(\.time) == [0, 2])
    }

    @Test func openRecognisesACapture() async throws {
        let capture = CaptureFile()
        try Self.writeScanCapture(to: capture.path)
        guard case .capture(let stream) = try await SightingRecording.open(path: capture.path) else {
            Issue.record("a btsnoop file was not recognised")
            return
        }
        #expect(stream.summary.values == nil, "nothing is read before the sightings are")
        var streamed: [Sighting] = []
        for try await sighting in stream { streamed.append(sighting) }
        let whole = try Self.readWhole(capture.path)
        #expect(streamed == whole.sightings)
        #expect(stream.summary.values == whole.summary)
    }
}
