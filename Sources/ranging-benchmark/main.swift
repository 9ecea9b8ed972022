#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BeaconCore
import BeaconFleet
import RangingEvaluation
import VirtualRadio

/// ranging-benchmark: how close does `BeaconRanger` get to the true distance, and how much
/// does its filtering gain over ranging on each raw reading?
///
///     swift run -c release ranging-benchmark [--sigma 4] [--seconds 60] [--trials 20] [--seed N]
///
/// Deterministic: the same seed gives the same numbers on every machine.
let options = BenchmarkOptions.parseOrExit()

var claimsHold = true
if let directory = options.realDataDirectory {
    let recordings: [DistanceRecording]
    do {
        recordings = try HeraldRecordings.load(directory: directory)
    } catch {
        print("ranging-benchmark: \(error)")
        exit(2)
    }
    print("""
        ranging-benchmark, real data: \(recordings.count) recordings of phones hearing phones at known distances \
        (the Herald project's Edison robot, \(directory); see its README). Every estimator is calibrated at 1 m from \
        the recording it is judged on.

        """)
    let results = RealDataReport(recordings: recordings).run()
    for result in results {
        if let ours = result.placeProfileMedian, let best = result.bestPeerMedian, ours > best { claimsHold = false }
    }
}

let model = PropagationModel(
    pathLossExponent: options.pathLossExponent, shadowingSigma: options.sigma, packetLoss: options.packetLoss)
let ranging = RangingConfiguration(distanceModel: PathLossModel(pathLossExponent: options.pathLossExponent))
let trial = RangingTrial(model: model, ranging: ranging, seconds: options.seconds)

print("""
    ranging-benchmark: BeaconRanger against ground truth on the virtual radio
    The full path: an advertising virtual controller (100 ms, 0 dBm, measured power −41 dBm) → the simulated air \
    (log-distance, n = \(format(options.pathLossExponent, 1)), shadowing σ = \(format(options.sigma, 1)) dB, packet loss \
    \(format(options.packetLoss * 100, 0)) %, 0–10 ms advDelay) → a scanning virtual controller → HCI reports in whole dBm \
    → a host controller → sightings; \(options.seconds) s of air time, \(options.trials) trials per distance, seed \(options.seed).
    Estimates are taken once a second after the \(format(ranging.filter.window, 0)) s filter window filled. "raw" ranges on \
    the newest single reading (the baseline); "filtered" is the ranger's trimmed running average.
    Proximity classes: immediate < \(format(ranging.thresholds.immediateBelow, 1)) m ≤ near < \
    \(format(ranging.thresholds.nearBelow, 1)) m ≤ far; at a class boundary about half of any estimator's answers fall on each side.

    """)
print(row(["distance", "filtered |error|", "filtered class", "raw |error|", "raw class", "estimates"]))
var generator = SeededGenerator(seed: options.seed)
for distance in options.distances {
    var filtered: [Double?] = []
    var raw: [Double?] = []
    for _ in 0..<options.trials {
        let estimates: RangingTrial.Estimates
        do {
            estimates = try await trial.run(distance: distance, seed: generator.next())
        } catch {
            print("ranging-benchmark: the virtual radio failed at \(format(distance, 1)) m: \(error)")
            exit(3)
        }
        filtered += estimates.filtered
        raw += estimates.raw
    }
    let filteredSummary = AccuracySummary(estimates: filtered, truth: distance, thresholds: ranging.thresholds)
    let rawSummary = AccuracySummary(estimates: raw, truth: distance, thresholds: ranging.thresholds)
    print(row([
        format(distance, 1) + " m",
        errorText(filteredSummary.medianAbsoluteError, truth: distance),
        format(filteredSummary.classAccuracy * 100, 0) + " %",
        errorText(rawSummary.medianAbsoluteError, truth: distance),
        format(rawSummary.classAccuracy * 100, 0) + " %",
        "\(filteredSummary.count)",
    ]))
}

/// `0.12 m (24 %)`: the median absolute error, and relative to the true distance.
func errorText(_ error: Double?, truth: Double) -> String {
    guard let error else { return "-" }
    return format(error, 2) + " m (" + format(error / truth * 100, 0) + " %)"
}

func row(_ cells: [String]) -> String {
    let widths = [9, 18, 15, 18, 10, 9]
    return zip(cells, widths).map { cell, width in
        String(repeating: " ", count: max(0, width - cell.count)) + cell
    }.joined(separator: "  ")
}

/// A number with `places` decimals, locale-free.
func format(_ value: Double, _ places: Int) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let units = Int64((abs(value) * scale).rounded())
    let sign = value < 0 && units != 0 ? "-" : ""
    let whole = units / Int64(scale)
    guard places > 0 else { return sign + "\(whole)" }
    let fraction = String(units % Int64(scale))
    return sign + "\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
}

if options.check && !claimsHold {
    print("ranging-benchmark: --check: on at least one place beaconctl's median error is larger than the best peer's")
    exit(1)
}
