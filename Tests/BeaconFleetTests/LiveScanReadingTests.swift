import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import Testing

@testable import BeaconFleet

@Suite("Reading a live scan through the one live loop, on the test clock", .timeLimit(.minutes(1)))
struct LiveScanReadingTests {
    /// What the reading handed out, in order, for the test to wait on.
    enum Handed: Equatable, Sendable {
        case sighting(minor: UInt16, at: Double)
        case tick(PassTime)
    }

    @Test("sightings with the scan's time, a tick every interval, and the end at the duration itself")
    func ticksSightingsAndDuration() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let handed = RecordedLog<Handed>()
        try await withScriptedScan(controller, clock: clock) { scan in
            let reading = Task {
                try await scan.read(until: .milliseconds(1200), every: .milliseconds(500)) { sighting, now in
                    handed.append(.sighting(minor: sighting.identity.minor, at: now))
                } tick: { now in
                    handed.append(.tick(now))
                }
            }
            try await controller.send(try testBeaconReport())
            _ = try await handed.wait(for: "the sighting") { $0.count == 1 }
            // 0.5, 1.0, then 1.2: the last wait is shortened to end on the duration.
            for _ in 0..<3 {
                try await clock.sleepers(atLeast: 1)
                clock.advance(to: try #require(clock.nextDeadline))
            }
            try await reading.value
        }
        #expect(handed.elements == [.sighting(minor: 2, at: 0), .tick(.seconds(0.5)), .tick(.seconds(1)), .tick(.seconds(1.2))])
    }

    @Test("a dropped link ends the reading with its error")
    func droppedLink() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        await #expect(throws: ScanError.self) {
            try await withScriptedScan(controller, clock: clock) { scan in
                let reading = Task {
                    try await scan.read(until: nil, every: .milliseconds(500)) { _, _ in } tick: { _ in }
                }
                try await clock.sleepers(atLeast: 1)
                controller.dropLink()
                try await reading.value
            }
        }
    }

    @Test("cancelled: CancellationError, and the scan is still stopped by its scope")
    func cancelled() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        try await withScriptedScan(controller, clock: clock) { scan in
            let reading = Task {
                try await scan.read(until: nil, every: .milliseconds(500)) { _, _ in } tick: { _ in }
            }
            try await clock.sleepers(atLeast: 1)
            reading.cancel()
            await #expect(throws: CancellationError.self) { try await reading.value }
        }
        try await controller.waitFor(.leSetScanEnable, count: 2)
        #expect(controller.parameters(of: .leSetScanEnable).last == [0x00, 0x00])
    }
}
