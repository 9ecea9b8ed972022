import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import Testing

@testable import BeaconFleet

@Suite("Collecting calibration samples from a live scan on the test clock", .timeLimit(.minutes(1)))
struct LiveCalibrationTests {
    static let identity = BeaconIdentity(uuid: testUUID, major: 1, minor: 2)

    @Test("a scan whose controller goes away ends the collection with that failure, not with a partial sampler")
    func failedScanThrows() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        await #expect(throws: ScanError.self) {
            try await withScriptedScan(controller, clock: clock) { scan in
                let collecting = Task { try await CalibrationSampler.collect(Self.identity, from: scan, for: 60) }
                try await clock.sleepers(atLeast: 1)
                await controller.closeLink()
                return try await collecting.value
            }
        }
    }

    @Test("a silent air: the collection ends at its seconds on the scan's clock, with nothing heard")
    func endsOnTimeOnASilentAir() async throws {
        let clock = TestClock()
        let controller = legacyScanController()
        let sampler = try await withScriptedScan(controller, clock: clock) { scan in
            let collecting = Task { try await CalibrationSampler.collect(Self.identity, from: scan, for: 1) }
            // Four ticks of 250 ms: the last one is the deadline.
            for _ in 0..<4 {
                try await clock.sleepers(atLeast: 1)
                clock.advance(by: CalibrationSampler.collectionTick)
            }
            let sampler = try await collecting.value
            #expect(scan.elapsed() == 1)
            return sampler
        }
        #expect(sampler.transmitters.isEmpty)
    }
}
