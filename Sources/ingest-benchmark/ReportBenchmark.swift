import BenchmarkSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--reports`: the one-shot audit of a chain, the whole command in each report format.
///
///     swift run -c release ingest-benchmark --reports [--beacons 100000] [--runs 3] [--beaconctl PATH] [--keep DIR] [--check]
///
/// Writes the manifest of WatchScenario's chain (FloodFleet.manifest: 20 beacons a store)
/// and 10 s of its recording, every beacon but the last heard by one receiver (`chain`), so
/// that the pass reads the whole file and ends with one beacon missing; then runs the
/// release-built `beaconctl verify MANIFEST --input FILE` in a fresh process per format,
/// standard output into a file, and reports its wall time, its peak resident set
/// (`ru_maxrss` from `wait4`) and the size of its report.
struct ReportBenchmarkOptions {
    var beacons = 100_000
    var runs = 3
    var beaconctl: String?
    var keep: String?
    var check = false

    static let usage = """
        usage: ingest-benchmark --reports [--beacons N] [--runs N] [--beaconctl PATH] [--keep DIR] [--check]
          --beacons    beacons in the manifest (default 100000; a multiple of 20), heard 10 s each but the last
          --runs       measurements of each format, the fastest kept with the highest peak (default 3)
          --beaconctl  the command measured (default: beaconctl beside this benchmark)
          --keep DIR   write the manifest, the recording and the reports into DIR and leave them there
          --check      exit with status 1 when a target is missed
        """

    static func parse(_ arguments: ArraySlice<String>) -> ReportBenchmarkOptions? {
        var options = ReportBenchmarkOptions()
        var rest = arguments
        while let argument = rest.popFirst() {
            switch argument {
            case "--beacons":
                guard let text = rest.popFirst(), let beacons = Int(text), beacons >= 20, beacons <= 1_000_000,
                      beacons % WatchScenario.beaconsPerStore == 0
                else { return nil }
                options.beacons = beacons
            case "--runs":
                guard let text = rest.popFirst(), let runs = Int(text), (1...20).contains(runs) else { return nil }
                options.runs = runs
            case "--beaconctl":
                guard let path = rest.popFirst() else { return nil }
                options.beaconctl = path
            case "--keep":
                guard let folder = rest.popFirst() else { return nil }
                options.keep = folder
            case "--check":
                options.check = true
            default:
                return nil
            }
        }
        return options
    }
}

/// The targets: every format within these factors of the text report's time and peak,
/// and every peak (all four reports at once included) under `peakBytes` at 100,000 beacons.
enum ReportTargets {
    static let timeFactor = 1.5
    static let peakFactor = 1.25
    static let referenceBeacons = 100_000
    static let peakBytes = 160 * 1_048_576
}

/// One way of running the pass: its arguments after the manifest and the input, and the
/// report files it writes (standard output is always kept in `NAME.out`). Its report size
/// is that of the files, with standard output's when `measuresOutput` (the text report of a
/// `--report` run is not what it measures).
private struct ReportRun {
    var name: String
    var arguments: [String]
    var files: [String]
    var measuresOutput = true
    /// Held to the targets (a format); the run writing all four at once is shown, not held.
    var isFormat = true
}

func runReportBenchmark(_ options: ReportBenchmarkOptions) async -> Int32 {
    let beaconctl = options.beaconctl ?? siblingExecutable("beaconctl")
    guard access(beaconctl, X_OK) == 0 else {
        print("ingest-benchmark: no beaconctl at \(beaconctl): swift build -c release --product beaconctl, or --beaconctl PATH")
        return 2
    }
    guard let folder = inputFolder(Options(keep: options.keep)) else { return 2 }
    let stores = options.beacons / WatchScenario.beaconsPerStore
    let manifest = "\(folder)/chain.yaml"
    let recording = "\(folder)/chain.jsonl"
    guard writeText(FloodFleet.manifest(stores: stores), to: manifest),
          let sightings = WatchScenario.write(stores: stores, seconds: 10, receiver: "chain", unheard: 1, to: recording)
    else {
        print("ingest-benchmark: cannot write the manifest and the recording into \(folder)")
        return 2
    }
    let runs = [
        ReportRun(name: "text", arguments: [], files: []),
        ReportRun(name: "junit", arguments: ["--report", "\(folder)/audit.xml"], files: ["\(folder)/audit.xml"], measuresOutput: false),
        ReportRun(name: "markdown", arguments: ["--report", "\(folder)/audit.md"], files: ["\(folder)/audit.md"], measuresOutput: false),
        ReportRun(name: "json", arguments: ["--format", "json"], files: []),
        ReportRun(
            name: "all four", arguments: ["--format", "json", "--report", "\(folder)/all.xml", "--report", "\(folder)/all.md", "--report", "\(folder)/all.txt"],
            files: ["\(folder)/all.xml", "\(folder)/all.md", "\(folder)/all.txt"], isFormat: false),
    ]
    print("ingest-benchmark --reports: \(beaconctl) verify MANIFEST --input FILE, the whole process per format:")
    print("\(options.beacons) beacons (\(stores) stores), \(sightings) sightings of one receiver in 10 s, the last beacon never heard;")
    print("peak memory is the process's ru_maxrss; each the fastest of \(options.runs) runs with the highest peak\n")
    let header = ["format", "time", "peak", "report", "× text time", "× text peak"]
    let widths = [10, 9, 10, 11, 12, 12]
    print(zip(header, widths).map { padded($0, $1) }.joined(separator: " "))
    var missed: [String] = []
    var text: (seconds: Double, peak: Int)?
    for run in runs {
        let output = "\(folder)/\(run.name.replacingSpaces).out"
        var best: (seconds: Double, peak: Int)?
        for _ in 0..<options.runs {
            guard let measured = await measureCommand(beaconctl, ["verify", manifest, "--input", recording] + run.arguments, output: output, errors: "\(folder)/errors.txt")
            else {
                print("ingest-benchmark: \(run.name): beaconctl failed (see \(folder)/errors.txt with --keep)")
                return 2
            }
            best = (min(best?.seconds ?? .infinity, measured.seconds), max(best?.peak ?? 0, measured.peak))
        }
        guard let best else { return 2 }
        if text == nil { text = best }
        let reportBytes = ((run.measuresOutput ? [output] : []) + run.files).reduce(0) { $0 + fileSize($1) }
        let row = [
            run.name, formatted(best.seconds, decimals: 2) + " s", megabytes(best.peak) + " MB", megabytes(reportBytes) + " MB",
            formatted(best.seconds / (text?.seconds ?? best.seconds), decimals: 2) + "×",
            formatted(Double(best.peak) / Double(text?.peak ?? best.peak), decimals: 2) + "×",
        ]
        print(zip(row, widths).map { padded($0, $1) }.joined(separator: " "))
        if run.isFormat, let text, best.seconds > text.seconds * ReportTargets.timeFactor {
            missed.append("\(run.name): \(formatted(best.seconds, decimals: 2)) s, over \(formatted(ReportTargets.timeFactor, decimals: 2))× the text report's")
        }
        if run.isFormat, let text, Double(best.peak) > Double(text.peak) * ReportTargets.peakFactor {
            missed.append("\(run.name): peak \(megabytes(best.peak)) MB, over \(formatted(ReportTargets.peakFactor, decimals: 2))× the text report's")
        }
        if options.beacons >= ReportTargets.referenceBeacons, best.peak >= ReportTargets.peakBytes {
            missed.append("\(run.name): peak \(megabytes(best.peak)) MB (target under \(megabytes(ReportTargets.peakBytes)) MB)")
        }
        if options.keep == nil {
            for file in [output] + run.files { unlink(file) }
        }
    }
    if options.keep == nil {
        for file in [manifest, recording, "\(folder)/errors.txt"] { unlink(file) }
        rmdir(folder)
    }
    print("\ntargets: every format within \(formatted(ReportTargets.timeFactor, decimals: 2))× the text report's time and "
        + "\(formatted(ReportTargets.peakFactor, decimals: 2))× its peak; at \(ReportTargets.referenceBeacons) beacons every peak under \(megabytes(ReportTargets.peakBytes)) MB")
    for miss in missed { print("MISSED: \(miss)") }
    if missed.isEmpty { print("all targets met") }
    return options.check && !missed.isEmpty ? 1 : 0
}

/// Runs `executable` to its end: its wall time and peak resident set, or `nil` when it
/// could not start or ended otherwise than with a report (status 0, or 1 for findings).
private func measureCommand(_ executable: String, _ arguments: [String], output: String, errors: String) async -> (seconds: Double, peak: Int)? {
    let start = ContinuousClock.now
    guard let child = BenchmarkChild(executable, arguments, output: output, errors: errors) else { return nil }
    guard await child.waitForExit(within: .seconds(600)) != nil else {
        await child.stop()
        return nil
    }
    let seconds = FloodTime.seconds(ContinuousClock.now - start)
    guard let status = child.exitStatus, status == 0 || status == 1 else { return nil }
    return (seconds, child.peakBytes)
}

private func fileSize(_ path: String) -> Int {
    var status = stat()
    return stat(path, &status) == 0 ? Int(status.st_size) : 0
}

extension String {
    fileprivate var replacingSpaces: String { split(separator: " ").joined(separator: "-") }
}
