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
/// The real data is read from --real-data, else BEACONCTL_HERALD_DATA, else
/// ../shared/datasets/herald-edison beside the checkout (see `HeraldRecordings`).
///
/// Deterministic: the same data and seed give the same numbers on every machine.
let options = BenchmarkOptions.parseOrExit()

var failures: [String] = []
if !options.skipsRealData {
    var environment: [String: String] = [:]
    for name in [HeraldRecordings.environmentVariable, "CI"] {
        if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    let directory = HeraldRecordings.folder(given: options.realData, environment: environment)
    // Named on purpose (flag or variable), or in CI: the data is required. Only the default
    // folder of a developer's checkout may be missing, and then the benchmark says so.
    let required = options.realData != nil || environment[HeraldRecordings.environmentVariable] != nil || environment["CI"] == "true"
    if !HeraldRecordings.exists(directory) && !required {
        printError("ranging-benchmark: \(HeraldRecordings.missingAdvice(directory)); running the simulation only")
        if options.check { failures.append("the real data was not checked: \(HeraldRecordings.missingAdvice(directory))") }
    } else {
        let recordings: [DistanceRecording]
        do {
            recordings = try HeraldRecordings.load(directory: directory)
        } catch {
            printError("ranging-benchmark: \(error)")
            exit(2)
        }
        print("""
            ranging-benchmark, real data: \(recordings.count) recordings of phones hearing phones at known distances \
            (the Herald project's Edison robot, \(directory); see its README). Every estimator is calibrated at 1 m from \
            the recording it is judged on.

            """)
        for verdict in RealDataReport(recordings: recordings).run() { failures += verdict.failures }
    }
}

print("")
guard let simulationHolds = await SimulationReport(options: options).run() else { exit(3) }
if !simulationHolds { failures.append("the simulation: beaconctl with the walk profile is not the closest") }

/// One line on standard error.
func printError(_ message: String) {
    var text = message + "\n"
    text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
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

if options.check {
    guard failures.isEmpty else {
        print("ranging-benchmark: --check fails:")
        for failure in failures { print("  \(failure)") }
        exit(1)
    }
    print("ranging-benchmark: --check: every claim holds")
}
