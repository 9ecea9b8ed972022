import BeaconCore
import BeaconTestKit
import ClockTestKit
import Foundation
import HCI
import Logging
import Synchronization
import Testing

@testable import BeaconFleet

/// calibrate's live use case (`LiveCalibrationRun`): one collection and a walk's spots on the
/// test clock, what the front end is told, stops and an input that ends early.
@Suite("calibrate's live use case: a collection, a walk's spots, stops", .timeLimit(.minutes(1)))
struct LiveCalibrationRunTests {
    static let identity = BeaconIdentity(uuid: testUUID, major: 1, minor: 2)
    static let logger = Logger(label: "live-calibration-run-tests") { _ in SwiftLogNoOpLogHandler() }

    /// Scans on a fresh scripted controller each time, on one test clock; a long command
    /// timeout, so that the clock moved for the collections never times a command out.
    final class ScriptedScans: ScanOpening {
        let clock: TestClock
        let opened = RecordedLog<ScriptedController>()
        var controller: String { "memory" }

        init(clock: TestClock) {
            self.clock = clock
        }

        func scanning<Value>(_ body: (LiveScan) async throws -> Value) async throws -> Value {
            let controller = legacyScanController()
            opened.append(controller)
            return try await LiveScan.with(
                opening: { () async throws(HCITransportError) -> any HCITransport in controller.hostEnd },
                controller: "memory", commandTimeout: .seconds(3600),
                configuration: ScanConfiguration(access: .exclusive, quietAfter: .zero),
                logger: LiveCalibrationRunTests.logger, clock: clock, body)
        }
    }

    /// What the front end was told, in order.
    enum Told: Equatable, Sendable {
        case collecting(Double)
        case walk(spots: Int, seconds: Double, controller: String)
        case waiting(index: Int, count: Int, distance: Double)
        case collected(Int)
    }

    final class Progress: CalibrationProgress {
        let told = RecordedLog<Told>()
        func collecting(for seconds: Double) { told.append(.collecting(seconds)) }
        func walkStarting(spots: Int, seconds: Double, controller: String) {
            told.append(.walk(spots: spots, seconds: seconds, controller: controller))
        }
        func spotWaiting(index: Int, of count: Int, distance: Double) {
            told.append(.waiting(index: index, count: count, distance: distance))
        }
        func spotCollected(samples: Int) { told.append(.collected(samples)) }
    }

    static let run = LiveCalibrationRun(identity: identity, seconds: 1, advertiser: nil, logger: logger)

    @Test("one collection: told it starts, on one scan, and it ends at its seconds on the scan's clock")
    func oneCollection() async throws {
        let clock = TestClock()
        let scans = ScriptedScans(clock: clock)
        let progress = Progress()
        // Ticks of 250 ms until the collection's deadline, 1 s of the scan: a silent air.
        let sampler = try await clock.advancing(by: CalibrationSampler.collectionTick) {
            try await Self.run.sample(scans: scans, stops: NoStopRequests(), progress: progress)
        }
        #expect(sampler.transmitters.isEmpty)
        #expect(progress.told.elements == [.collecting(1)])
        #expect(scans.opened.elements.count == 1)
    }

    @Test("a scan that fails during the collection is the controller's failure, not a partial sampler")
    func failedCollection() async throws {
        let clock = TestClock()
        let scans = ScriptedScans(clock: clock)
        let progress = Progress()
        let collecting = Task { try await Self.run.sample(scans: scans, stops: NoStopRequests(), progress: progress) }
        _ = try await progress.told.wait(for: "the collection to start") { !$0.isEmpty }
        try await clock.sleepers(atLeast: 1)
        let controller = try #require(scans.opened.elements.first)
        await controller.closeLink()
        do {
            _ = try await collecting.value
            Issue.record("a failed scan gave a sampler")
        } catch LiveCalibrationError.controller(let error) {
            #expect(error is ScanError)
        }
    }

    @Test("a stop during the collection throws the stop, not a partial sampler")
    func stoppedCollection() async throws {
        let scans = ScriptedScans(clock: TestClock())
        let progress = Progress()
        let stops = ManualStops()
        let collecting = Task { try await Self.run.sample(scans: scans, stops: stops, progress: progress) }
        _ = try await progress.told.wait(for: "the collection to start") { !$0.isEmpty }
        stops.stop()
        await #expect(throws: UserStop.self) { try await collecting.value }
    }

    /// A file of `lines` lines, the walk's pacing, removed after `body`.
    static func withPacing<Value>(lines: Int, _ body: (String) async throws -> Value) async throws -> Value {
        let path = NSTemporaryDirectory() + "beaconctl-walk-pacing-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(String(repeating: "\n", count: lines).utf8).write(to: URL(fileURLWithPath: path))
        return try await body(path)
    }

    @Test("a walk: a line of pacing, then one scan per spot, each opened afresh, told spot by spot")
    func walk() async throws {
        let clock = TestClock()
        let scans = ScriptedScans(clock: clock)
        let progress = Progress()
        let spots = try await Self.withPacing(lines: 2) { pacing in
            try await clock.advancing(by: CalibrationSampler.collectionTick) {
                try await Self.run.walk([1, 2], scans: scans, pacing: pacing, stops: NoStopRequests(), progress: progress)
            }
        }
        #expect(spots.count == 2)
        #expect(scans.opened.elements.count == 2)
        #expect(progress.told.elements == [
            .walk(spots: 2, seconds: 1, controller: "memory"),
            .waiting(index: 0, count: 2, distance: 1), .collected(0),
            .waiting(index: 1, count: 2, distance: 2), .collected(0),
        ])
    }

    @Test("a walk whose pacing ends before its last spot fails naming that spot, without scanning for it")
    func pacingEndsEarly() async throws {
        let clock = TestClock()
        let scans = ScriptedScans(clock: clock)
        let failure = try await Self.withPacing(lines: 1) { pacing -> LiveCalibrationError? in
            do {
                _ = try await clock.advancing(by: CalibrationSampler.collectionTick) {
                    try await Self.run.walk([1, 3], scans: scans, pacing: pacing, stops: NoStopRequests(), progress: Progress())
                }
                return nil
            } catch let error as LiveCalibrationError {
                return error
            }
        }
        guard case .pacingEnded(let index, let count, let distance) = failure else {
            Issue.record("expected the pacing's end, got \(String(describing: failure))")
            return
        }
        #expect(index == 1 && count == 2 && distance == 3)
        #expect(scans.opened.elements.count == 1)
    }
}
