import BeaconCore
import VirtualRadio

/// The simulated half of the benchmark: one virtual room (its spatial shadowing and
/// channel fading fixed by the seed), a calibration walk through it, then trials at spots
/// in random directions at each distance.
///
/// beaconctl is run without a profile (measured power only, the estimator's exponent) and
/// with the profile the walk fitted; "raw" ranges on the newest single reading with the
/// estimator's exponent (the baseline the filtering must beat).
struct SimulationReport {
    var options: BenchmarkOptions

    static let walkDistances = [0.5, 1, 2, 3, 5]
    static let walkSpotsPerDistance = 4
    static let walkSecondsPerSpot = 10.0

    var model: PropagationModel {
        PropagationModel(
            environment: RadioEnvironment(pathLoss: PathLossModel(pathLossExponent: options.airExponent)),
            shadowingSigma: options.sigma, packetLoss: options.packetLoss,
            spatialShadowing: options.spatialSigma > 0
                ? SpatialShadowing(sigma: options.spatialSigma, seed: options.seed ^ 0x5348_4144) : nil,
            channelFading: options.fadingK.map { ChannelFading(k: $0, seed: options.seed ^ 0x4641_4445) })
    }

    /// Prints the report; returns `false` when the virtual radio failed.
    func run() async -> Bool {
        let trial = RangingTrial(model: model, seconds: options.seconds)
        let base = RangingConfiguration(distanceModel: PathLossModel(pathLossExponent: options.pathLossExponent))
        print("""
            ranging-benchmark, simulation: BeaconRanger against ground truth on the virtual radio
            The full path: an advertising virtual controller (100 ms, 0 dBm, measured power −41 dBm) → the simulated air \
            (log-distance with n = \(format(options.airExponent, 1)); shadowing fixed at a spot σ = \(format(options.spatialSigma, 1)) dB \
            correlated over 1.5 m; \(options.fadingK.map { "Rician fading per advertising channel, K = \(format($0, 1))" } ?? "no channel fading"); \
            per-packet noise σ = \(format(options.sigma, 1)) dB; packet loss \(format(options.packetLoss * 100, 0)) %; 0–10 ms advDelay) \
            → a scanning virtual controller → HCI reports in whole dBm → a host controller → sightings.
            Each trial stands at another spot of the same room (a random direction at that distance) for \(options.seconds) s; \
            \(options.trials) trials per distance, seed \(options.seed). Estimates are taken once a second after the \
            \(format(base.filter.window, 0)) s filter window filled. The estimator assumes n = \(format(options.pathLossExponent, 1)).

            """)
        let walk: Result<RangingProfile, PathLossFit.Failure>
        do {
            walk = try await trial.walk(
                distances: Self.walkDistances, spotsPerDistance: Self.walkSpotsPerDistance,
                secondsPerSpot: Self.walkSecondsPerSpot, seed: options.seed &+ 1)
        } catch {
            print("ranging-benchmark: the virtual radio failed during the calibration walk: \(error)")
            return false
        }
        var configurations = [base]
        var names = ["no profile"]
        switch walk {
        case .success(let profile):
            configurations.append(base.applying(profile))
            names.append("walk profile")
            let spots = Self.walkDistances.map { format($0, 1) }.joined(separator: ", ")
            print("Calibration walk: \(Self.walkSpotsPerDistance) spots in different directions at each of \(spots) m, "
                + "\(format(Self.walkSecondsPerSpot, 0)) s each: "
                + "n = \(format(profile.pathLossExponent, 2)), offset \(format(profile.rssiOffset, 1)) dB, "
                + "RMS residual \(format(profile.rmsResidual, 1)) dB.")
        case .failure(let failure):
            print("Calibration walk: no profile (\(failure)); only the profile-less estimator is shown.")
        }
        print("")
        print(row(["distance"] + names.flatMap { ["\($0) |error|", "class"] } + ["raw |error|", "class", "estimates"]))
        var generator = SeededGenerator(seed: options.seed)
        for distance in options.distances {
            var perConfiguration: [[Double?]] = configurations.map { _ in [] }
            var raw: [Double?] = []
            for _ in 0..<options.trials {
                let angle = Double(generator.next() >> 11) / Double(1 << 53) * 2 * Double.pi
                let estimates: RangingTrial.Estimates
                do {
                    estimates = try await trial.run(
                        distance: distance, angle: angle, seed: generator.next(), configurations: configurations)
                } catch {
                    print("ranging-benchmark: the virtual radio failed at \(format(distance, 1)) m: \(error)")
                    return false
                }
                for index in configurations.indices { perConfiguration[index] += estimates.perConfiguration[index] }
                raw += estimates.raw
            }
            var cells = [format(distance, 1) + " m"]
            for estimates in perConfiguration {
                let summary = AccuracySummary(estimates: estimates, truth: distance, thresholds: base.thresholds)
                cells += [errorText(summary.medianAbsoluteError, truth: distance), format(summary.classAccuracy * 100, 0) + " %"]
            }
            let rawSummary = AccuracySummary(estimates: raw, truth: distance, thresholds: base.thresholds)
            cells += [
                errorText(rawSummary.medianAbsoluteError, truth: distance), format(rawSummary.classAccuracy * 100, 0) + " %",
                "\(rawSummary.count)",
            ]
            print(row(cells))
        }
        print("""

            Proximity classes: immediate < \(format(base.thresholds.immediateBelow, 1)) m ≤ near < \
            \(format(base.thresholds.nearBelow, 1)) m ≤ far; at a class boundary about half of any estimator's answers fall on each side.
            """)
        return true
    }

    /// `0.12 m (24 %)`: the median absolute error, and relative to the true distance.
    func errorText(_ error: Double?, truth: Double) -> String {
        guard let error else { return "-" }
        return format(error, 2) + " m (" + format(error / truth * 100, 0) + " %)"
    }

    func row(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            let width = index == 0 ? 9 : (index == cells.count - 1 ? 9 : (index % 2 == 1 ? 22 : 6))
            return String(repeating: " ", count: max(0, width - cell.count)) + cell
        }.joined(separator: "  ")
    }
}
