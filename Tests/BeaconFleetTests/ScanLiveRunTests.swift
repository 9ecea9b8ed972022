import BeaconCore
import BeaconTestKit
import HCI
import Logging
import Synchronization
import Testing

@testable import BeaconFleet

@Suite("scan's live run on the test clock, without the command line", .timeLimit(.minutes(1)))
struct ScanLiveRunTests {
    static let logger = Logger(label: "scan-live-run-tests") { _ in SwiftLogNoOpLogHandler() }

    /// What the run handed out, in order, for the test to wait on.
    enum Handed: Equatable, Sendable {
        case sighting(minor: UInt16, at: Double)
        case tick(Double)
    }

    /// A legacy scripted controller scanned on `clock`; no quiet-controller watch, so that the
    /// run's ticks are the only sleeper on the clock.
    static func withScan<Value>(
        _ controller: ScriptedController, clock: TestClock, _ body: (LiveScan) async throws -> Value
    ) async throws -> Value {
        try await LiveScan.with(
            opening: { () async throws(HCITransportError) -> any HCITransport in controller.hostEnd },
            controller: "memory", commandTimeout: .seconds(60),
            configuration: ScanConfiguration(access: .exclusive, quietAfter: .zero), logger: logger, clock: clock, body)
    }

    static func legacyController() -> ScriptedController {
        var configuration = ScriptedController.Configuration()
        configuration.features = []
        return ScriptedController(name: "memory", configuration: configuration)
    }

    static func report() throws -> HCIEvent {
        .le(.advertisingReport([LEAdvertisingReport(
            eventType: .advNonconnInd, addressType: .random, address: try bluetoothAddress("C4:5B:BE:12:34:56"),
            data: testIBeaconData, rssi: -60)]))
    }

    @Test("a tick at the start and every interval, sightings in between with the scan's time, and the end at the duration itself")
    func ticksSightingsAndDuration() async throws {
        let clock = TestClock()
        let controller = Self.legacyController()
        let handed = RecordedLog<Handed>()
        try await Self.withScan(controller, clock: clock) { scan in
            let running = Task {
                try await ScanLiveRun.run(scan, duration: 1.2, tick: .milliseconds(500)) { sighting, now in
                    handed.append(.sighting(minor: sighting.identity.minor, at: now))
                } tick: { now in
                    handed.append(.tick(now))
                }
            }
            _ = try await handed.wait(for: "the first tick") { $0 == [.tick(0)] }
            try await controller.send(try Self.report())
            _ = try await handed.wait(for: "the sighting") { $0.count == 2 }
            // 0.5, 1.0, then 1.2: the last wait is shortened to end on the duration.
            for _ in 0..<3 {
                try await clock.sleepers(atLeast: 1)
                clock.advance(to: try #require(clock.nextDeadline))
            }
            try await running.value
        }
        #expect(handed.elements == [.tick(0), .sighting(minor: 2, at: 0), .tick(0.5), .tick(1), .tick(1.2)])
    }

    @Test("a dropped link ends the run with its error")
    func droppedLink() async throws {
        let clock = TestClock()
        let controller = Self.legacyController()
        await #expect(throws: (any Error).self) {
            try await Self.withScan(controller, clock: clock) { scan in
                let running = Task {
                    try await ScanLiveRun.run(scan, duration: nil, tick: .milliseconds(500)) { _, _ in } tick: { _ in }
                }
                try await clock.sleepers(atLeast: 1)
                controller.dropLink()
                try await running.value
            }
        }
    }

    @Test("cancelled: CancellationError, and the scan is still stopped by its scope")
    func cancelled() async throws {
        let clock = TestClock()
        let controller = Self.legacyController()
        try await Self.withScan(controller, clock: clock) { scan in
            let running = Task {
                try await ScanLiveRun.run(scan, duration: nil, tick: .milliseconds(500)) { _, _ in } tick: { _ in }
            }
            try await clock.sleepers(atLeast: 1)
            running.cancel()
            await #expect(throws: CancellationError.self) { try await running.value }
        }
        try await controller.waitFor(.leSetScanEnable, count: 2)
        #expect(controller.parameters(of: .leSetScanEnable).last == [0x00, 0x00])
    }
}
