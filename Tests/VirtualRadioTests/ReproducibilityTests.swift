import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("Virtual air: a seed reproduces a run exactly", .timeLimit(.minutes(1)))
struct ReproducibilityTests {
    /// Three beacons (one legacy, two in extended sets) and a walking extended scanner on a
    /// lossy, shadowed air; returns the LE Meta events delivered, with their air times.
    /// `reverse` sends the beacons' commands in the opposite order, to show that the run
    /// depends on what happened on the air, not on how host tasks interleaved.
    func run(seed: UInt64, reverse: Bool = false) async throws -> [AirDelivery] {
        let model = PropagationModel(pathLossExponent: 2.5, shadowingSigma: 4, packetLoss: 0.1)
        let air = VirtualAir(name: "reproducible", configuration: .init(seed: seed, propagation: model))
        let legacy = await TestHost.at(0, 0, on: air)
        let extended = await TestHost.at(10, 5, on: air)
        let walk = try Walk(waypoints: [PlanPoint(x: -5, y: 0), PlanPoint(x: 15, y: 5)], speed: 1.2, loops: true)
        let scanner = await TestHost(on: air, VirtualControllerConfiguration(motion: .walking(walk)))
        air.startRecording()
        let startLegacy = {
            try await legacy.bringUp()
            try await legacy.advertiseLegacy(iBeaconData(minor: 1))
        }
        let startExtended = {
            try await extended.bringUp()
            _ = try await extended.advertiseExtended([iBeaconData(minor: 2), iBeaconData(minor: 3)], txPower: -8)
        }
        if reverse {
            try await startExtended()
            try await startLegacy()
        } else {
            try await startLegacy()
            try await startExtended()
        }
        try await scanner.bringUp()
        try await scanner.scanExtended(interval: 30, window: 20)
        air.advance(by: .seconds(20))
        return air.stopRecording().filter { $0.packet.body.first == HCIEventCode.leMeta.rawValue }
    }

    @Test("the same seed gives the same reports at the same times, whatever the command order")
    func sameSeedSameRun() async throws {
        let first = try await run(seed: 42)
        let second = try await run(seed: 42, reverse: true)
        #expect(first.count > 250)
        #expect(first == second)
    }

    @Test("another seed gives another run")
    func otherSeedOtherRun() async throws {
        let first = try await run(seed: 42)
        let other = try await run(seed: 43)
        #expect(first != other)
        #expect(first.map(\.time) != other.map(\.time))
    }
}
