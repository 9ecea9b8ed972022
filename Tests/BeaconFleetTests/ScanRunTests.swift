import BeaconCore
import BeaconTestKit
import ClockTestKit
import Foundation
import HCI
import Logging
import Testing

@testable import BeaconFleet

/// scan's use case without the command line: what it ranges and writes from a recording and
/// from a live scan on the test clock.
@Suite("scan's run: a recording and a live scan ranged, filtered and written", .timeLimit(.minutes(1)))
struct ScanRunTests {
    static let logger = Logger(label: "scan-run") { _ in SwiftLogNoOpLogHandler() }

    /// One JSON line of beacon `minor` heard by `receiver` at `time` on its elapsed clock.
    static func line(minor: Int, time: Double, receiver: String = "hci0") -> String {
        #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":\#(minor),"measured_power":-59,"#
            + #""address":"C4:5B:BE:12:34:56","address_random":false,"rssi":-63,"time":\#(time),"clock":"elapsed","receiver":"\#(receiver)"}"#
    }

    /// `lines` opened as a recording from a temporary file, removed after `body`.
    static func withRecording<Value>(_ lines: [String], _ body: (SightingRecording) async throws -> Value) async throws -> Value {
        let path = NSTemporaryDirectory() + "beaconctl-scan-run-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return try await body(try await SightingRecording.open(path: path))
    }

    @Test("a recording is ranged to its end and every sighting is written unchanged")
    func recordingRangedAndWritten() async throws {
        let written = RecordedLog<Sighting>()
        let run = ScanRun(region: nil, ranging: RangingConfiguration(forgetAfter: nil), write: { written.append($0) })
        try await Self.withRecording([Self.line(minor: 2, time: 1), Self.line(minor: 3, time: 2), Self.line(minor: 2, time: 3)]) {
            try await run.rangeRecording($0, name: "scan.jsonl", duration: nil, publisher: nil, logger: Self.logger)
        }
        #expect(run.sightingCount == 3)
        #expect(run.latestTime == .seconds(3))
        #expect(written.elements.map(\.identity.minor) == [2, 3, 2])
        #expect(written.elements.map(\.time) == [1, 2, 3])
        #expect(Set(run.snapshot(at: .seconds(3)).map(\.identity.minor)) == [2, 3])
    }

    @Test("a region filters what is ranged and written; a duration of the recording's clock ends it")
    func regionAndDuration() async throws {
        let written = RecordedLog<Sighting>()
        let region = BeaconRegion(identifier: "scan", uuid: testUUID, major: 1, minor: 3)
        let run = ScanRun(region: region, ranging: RangingConfiguration(forgetAfter: nil), write: { written.append($0) })
        let lines = [Self.line(minor: 2, time: 10), Self.line(minor: 3, time: 11), Self.line(minor: 3, time: 12), Self.line(minor: 3, time: 20)]
        try await Self.withRecording(lines) {
            try await run.rangeRecording($0, name: "scan.jsonl", duration: .seconds(5), publisher: nil, logger: Self.logger)
        }
        // The duration counts from the first sighting taken (11): 20 is past it and ends the run.
        #expect(written.elements.map(\.time) == [11, 12])
        #expect(run.sightingCount == 2)
        #expect(run.snapshot(at: .seconds(12)).map(\.identity.minor) == [3])
    }

    @Test("receivers appended together each keep their own time base")
    func receiversOnOneClock() async throws {
        let run = ScanRun(region: nil, ranging: RangingConfiguration(forgetAfter: nil))
        let lines = [Self.line(minor: 2, time: 100, receiver: "a"), Self.line(minor: 2, time: 101, receiver: "a"), Self.line(minor: 3, time: 5, receiver: "b")]
        try await Self.withRecording(lines) {
            try await run.rangeRecording($0, name: "scan.jsonl", duration: nil, publisher: nil, logger: Self.logger)
        }
        // b's first sighting lands where the clock stands (a's 101), not at 5.
        #expect(run.latestTime == .seconds(101))
        #expect(run.sightingCount == 3)
    }

    @Test("a ranged recording keeps each sighting's own time and clock: written as its receiver stamped it, ranged at its place")
    func receiverTimeKeptBesidePlacedTime() async throws {
        let written = RecordedLog<Sighting>()
        let run = ScanRun(region: nil, ranging: RangingConfiguration(forgetAfter: nil), write: { written.append($0) })
        let lines = [Self.line(minor: 2, time: 100, receiver: "a"), Self.line(minor: 3, time: 5, receiver: "b"), Self.line(minor: 3, time: 6.5, receiver: "b")]
        try await Self.withRecording(lines) {
            try await run.rangeRecording($0, name: "scan.jsonl", duration: nil, publisher: nil, logger: Self.logger)
        }
        // b's own times and clock, as its receiver stamped them.
        #expect(written.elements.map(\.time) == [100, 5, 6.5])
        #expect(written.elements.map(\.clock) == [.elapsed, .elapsed, .elapsed])
        // Ranged at their places on the run's clock: b joined at a's 100, and keeps its gap.
        let beacon = try #require(run.snapshot(at: .seconds(101.5)).first { $0.identity.minor == 3 })
        #expect(beacon.firstSeen == 100)
        #expect(beacon.lastSeen == 101.5)
        #expect(run.latestTime == .seconds(101.5))
    }

    @Test("a malformed recording throws its error, naming the line")
    func malformedRecording() async throws {
        let run = ScanRun(region: nil, ranging: RangingConfiguration())
        let error = try await Self.withRecording([Self.line(minor: 2, time: 1), "{"]) { recording in
            await #expect(throws: SightingStreamError.self) {
                try await run.rangeRecording(recording, name: "scan.jsonl", duration: nil, publisher: nil, logger: Self.logger)
            }
        }
        #expect(error?.description.contains("line 2") == true)
        #expect(run.sightingCount == 1)
    }

    @Test("a broker's stream runs for the duration on the clock, not on its sightings' times, and ends without its end")
    func brokerStreamForADuration() async throws {
        let clock = TestClock()
        let channel = BatchChannel<Sighting>(producers: 1, depth: 4)
        let written = RecordedLog<Sighting>()
        let run = ScanRun(region: nil, ranging: RangingConfiguration(forgetAfter: nil), write: { written.append($0) })
        let sightings = try SightingRecording.jsonLines(
            text: [Self.line(minor: 2, time: 1_700_000_000), Self.line(minor: 3, time: 1_700_000_100)].joined(separator: "\n"),
            source: "broker")
        let ranging = Task {
            try await run.rangeRecording(
                .broker(BrokerSightings(channel: channel)), name: "mqtt://broker/beacons", duration: .seconds(30), publisher: nil,
                logger: Self.logger, clock: clock)
        }
        // 100 s apart on their own clock, yet both within 30 s of the test clock: both taken.
        #expect(await channel.push(sightings))
        _ = try await written.wait(for: "both sightings") { $0.count == 2 }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(30))
        // The stream never ends (no finish): the duration alone ends the run.
        try await ranging.value
        #expect(run.sightingCount == 2)
        channel.stop()
    }

    /// What a live run handed out, in order.
    enum Handed: Equatable, Sendable {
        case written(minor: UInt16, time: Double, clock: SightingClock)
        case tick(PassTime)
    }

    @Test("a live scan: sightings ranged and written on the scan's clock, a tick every interval, the end at the duration")
    func liveScan() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let handed = RecordedLog<Handed>()
        let run = ScanRun(region: nil, ranging: RangingConfiguration(), write: { sighting in
            handed.append(.written(minor: sighting.identity.minor, time: sighting.time, clock: sighting.clock))
        })
        let end = try await withScriptedScan(controller, clock: clock) { scan in
            let running = Task {
                await run.rangeLive(scan, duration: .milliseconds(1200), publisher: nil, writesUnixTime: false, tickEvery: 0.5) { now in
                    handed.append(.tick(now))
                }
            }
            _ = try await handed.wait(for: "the first tick") { $0.count == 1 }
            try await controller.send(try testBeaconReport())
            _ = try await handed.wait(for: "the sighting") { $0.count == 2 }
            // 0.5, 1.0, then 1.2: the last wait is shortened to end on the duration.
            for _ in 0..<3 {
                try await clock.sleepers(atLeast: 1)
                clock.advance(to: try #require(clock.nextDeadline))
            }
            return await running.value
        }
        #expect(handed.elements == [.tick(.seconds(0)), .written(minor: 2, time: 0, clock: .elapsed), .tick(.seconds(0.5)), .tick(.seconds(1)), .tick(.seconds(1.2))])
        #expect(end.failure == nil)
        #expect(end.lostCount == 0)
        #expect(run.sightingCount == 1)
        // The run stopped the scan itself, for its final counts.
        #expect(controller.parameters(of: .leSetScanEnable).last == [0x00, 0x00])
    }

    @Test("a live scan's telemetry is taken at its ticks: written on the scan's clock and receiver, kept as each advertiser's latest")
    func liveTelemetry() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let sightings = RecordedLog<Sighting>()
        let readings = RecordedLog<TelemetryReading>()
        let run = ScanRun(
            region: nil, ranging: RangingConfiguration(), write: { sightings.append($0) }, writeTelemetry: { readings.append($0) })
        try await withScriptedScan(controller, clock: clock) { scan in
            let ticks = RecordedLog<PassTime>()
            let running = Task {
                await run.rangeLive(scan, duration: nil, publisher: nil, writesUnixTime: false, tickEvery: 0.5) { ticks.append($0) }
            }
            _ = try await ticks.wait(for: "the first tick") { $0.count == 1 }
            // The TLM frame, then the iBeacon, from one address: once the sighting is out, the frame was read.
            try await controller.send(.le(.advertisingReport([LEAdvertisingReport(
                eventType: .advNonconnInd, addressType: .random, address: try bluetoothAddress("C4:5B:BE:12:34:56"),
                data: TelemetryExtractionTests.tlmData, rssi: -61)])))
            try await controller.send(try testBeaconReport())
            _ = try await sightings.wait(for: "the sighting") { $0.count == 1 }
            #expect(readings.elements.isEmpty, "taken at the next tick")
            try await clock.sleepers(atLeast: 1)
            clock.advance(to: try #require(clock.nextDeadline))
            _ = try await readings.wait(for: "the reading") { $0.count == 1 }
            running.cancel()
            _ = await running.value
        }
        let reading = try #require(readings.elements.first)
        let sighting = try #require(sightings.elements.first)
        #expect(reading.address == sighting.address && reading.receiver == sighting.receiver && reading.clock == sighting.clock)
        #expect(reading.batteryMillivolts == 3000 && reading.temperature == 22.5)
        #expect(run.latestTelemetry() == [reading])
        #expect(run.telemetryCount == 1)
    }

    @Test("a live scan writes on Unix time when asked, and ranges on the scan's clock")
    func liveScanOnUnixTime() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let written = RecordedLog<Sighting>()
        let run = ScanRun(region: nil, ranging: RangingConfiguration(), write: { written.append($0) })
        try await withScriptedScan(controller, clock: clock) { scan in
            let running = Task {
                await run.rangeLive(scan, duration: nil, publisher: nil, writesUnixTime: true, tickEvery: 0.5) { _ in }
            }
            try await controller.send(try testBeaconReport())
            _ = try await written.wait(for: "the sighting") { $0.count == 1 }
            running.cancel()
            let end = await running.value
            #expect(end.failure == nil)
        }
        let sighting = try #require(written.elements.first)
        #expect(sighting.clock == .unix)
        #expect(sighting.time >= 1_000_000_000)
        #expect(run.latestTime == .seconds(0))
    }

    @Test("a dropped link ends a live run with its failure, the scan stopped")
    func liveScanFails() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let end = try await withScriptedScan(controller, clock: clock) { scan in
            let running = Task {
                await ScanRun(region: nil, ranging: RangingConfiguration())
                    .rangeLive(scan, duration: nil, publisher: nil, writesUnixTime: false, tickEvery: 0.5) { _ in }
            }
            try await clock.sleepers(atLeast: 1)
            controller.dropLink()
            return await running.value
        }
        #expect(end.failure is ScanError)
    }
}
