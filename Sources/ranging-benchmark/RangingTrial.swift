import BeaconTestKit
import BeaconCore
import BeaconFleet
import VirtualRadio

/// One beacon at a known distance from a scanner on the virtual radio: a virtual controller
/// advertising at 100 ms with 0 dBm, the simulated air (the propagation model: path loss,
/// shadowing, packet loss, advDelay), a scanning virtual controller reporting whole-dBm RSSI
/// over HCI to a host controller. The ranger's estimate and the newest raw reading's
/// estimate are taken once a second of air time, after the filter window filled.
struct RangingTrial {
    /// Air time between looks at what the scanner heard: a sighting is stamped with the end
    /// of the step it arrived in, so this is the timing resolution of the ranger's input.
    static let step = 0.1

    var model: PropagationModel
    var ranging: RangingConfiguration
    var seconds: Int

    /// Estimates, paired with the true distance, per evaluation instant.
    struct Estimates {
        var filtered: [Double?] = []
        var raw: [Double?] = []
    }

    func run(distance: Double, seed: UInt64) async throws -> Estimates {
        let bench = VirtualAirBench(seed: seed, propagation: model)
        let identity = VirtualAirBench.identity(1, 1)
        try await bench.addBeacon(identity, at: PlanPoint(x: 0, y: 0))
        try await bench.startScanner(.fixed(PlanPoint(x: distance, y: 0)))
        var ranger = BeaconRanger(configuration: ranging)
        var estimates = Estimates()
        var newest: Sighting?
        var nextEvaluation = ranging.filter.window.rounded(.up)
        let start = bench.now
        while bench.now - start < Double(seconds) {
            for sighting in try await bench.step(Self.step) where sighting.identity == identity {
                ranger.add(sighting)
                newest = sighting
            }
            let elapsed = bench.now - start
            guard elapsed + 1e-9 >= nextEvaluation else { continue }
            nextEvaluation += 1
            estimates.filtered.append(ranger.snapshot(at: bench.now).first?.accuracy)
            estimates.raw.append(newest.flatMap { sighting in
                sighting.rssi.flatMap {
                    ranging.distanceModel.distance(
                        rssi: Double($0), measuredPower: Double(sighting.advertisement.measuredPower))
                }
            })
        }
        await bench.close()
        return estimates
    }
}

/// What a list of estimates says about one true distance.
struct AccuracySummary {
    var medianAbsoluteError: Double?
    var classAccuracy: Double
    var count: Int

    init(estimates: [Double?], truth: Double, thresholds: ProximityThresholds) {
        let known = estimates.compactMap { $0 }
        let errors = known.map { abs($0 - truth) }.sorted()
        medianAbsoluteError = errors.isEmpty ? nil : (errors[(errors.count - 1) / 2] + errors[errors.count / 2]) / 2
        let trueClass = thresholds.classify(distance: truth)
        let correct = estimates.filter { thresholds.classify(distance: $0) == trueClass }.count
        classAccuracy = estimates.isEmpty ? 0 : Double(correct) / Double(estimates.count)
        count = estimates.count
    }
}
