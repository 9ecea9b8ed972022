#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser

/// manifest-benchmark: how fast and how lean is manifest validation, next to libyaml
/// merely producing the events of the same bytes?
///
///     swift run -c release manifest-benchmark [--sizes 10000,100000,1000000] [--repeat 3] [--check]
///
/// Each measurement runs in a fresh child process (this executable, re-run with
/// `--child`), which reports the CPU time of the measured work and the process's peak
/// resident memory (`getrusage`).
struct BenchmarkOptions: ParsableArguments {
    @Option(
        name: .customLong("sizes"), parsing: .singleValue,
        help: ArgumentHelp("Beacon counts to measure, comma-separated.", valueName: "N,N,..."),
        transform: { text in text.split(separator: ",").map { Int($0) ?? 0 } })
    var sizeLists: [[Int]] = []

    @Option(name: .customLong("repeat"), help: "Rounds per measurement; the best CPU time is kept.")
    var repeats = 3

    @Flag(help: "Exit with status 1 when a target is missed (for CI).")
    var check = false

    var sizes: [Int] { sizeLists.last ?? [10_000, 100_000, 1_000_000] }

    func validate() throws {
        guard repeats > 0 else { throw ValidationError("--repeat needs a positive number of runs") }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--sizes takes positive beacon counts separated by commas")
        }
    }
}

/// The targets: validation within 2× of libyaml's bare event parse, and under 64 MB of
/// peak memory at 100 000 beacons.
let ratioTarget = 2.0
let memoryTarget = 64 << 20
let memoryTargetSize = 100_000

func megabytes(_ bytes: Int) -> String {
    let value = Double(bytes) / Double(1 << 20)
    return value < 10 ? String(Double(Int(value * 100)) / 100) : String(Double(Int(value * 10)) / 10)
}

func formatted(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let fraction = text[text.index(after: dot)...].count
        if fraction < decimals { text += String(repeating: "0", count: decimals - fraction) }
    }
    return text
}

func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

/// Best CPU time and highest peak of each mode over `repeats` rounds. The modes take
/// turns within a round, so that a burst of load on the machine hits them alike.
func measure(_ modes: [ChildMode], file: String, repeats: Int) -> [ChildMode: Measurement]? {
    var best: [ChildMode: Measurement] = [:]
    for _ in 0..<repeats {
        for mode in modes {
            guard let run = runChild(mode, file: file) else { return nil }
            if var current = best[mode] {
                current.seconds = min(current.seconds, run.seconds)
                current.peakBytes = max(current.peakBytes, run.peakBytes)
                best[mode] = current
            } else {
                best[mode] = run
            }
        }
    }
    return best
}

func runBenchmark(_ options: BenchmarkOptions) -> Int32 {
    let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var missed: [String] = []
    print("CPU time, best of \(options.repeats); peak resident memory of a process doing only that")
    print("beacons      bytes   libyaml   load(sources:)  ratio   peak RSS  (input+runtime)  load(paths:) peak RSS")
    for size in options.sizes {
        let path = "\(directory)/manifest-benchmark-\(getpid())-\(size).yaml"
        let bytes = ManifestGenerator(beaconCount: size).generate()
        guard writeFile(path, bytes) else {
            print("cannot write \(path)")
            return 2
        }
        defer { unlink(path) }
        guard let timed = measure([.libyaml, .loadSources], file: path, repeats: options.repeats),
            let events = timed[.libyaml], let sources = timed[.loadSources],
            let paths = measure([.loadPaths], file: path, repeats: 1)?[.loadPaths]
        else {
            print("a measurement failed for \(size) beacons")
            return 2
        }
        let ratio = sources.seconds / events.seconds
        print(
            padded(String(size), 7), padded(megabytes(bytes.count) + " MB", 10),
            padded(formatted(events.seconds, decimals: 3) + " s", 9),
            padded(formatted(sources.seconds, decimals: 3) + " s", 16),
            padded(formatted(ratio, decimals: 2) + "×", 6),
            padded(megabytes(sources.peakBytes) + " MB", 10),
            padded("(" + megabytes(sources.baselineBytes) + " MB)", 16),
            padded(megabytes(paths.peakBytes) + " MB", 22))
        print("        \(sources.detail)")
        if ratio > ratioTarget { missed.append("\(size) beacons: validation took \(formatted(ratio, decimals: 2))× libyaml's time (target \(ratioTarget)×)") }
        if size == memoryTargetSize && sources.peakBytes > memoryTarget {
            missed.append("\(size) beacons: peak memory \(megabytes(sources.peakBytes)) MB (target \(megabytes(memoryTarget)) MB)")
        }
    }
    print("targets: validation ≤ \(ratioTarget)× libyaml; peak RSS ≤ \(megabytes(memoryTarget)) MB at \(memoryTargetSize) beacons")
    for miss in missed { print("MISSED: \(miss)") }
    if !options.sizes.contains(memoryTargetSize) {
        print("not measured: the memory target needs a run with \(memoryTargetSize) beacons (--sizes \(memoryTargetSize))")
    }
    if missed.isEmpty { print(options.sizes.contains(memoryTargetSize) ? "all targets met" : "the targets measured were met") }
    return options.check && !missed.isEmpty ? 1 : 0
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--child" {
    guard arguments.count == 3, let mode = ChildMode(rawValue: arguments[1]), let measurement = mode.run(file: arguments[2]) else {
        exit(2)
    }
    print(measurement.line)
    exit(0)
}
exit(runBenchmark(BenchmarkOptions.parseOrExit()))
