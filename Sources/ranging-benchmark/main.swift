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

/// ranging-benchmark: how close does `BeaconRanger` get to the true distance, on public
/// recordings of real phones (ranked beside the peers' estimators) and on the virtual radio?
///
///     swift run -c release ranging-benchmark [--real-data DIR|none] [--check] [--trials 20] [--seed N]
///
/// Deterministic: the same data and seed give the same numbers on every machine.
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

print("")
guard let simulationHolds = await SimulationReport(options: options).run() else { exit(3) }
if !simulationHolds { claimsHold = false }

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
    print("ranging-benchmark: --check: beaconctl's median error is larger than the best peer's on a place of the real data, or with the walk profile in the simulation")
    exit(1)
}
