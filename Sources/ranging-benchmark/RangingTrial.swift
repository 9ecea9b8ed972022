import BeaconTestKit
import BeaconCore
import BeaconFleet
import RangingEvaluation
import VirtualRadio

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One beacon at a known distance from a scanner on the virtual radio: a virtual controller
/// advertising at 100 ms with 0 dBm, the simulated air (the propagation model: path loss,
/// spatial shadowing, per-channel fading, per-packet noise, packet loss, advDelay), a
/// scanning virtual controller reporting whole-dBm RSSI over HCI to a host controller.
/// Estimates are taken once a second of air time, after the filter window filled.
struct RangingTrial {
    /// Air time between looks at what the scanner heard: a sighting is stamped with the end
    /// of the step it arrived in, so this is the timing resolution of the ranger's input.
    static let step = 0.1

    var model: PropagationModel
    var seconds: Int

    /// The scanner `distance` metres from the beacon (at the origin), in direction `angle`
    /// (radians): another angle is another spot of the same room.
    static func spot(distance: Double, angle: Double) -> PlanPoint {
        PlanPoint(x: distance * cos(angle), y: distance * sin(angle))
    }

    /// Per estimator, the estimate at each evaluation instant (`nil`: none given); `raw`
    /// ranges on the newest single reading with `rawModel`.
    struct Estimates {
        var perEstimator: [[Double?]]
        var raw: [Double?] = []
    }

    /// `seconds` at one spot; every estimator is fed every reading of the beacon and asked
    /// once a second, from the slowest one's warm-up on, so all are judged at the same
    /// instants. Each estimator is told the beacon's advertised measured power (the model's
    /// truth at 1 m), as a beacon calibrated in the open would advertise.
    func run(distance: Double, angle: Double, seed: UInt64, estimators: [DistanceEstimator], rawModel: PathLossModel) async throws -> Estimates {
        let bench = VirtualAirBench(seed: seed, propagation: model)
        let identity = VirtualAirBench.identity(1, 1)
        try await bench.addBeacon(identity, at: PlanPoint(x: 0, y: 0))
        try await bench.startScanner(.fixed(Self.spot(distance: distance, angle: angle)))
        var states: [EstimatorState]?
        var estimates = Estimates(perEstimator: estimators.map { _ in [] })
        var newest: Sighting?
        var nextEvaluation = max(estimators.map(\.warmUp).max() ?? 10, 1).rounded(.up)
        let start = bench.now
        while bench.now - start < Double(seconds) {
            for sighting in try await bench.step(Self.step) where sighting.identity == identity {
                guard let rssi = sighting.rssi else { continue }
                if states == nil { states = estimators.map { $0.makeState(measuredPower: sighting.advertisement.measuredPower) } }
                for index in estimators.indices { states?[index].add(time: sighting.time, rssi: rssi) }
                newest = sighting
            }
            let elapsed = bench.now - start
            guard elapsed + 1e-9 >= nextEvaluation else { continue }
            nextEvaluation += 1
            for index in estimators.indices {
                estimates.perEstimator[index].append(states?[index].estimate(at: bench.now))
            }
            estimates.raw.append(newest.flatMap { sighting in
                sighting.rssi.flatMap {
                    rawModel.distance(rssi: Double($0), measuredPower: Double(sighting.advertisement.measuredPower))
                }
            })
        }
        await bench.close()
        return estimates
    }

    /// A calibration walk on the virtual radio, as `beaconctl calibrate --walk` advises it:
    /// at each distance, `spotsPerDistance` spots in different directions, `secondsPerSpot`
    /// of readings at each, one level per spot, fitted.
    func walk(distances: [Double], spotsPerDistance: Int, secondsPerSpot: Double, seed: UInt64) async throws -> Result<RangingProfile, PathLossFit.Failure> {
        var levels: [PathLossFit.Level] = []
        var measuredPower = 0.0
        var visit: UInt64 = 0
        for distance in distances {
            for spot in 0..<spotsPerDistance {
                // A bench per spot: the room is the propagation model (its fields are seeded
                // by the model), so every bench is the same room; only per-packet draws differ.
                visit += 1
                let bench = VirtualAirBench(seed: seed &+ visit, propagation: model)
                let identity = VirtualAirBench.identity(1, 1)
                try await bench.addBeacon(identity, at: PlanPoint(x: 0, y: 0))
                let angle = (Double(spot) + 0.5) / Double(spotsPerDistance) * 2 * Double.pi
                try await bench.startScanner(.fixed(Self.spot(distance: distance, angle: angle)))
                var readings: [Double] = []
                let start = bench.now
                while bench.now - start < secondsPerSpot {
                    for sighting in try await bench.step(Self.step) where sighting.identity == identity {
                        if let rssi = sighting.rssi { readings.append(Double(rssi)) }
                        measuredPower = Double(sighting.advertisement.measuredPower)
                    }
                }
                await bench.close()
                if let level = RSSIFilter.trimmedMean(readings, trimFraction: PathLossFit.levelTrimFraction) {
                    levels.append(PathLossFit.Level(distance: distance, rssi: level, sampleCount: readings.count))
                }
            }
        }
        do {
            let fit = try PathLossFit(levels: levels)
            return .success(RangingProfile(receiver: "virtual", fit: fit, referenceMeasuredPower: measuredPower, fittedAt: ""))
        } catch {
            return .failure(error)
        }
    }
}

/// What a list of estimates says about one true distance.
struct AccuracySummary {
    var medianAbsoluteError: Double?
    /// Estimates whose proximity class is the true one (no estimate counts as `unknown`).
    var rightClass: Int
    var count: Int

    init(estimates: [Double?], truth: Double, thresholds: ProximityThresholds) {
        let errors = estimates.compactMap { $0 }.map { abs($0 - truth) }.sorted()
        medianAbsoluteError = errors.isEmpty ? nil : (errors[(errors.count - 1) / 2] + errors[errors.count / 2]) / 2
        let trueClass = thresholds.classify(distance: truth)
        rightClass = estimates.filter { thresholds.classify(distance: $0) == trueClass }.count
        count = estimates.count
    }
}
