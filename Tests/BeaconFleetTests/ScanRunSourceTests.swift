import BeaconCore
import BeaconTestKit
import ClockTestKit
import Foundation
import HCI
import Logging
import Synchronization
import Testing

@testable import BeaconFleet

/// scan's use case once its source is open (`ScanRun.range`): what the front end is told,
/// in order, for a live scan on the test clock and for a recording.
@Suite("scan's use case: a live scan or a recording ranged, its front end told, stops and failures", .timeLimit(.minutes(1)))
struct ScanRunSourceTests {
    static let logger = Logger(label: "scan-run-source") { _ in SwiftLogNoOpLogHandler() }

    /// What the observer was told, in order.
    enum Told: Equatable, Sendable {
        case started(live: Bool, counted: Bool)
        case tick(PassTime)
        case endedLive(elapsed: PassTime, failed: Bool, lost: Int)
        case endedRecording(latestTime: PassTime?)
    }

    final class Observer: ScanObserver {
        let told = RecordedLog<Told>()
        func started(_ start: ScanStart) {
            told.append(.started(live: start.live != nil, counted: start.loss != nil))
        }
        func tick(_ now: PassTime) { told.append(.tick(now)) }
        func ended(_ end: ScanEnd) {
            switch end {
            case .live(let end): told.append(.endedLive(elapsed: end.elapsed, failed: end.failure != nil, lost: end.lostCount))
            case .recording(let latestTime): told.append(.endedRecording(latestTime: latestTime))
            }
        }
    }

    @Test("a live scan: started with its loss counted, a tick every interval, ended at the duration on the scan's clock")
    func liveToItsDuration() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let observer = Observer()
        let run = ScanRun(region: nil, ranging: RangingConfiguration())
        try await withScriptedScan(controller, clock: clock) { scan in
            let running = Task {
                try await run.range(
                    .live(scan), named: "-", duration: .seconds(1), publishing: nil, writesUnixTime: false, tickEvery: 0.5,
                    stops: NoStopRequests(), observer: observer, logger: Self.logger)
            }
            _ = try await observer.told.wait(for: "the first tick") { $0.count == 2 }
            // 0.5, then 1: the duration.
            for _ in 0..<2 {
                try await clock.sleepers(atLeast: 1)
                clock.advance(to: try #require(clock.nextDeadline))
            }
            try await running.value
        }
        #expect(observer.told.elements == [
            .started(live: true, counted: true), .tick(.seconds(0)), .tick(.seconds(0.5)), .tick(.seconds(1)), .endedLive(elapsed: .seconds(1), failed: false, lost: 0),
        ])
        #expect(controller.parameters(of: .leSetScanEnable).last == [0x00, 0x00])
    }

    @Test("a stop ends a live scan as its duration would: told its end, no failure")
    func liveStopped() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let observer = Observer()
        let stops = ManualStops()
        try await withScriptedScan(controller, clock: clock) { scan in
            let running = Task {
                try await ScanRun(region: nil, ranging: RangingConfiguration()).range(
                    .live(scan), named: "-", duration: nil, publishing: nil, writesUnixTime: false, tickEvery: 0.5,
                    stops: stops, observer: observer, logger: Self.logger)
            }
            _ = try await observer.told.wait(for: "the first tick") { $0.count == 2 }
            stops.stop()
            try await running.value
        }
        #expect(observer.told.elements.first == .started(live: true, counted: true))
        #expect(observer.told.elements.last == .endedLive(elapsed: .seconds(0), failed: false, lost: 0))
        #expect(stops.started == 1)
    }

    @Test("a live scan that fails: told its end (for the last table) before the failure is thrown")
    func liveFails() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let observer = Observer()
        let failure = try await withScriptedScan(controller, clock: clock) { scan -> ScanFailure? in
            let running = Task {
                try await ScanRun(region: nil, ranging: RangingConfiguration()).range(
                    .live(scan), named: "-", duration: nil, publishing: nil, writesUnixTime: false, tickEvery: 0.5,
                    stops: NoStopRequests(), observer: observer, logger: Self.logger)
            }
            try await clock.sleepers(atLeast: 1)
            controller.dropLink()
            do {
                try await running.value
                return nil
            } catch {
                return error as? ScanFailure
            }
        }
        guard case .controller(let error) = failure else {
            Issue.record("expected the scan's failure, got \(String(describing: failure))")
            return
        }
        #expect(error is ScanError)
        guard case .endedLive(_, let failed, _) = observer.told.elements.last else {
            Issue.record("not told the end: \(observer.told.elements)")
            return
        }
        #expect(failed)
    }

    /// `lines` opened as a recording from a temporary file, removed after `body`.
    static func withRecording<Value>(_ lines: [String], _ body: (SightingRecording) async throws -> Value) async throws -> Value {
        let path = NSTemporaryDirectory() + "beaconctl-scan-source-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return try await body(try await SightingRecording.open(path: path))
    }

    @Test("a recording: started without a loss to count, ranged to its end, told its newest time")
    func recording() async throws {
        let observer = Observer()
        let run = ScanRun(region: nil, ranging: RangingConfiguration(forgetAfter: nil))
        try await Self.withRecording([ScanRunTests.line(minor: 2, time: 1), ScanRunTests.line(minor: 3, time: 3)]) { recording in
            try await run.range(
                .recording(recording), named: "scan.jsonl", duration: nil, publishing: nil, writesUnixTime: false, tickEvery: 0.5,
                stops: ManualStops(), observer: observer, logger: Self.logger)
        }
        #expect(observer.told.elements == [.started(live: false, counted: false), .endedRecording(latestTime: .seconds(3))])
        #expect(run.sightingCount == 2)
    }

    @Test("a malformed recording throws its error and is not told an end")
    func malformedRecording() async throws {
        let observer = Observer()
        let failure = try await Self.withRecording([ScanRunTests.line(minor: 2, time: 1), "{"]) { recording -> ScanFailure? in
            do throws(ScanFailure) {
                try await ScanRun(region: nil, ranging: RangingConfiguration()).range(
                    .recording(recording), named: "scan.jsonl", duration: nil, publishing: nil, writesUnixTime: false,
                    tickEvery: 0.5, stops: NoStopRequests(), observer: observer, logger: Self.logger)
                return nil
            } catch {
                return error
            }
        }
        guard case .recording(let error) = failure else {
            Issue.record("expected the recording's error, got \(String(describing: failure))")
            return
        }
        #expect(error.description.contains("line 2"))
        #expect(observer.told.elements == [.started(live: false, counted: false)])
    }
}
