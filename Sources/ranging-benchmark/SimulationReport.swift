import BeaconCore
import RangingEvaluation
import VirtualRadio

/// The simulated half of the benchmark: several virtual rooms (each its own spatial
/// shadowing and channel fading, fixed by the seed), a calibration walk through each, then
/// trials at spots in random directions at each distance.
///
/// beaconctl is run without a profile (measured power only, the estimator's exponent) and
/// with the profile the room's walk fitted, beside the real-data half's peers and "raw":
/// the newest single reading with the estimator's exponent. One room is one draw of its
/// shadowing, and a walk of twenty spots in it can mislead; the verdict pools the rooms.
struct SimulationReport {
    var options: BenchmarkOptions

    static let walkDistances = [0.5, 1, 2, 3, 5]
    static let walkSpotsPerDistance = 4
    static let walkSecondsPerSpot = 10.0

    /// The air of room `room`: the same law everywhere, its own shadowing and fading.
    func model(room: Int) -> PropagationModel {
        let roomSeed = options.seed &+ UInt64(room) &* 0x9E37_79B9_7F4A_7C15
        return PropagationModel(
            environment: RadioEnvironment(pathLoss: PathLossModel(pathLossExponent: options.airExponent)),
            shadowingSigma: options.sigma, packetLoss: options.packetLoss,
            spatialShadowing: options.spatialSigma > 0
                ? SpatialShadowing(sigma: options.spatialSigma, seed: roomSeed ^ 0x5348_4144) : nil,
            channelFading: options.fadingK.map { ChannelFading(k: $0, seed: roomSeed ^ 0x4641_4445) })
    }

    /// Prints the report. Returns `nil` when the virtual radio failed, otherwise whether
    /// beaconctl with the walk profile was at least as close (median relative error over
    /// all rooms and distances) as the best of the others.
    func run() async -> Bool? {
        let base = RangingConfiguration(distanceModel: PathLossModel(pathLossExponent: options.pathLossExponent))
        print("""
            ranging-benchmark, simulation: BeaconRanger against ground truth on the virtual radio
            The full path: an advertising virtual controller (100 ms, 0 dBm, measured power −41 dBm) → the simulated air \
            (log-distance with n = \(format(options.airExponent, 1)); shadowing fixed at a spot σ = \(format(options.spatialSigma, 1)) dB \
            correlated over 1.5 m; \(options.fadingK.map { "Rician fading per advertising channel, K = \(format($0, 1))" } ?? "no channel fading"); \
            per-packet noise σ = \(format(options.sigma, 1)) dB; packet loss \(format(options.packetLoss * 100, 0)) %; 0–10 ms advDelay) \
            → a scanning virtual controller → HCI reports in whole dBm → a host controller → sightings.
            \(options.rooms) rooms; in each, a calibration walk (\(Self.walkSpotsPerDistance) spots in different directions at \
            each of \(Self.walkDistances.map { format($0, 1) }.joined(separator: ", ")) m, \(format(Self.walkSecondsPerSpot, 0)) s each), \
            then \(options.trials) trials per distance, each at another spot (a random direction at that distance) for \
            \(options.seconds) s; seed \(options.seed). Estimates are taken once a second from the slowest estimator's \
            window on (20 s); beaconctl without a profile assumes n = \(format(options.pathLossExponent, 1)).

            """)
        let peerNames = RealDataReport.peers.map(\.name)
        let names = ["beaconctl, no profile", "beaconctl, walk profile"] + peerNames + ["raw: newest single reading"]
        // Per estimator, per distance: every estimate of every room.
        var estimates = names.map { _ in options.distances.map { _ in [Double?]() } }
        var generator = SeededGenerator(seed: options.seed)
        for room in 0..<options.rooms {
            let trial = RangingTrial(model: model(room: room), seconds: options.seconds)
            let walk: Result<RangingProfile, PathLossFit.Failure>
            do {
                walk = try await trial.walk(
                    distances: Self.walkDistances, spotsPerDistance: Self.walkSpotsPerDistance,
                    secondsPerSpot: Self.walkSecondsPerSpot, seed: generator.next())
            } catch {
                print("ranging-benchmark: the virtual radio failed during the calibration walk of room \(room + 1): \(error)")
                return nil
            }
            let walkConfiguration: RangingConfiguration
            switch walk {
            case .success(let profile):
                walkConfiguration = base.applying(profile)
                print("Room \(room + 1): walk profile n = \(format(profile.pathLossExponent, 2)), offset \(format(profile.rssiOffset, 1)) dB, RMS residual \(format(profile.rmsResidual, 1)) dB")
            case .failure(let failure):
                // What `calibrate --walk` would do: no profile, so measured power alone.
                walkConfiguration = base
                print("Room \(room + 1): the walk gave no profile (\(failure)); ranged without one")
            }
            let estimators: [DistanceEstimator] = [
                .beaconctl(name: names[0], configuration: base), .beaconctl(name: names[1], configuration: walkConfiguration),
            ] + RealDataReport.peers
            for (column, distance) in options.distances.enumerated() {
                for _ in 0..<options.trials {
                    let angle = Double(generator.next() >> 11) / Double(1 << 53) * 2 * Double.pi
                    let trialEstimates: RangingTrial.Estimates
                    do {
                        trialEstimates = try await trial.run(
                            distance: distance, angle: angle, seed: generator.next(), estimators: estimators, rawModel: base.distanceModel)
                    } catch {
                        print("ranging-benchmark: the virtual radio failed at \(format(distance, 1)) m in room \(room + 1): \(error)")
                        return nil
                    }
                    for index in estimators.indices { estimates[index][column] += trialEstimates.perEstimator[index] }
                    estimates[names.count - 1][column] += trialEstimates.raw
                }
            }
        }

        print("")
        print("Median |error| per true distance, metres (relative), over all rooms; class right over all distances.")
        var rows: [[String]] = []
        var pooled: [Double?] = []
        for index in names.indices {
            var row = [names[index]]
            var relative: [Double] = []
            var right = 0
            var instants = 0
            for (column, distance) in options.distances.enumerated() {
                let summary = AccuracySummary(estimates: estimates[index][column], truth: distance, thresholds: base.thresholds)
                row.append(errorText(summary.medianAbsoluteError, truth: distance))
                relative += estimates[index][column].compactMap { $0.map { abs($0 - distance) / distance } }
                right += summary.rightClass
                instants += summary.count
            }
            let median = ErrorSummary.quantile(relative.sorted(), 0.5)
            pooled.append(median)
            row.append(median.map { format($0 * 100, 0) + " %" } ?? "-")
            row.append(instants == 0 ? "-" : format(Double(right) / Double(instants) * 100, 0) + " %")
            rows.append(row)
        }
        print(table(header: ["estimator"] + options.distances.map { format($0, 1) + " m" } + ["all: relative", "class right"], rows: rows))
        // Ours against the best of the others on the relative error pooled over distances
        // (in metres the farthest distance would decide alone).
        var walkProfileHolds = false
        if let best = names.indices.dropFirst(2).compactMap({ index in pooled[index].map { (index, $0) } }).min(by: { $0.1 < $1.1 }) {
            for index in 0..<2 {
                guard let ours = pooled[index] else { continue }
                if index == 1 { walkProfileHolds = ours <= best.1 }
                print("\(names[index]): median relative error \(format(ours * 100, 0)) %; the best other, \(names[best.0]), \(format(best.1 * 100, 0)) %: ratio \(format(ours / best.1, 2))")
            }
        }
        print("""

            Every estimator is told the advertised measured power (the model's mean at 1 m). Proximity classes: \
            immediate < \(format(base.thresholds.immediateBelow, 1)) m ≤ near < \(format(base.thresholds.nearBelow, 1)) m ≤ far; \
            at a class boundary about half of any estimator's answers fall on each side.
            """)
        return walkProfileHolds
    }

    /// `0.12 m (24 %)`: the median absolute error, and relative to the true distance.
    func errorText(_ error: Double?, truth: Double) -> String {
        guard let error else { return "-" }
        return format(error, 2) + " m (" + format(error / truth * 100, 0) + " %)"
    }

    func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return column == 0 ? row[column] + padding : padding + row[column]
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
