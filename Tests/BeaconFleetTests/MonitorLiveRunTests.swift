import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import Logging
import Synchronization
import Testing

@testable import BeaconFleet

@Suite("Monitoring a live scan on the test clock", .timeLimit(.minutes(1)))
struct MonitorLiveRunTests {
    /// Keeps every event reported, for the test to wait on.
    final class RecordingSink: MonitorReportSink {
        let events = RecordedLog<RegionEvent>()
        func report(_ events: [RegionEvent]) { for event in events { self.events.append(event) } }
        func report(_ rangings: [RegionRanging]) {}
    }

    @Test("a beacon heard once: entered at once, left when the exit period of silence has passed on the scan's clock, and the run ends at its duration")
    func exitOnSilence() async throws {
        let clock = TestClock()
        let controller = ScriptedController(name: "memory")
        let logger = Logger(label: "monitor-live-tests") { _ in SwiftLogNoOpLogHandler() }
        let region = try #require(BeaconRegion(identifier: "store", uuid: testUUID, major: 1))
        let sink = RecordingSink()
        let run = MonitorRun(
            session: MonitorSession(regions: [MonitoredRegion(region: region)], configuration: .init(exitPeriod: .seconds(1)), start: .origin),
            schedule: MonitorSchedule(stateEvery: nil, rangeEvery: nil), output: sink, logger: logger)

        // No quiet-controller watch (`withScriptedScan`): the run's ticks are the only sleeper on the clock.
        try await withScriptedScan(controller, clock: clock) { scan in
            let running = Task { try await run.runLive(scan, duration: .seconds(3)) }
            try await controller.send(.le(.advertisingReport([LEAdvertisingReport(
                eventType: .advNonconnInd, addressType: .random, address: try bluetoothAddress("C4:5B:BE:12:34:56"),
                data: testIBeaconData, rssi: -60)])))
            // Heard before the clock moved: entered at 0.
            let entered = try await sink.events.wait(for: "the enter") { !$0.isEmpty }
            #expect(entered.map(\.kind) == [.enter])
            #expect(entered.first?.time == .origin)

            // Three ticks of 250 ms: 0.75 s of silence, still inside (each tick taken before the next).
            for _ in 0..<3 {
                try await clock.sleepers(atLeast: 1)
                clock.advance(by: MonitorRun.liveTick)
            }
            try await clock.sleepers(atLeast: 1)
            #expect(sink.events.elements.map(\.kind) == [.enter], "0.75 s of a 1 s exit period")
            // The tick at 1 s: the exit period has passed.
            clock.advance(by: MonitorRun.liveTick)
            let exited = try await sink.events.wait(for: "the exit") { $0.count == 2 }
            #expect(exited.last?.kind == .exit)
            #expect(exited.last?.time == .seconds(1))

            // The run ends at 3 s of the scan's clock: eight more ticks. (Not `advancing`: the scan
            // stops when the run ends, and the disable command's timeout sleeps on this clock too.)
            for _ in 0..<8 {
                try await clock.sleepers(atLeast: 1)
                clock.advance(by: MonitorRun.liveTick)
            }
            try await running.value
            #expect(scan.elapsed() == 3)
        }
    }
}
