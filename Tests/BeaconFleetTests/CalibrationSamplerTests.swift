import BeaconTestKit
import BeaconCore
import Testing
import VirtualRadio

@testable import BeaconFleet

@Suite("Calibrating measured power on the virtual radio", .timeLimit(.minutes(2)))
struct CalibrationSamplerTests {
    /// The scanner 1 m from a beacon advertising at 100 ms with 0 dBm for `seconds`; the
    /// sampler's view of it.
    func calibrate(seed: UInt64, sigma: Double, seconds: Double = 20, twin: Bool = false) async throws -> CalibrationSampler {
        let bench = VirtualAirBench(seed: seed, propagation: PropagationModel(shadowingSigma: sigma))
        let identity = VirtualAirBench.identity(7, 1)
        try await bench.addBeacon(identity, at: PlanPoint(x: 0, y: 0))
        // Another beacon close by, which the sampler must ignore.
        try await bench.addBeacon(VirtualAirBench.identity(7, 2), at: PlanPoint(x: 0, y: 0.5))
        if twin { try await bench.addBeacon(identity, at: PlanPoint(x: 3, y: 0)) }
        try await bench.startScanner(.fixed(PlanPoint(x: 1, y: 0)))
        var sampler = CalibrationSampler(identity: identity)
        let start = bench.now
        while bench.now - start < seconds {
            for sighting in try await bench.step(0.5) { sampler.add(sighting) }
        }
        await bench.close()
        return sampler
    }

    @Test(
        "20 s at 10 Hz: within 1 dB of the model's −41 dBm at 1 m, shadowing up to σ = 4 dB",
        arguments: [(1, 0.0), (2, 2.0), (3, 4.0), (4, 4.0), (5, 4.0), (6, 4.0)] as [(UInt64, Double)])
    func estimateIsWithinOneDecibel(seed: UInt64, sigma: Double) async throws {
        let sampler = try await calibrate(seed: seed, sigma: sigma)
        let estimate = try sampler.estimate(afterSeconds: 20)
        // The model's truth: 0 dBm TX − 41 dB reference loss at 1 m.
        let truth = RadioEnvironment().measuredPower(txPower: 0)
        #expect(abs(estimate.mean - truth) < 1, "mean \(estimate.mean) dBm from \(estimate.sampleCount) samples")
        #expect(estimate.sampleCount >= 150)
        #expect(estimate.warnings.isEmpty)
        #expect(estimate.confidenceHalfWidth < 1)
        #expect(sampler.transmitters.count == 1)
    }

    @Test("two devices sending the identity: refused, naming both addresses")
    func refusesTwoTransmitters() async throws {
        let sampler = try await calibrate(seed: 8, sigma: 2, seconds: 5, twin: true)
        let error = #expect(throws: CalibrationError.self) { try sampler.estimate(afterSeconds: 5) }
        guard case .severalTransmitters(_, let addresses) = error else {
            Issue.record("expected a refusal for several transmitters, got \(String(describing: error))")
            return
        }
        #expect(addresses.count == 2)
        #expect(error?.description.contains("is advertised by 2 devices") == true)
    }

    @Test("not heard, or heard without RSSI: an error that says what to check")
    func notHeard() {
        var sampler = CalibrationSampler(identity: VirtualAirBench.identity(1, 1))
        sampler.add(Sighting(
            advertisement: IBeaconAdvertisement(identity: VirtualAirBench.identity(1, 1), measuredPower: -59),
            address: BluetoothAddress("C0:00:00:00:00:01"), addressIsRandom: true, rssi: nil, time: 1, clock: .elapsed, receiver: "test"))
        let error = #expect(throws: CalibrationError.self) { try sampler.estimate(afterSeconds: 20) }
        #expect(error?.description == "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/1/1 was not heard with an RSSI in 20 s (1 report came without an RSSI): check that the beacon advertises and that the scanner is 1 m from it")
    }
}
