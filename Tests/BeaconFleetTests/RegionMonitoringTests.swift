import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import Logging
import Synchronization
import Testing

@testable import BeaconFleet

/// monitor's use case (`RegionMonitoring`): a live run stopped, its state requests answered,
/// its front end finished; a recording that cannot be read.
@Suite("monitor's use case: live stops and state requests, the front end finished, recordings refused", .timeLimit(.minutes(1)))
struct RegionMonitoringTests {
    static let logger = Logger(label: "region-monitoring-tests") { _ in SwiftLogNoOpLogHandler() }

    /// Every report, and how the run finished the front end.
    final class FrontEnd: MonitorFrontEnd {
        let events = RecordedLog<RegionEvent>()
        let finished = RecordedLog<Bool>()
        func report(_ events: [RegionEvent]) { for event in events { self.events.append(event) } }
        func report(_ rangings: [RegionRanging]) {}
        func publishingStarted(_ publishing: ReportPublishing) {}
        func finish(stopping: Bool) async { finished.append(stopping) }
    }

    /// State requests a test makes by hand, and whether the run still listens.
    final class ManualStateRequests: MonitorStateRequests {
        private let report = Mutex<(@Sendable () -> Void)?>(nil)
        let listening = RecordedLog<Bool>()

        func listen(_ report: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
            self.report.withLock { $0 = report }
            listening.append(true)
            return { [self] in
                self.report.withLock { $0 = nil }
                listening.append(false)
            }
        }

        func request() {
            report.withLock { $0 }?()
        }
    }

    static func monitoring(duration: Duration? = nil) throws -> RegionMonitoring {
        let region = try #require(BeaconRegion(identifier: "store", uuid: testUUID, major: 1))
        return RegionMonitoring(
            regions: [MonitoredRegion(region: region)], configuration: .init(exitPeriod: .seconds(30)), ranging: nil, stateEvery: nil,
            rangeEvery: .seconds(1), duration: duration, logger: logger)
    }

    @Test("a live run answers state requests while it runs, and a stop ends it normally, the scan stopped and nothing lost")
    func liveStopAndStateRequests() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let frontEnd = FrontEnd()
        let stops = ManualStops()
        let requests = ManualStateRequests()
        let monitoring = try Self.monitoring()
        let end = try await withScriptedScan(controller, clock: clock) { scan in
            let running = Task {
                await monitoring.live(scan, output: MonitorReportSinks([frontEnd]), stops: stops, stateRequests: requests)
            }
            _ = try await requests.listening.wait(for: "the run to listen") { $0 == [true] }
            requests.request()
            let states = try await frontEnd.events.wait(for: "the state report") { !$0.isEmpty }
            #expect(states.map(\.kind) == [.state])
            #expect(states.first?.state == .unknown)
            stops.stop()
            return await running.value
        }
        #expect(end.failure == nil)
        #expect(end.lostCount == 0)
        #expect(requests.listening.elements == [true, false], "no longer listening once the run ended")
        #expect(controller.parameters(of: .leSetScanEnable).last == [0x00, 0x00])
    }

    @Test("a scan that fails ends live monitoring with its failure, not a throw")
    func liveFailure() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let monitoring = try Self.monitoring()
        let end = try await withScriptedScan(controller, clock: clock) { scan in
            let running = Task {
                await monitoring.live(scan, output: MonitorReportSinks([FrontEnd()]), stops: NoStopRequests(), stateRequests: nil)
            }
            try await clock.sleepers(atLeast: 1)
            controller.dropLink()
            return await running.value
        }
        #expect(end.failure is ScanError)
    }

    @Test("the front end is finished once: normally after the body, stopping after a body that threw, whose error passes through")
    func frontEndFinished() async throws {
        struct BodyFailed: Error {}
        let monitoring = try Self.monitoring()
        let normal = FrontEnd()
        try await monitoring.reporting(to: normal, publishing: nil) { _ in }
        #expect(normal.finished.elements == [false])

        let failing = FrontEnd()
        await #expect(throws: BodyFailed.self) {
            try await monitoring.reporting(to: failing, publishing: nil) { _ in throw BodyFailed() }
        }
        #expect(failing.finished.elements == [true])
    }

    @Test("a recording that cannot be opened is a recording failure, naming it")
    func unreadableRecording() async throws {
        let monitoring = try Self.monitoring()
        let path = "/nonexistent/beaconctl-monitor-\(UInt64.random(in: 0...UInt64.max)).jsonl"
        do {
            try await monitoring.replay(path, broker: nil, output: MonitorReportSinks([FrontEnd()]), stops: NoStopRequests())
            Issue.record("a missing recording was monitored")
        } catch MonitorFailure.recording(let error) {
            #expect(error.description.contains(path))
        }
    }
}
