#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ingest-benchmark: how fast do recordings go through `verify --input`?
///
///     swift run -c release ingest-benchmark [--sizes 100000,1000000] [--with-10m] [--keep DIR]
///
/// For each size and format (JSON lines, btsnoop, pcapng) it writes a recording of that many
/// sightings into a temporary folder, then measures in a fresh child process each:
/// - verify: the file opened and replayed through `BeaconVerifier` exactly as
///   `beaconctl verify --input FILE` does (format told by content, streamed, every
///   sighting judged);
/// - baseline: the same bytes read in the same 64 KiB chunks and cut into lines or records,
///   nothing parsed: what reading alone costs.
/// Rates are per second of wall time; peak memory is the child's VmHWM.
/// `--child read FORMAT FILE` alone reads the sightings without verifying them (to tell
/// reading from judging when profiling).
///
///     swift run -c release ingest-benchmark --watch [--stores 100,1000,10000] [--oneshot-beacons 100000] [--check]
///
/// `--watch` measures `verify --watch` instead (WatchScenario): for each number of stores, a
/// recording of the chain's 60 s replayed through the continuous audit, against reading the
/// same file's sightings without auditing them; then the one-shot pass over a recording of
/// `--oneshot-beacons` beacons. The cost of a sighting must not grow with the fleet.

///     swift run -c release ingest-benchmark --broker-flood [--beacons 20000] [--rate 1,2,4] [--seconds 30] [--expect-lossless]
///
/// `--broker-flood` measures the watch live (BrokerFlood.swift): a chain's boxes publishing
/// through a Mosquitto of its own into the release-built `beaconctl verify --watch --input
/// mqtt://…`: sightings published against read, false `missing`, SIGTERM to exit.

///     swift run -c release ingest-benchmark --reports [--beacons 100000] [--runs 3]
///
/// `--reports` measures the one-shot audit of a chain whole (ReportBenchmark.swift): the
/// release-built `beaconctl verify MANIFEST --input FILE` in each report format, its time,
/// peak memory and report size.

/// The targets, in sightings per second of wall time through the verification path.
let targets: [IngestFormat: Double] = [.jsonLines: 1_000_000, .btsnoop: 2_000_000, .pcapng: 2_000_000]

func formatted(_ value: Double, decimals: Int = 0) -> String {
    var scaled = Int((value * pow(10, Double(decimals))).rounded())
    let negative = scaled < 0
    scaled = abs(scaled)
    var text = String(scaled)
    if decimals > 0 {
        while text.count <= decimals { text = "0" + text }
        text.insert(".", at: text.index(text.endIndex, offsetBy: -decimals))
    }
    return (negative ? "-" : "") + text
}

func padded(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

func megabytes(_ bytes: Int) -> String { formatted(Double(bytes) / 1_048_576, decimals: 1) }

struct Options {
    var sizes = [100_000, 1_000_000]
    var keep: String?
    var check = false
    var watch = false
    var stores = [100, 1_000, 10_000]
    var oneShotBeacons = 100_000
    var runs = 3

    static let usage = """
        usage: ingest-benchmark [--sizes N,N,...] [--with-10m] [--keep DIR] [--check]
               ingest-benchmark --watch [--stores N,N,...] [--oneshot-beacons N] [--runs N] [--keep DIR] [--check]
          --sizes     sightings per input (default 100000,1000000)
          --with-10m  add 10000000 (about 2 GB of JSON lines and a few minutes)
          --keep DIR  write the inputs into DIR and leave them there
          --check     exit with status 1 when a target is missed
          --watch     measure verify --watch on a chain's recording instead (20 beacons a store, 60 s)
          --stores    stores per recording (default 100,1000,10000; 10000 is 12 M sightings, 2.6 GB)
          --oneshot-beacons  beacons in the one-shot pass's recording (default 100000; 0 leaves it out)
          --runs      measurements of each watch figure, the fastest kept (default 3)
        """

    static func parse(_ arguments: [String]) -> Options? {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--sizes":
                guard let list = rest.popFirst() else { return nil }
                let sizes = list.split(separator: ",").compactMap { Int($0) }
                guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 && $0 <= 100_000_000 }) else { return nil }
                options.sizes = sizes
            case "--with-10m":
                if !options.sizes.contains(10_000_000) { options.sizes.append(10_000_000) }
            case "--keep":
                guard let folder = rest.popFirst() else { return nil }
                options.keep = folder
            case "--check":
                options.check = true
            case "--watch":
                options.watch = true
            case "--stores":
                guard let list = rest.popFirst() else { return nil }
                let stores = list.split(separator: ",").compactMap { Int($0) }
                // Majors number the stores: at most 65,535 of them.
                guard !stores.isEmpty, stores.allSatisfy({ $0 > 0 && $0 <= 65_535 }) else { return nil }
                options.stores = stores
            case "--runs":
                guard let text = rest.popFirst(), let runs = Int(text), (1...20).contains(runs) else { return nil }
                options.runs = runs
            case "--oneshot-beacons":
                guard let text = rest.popFirst(), let beacons = Int(text), beacons >= 0, beacons <= 1_000_000 else { return nil }
                options.oneShotBeacons = beacons
            default:
                return nil
            }
        }
        return options
    }
}

/// A folder for the inputs: `--keep`'s, or a fresh temporary one.
func inputFolder(_ options: Options) -> String? {
    let folder: String
    if let keep = options.keep {
        mkdir(keep, 0o755)
        folder = keep
    } else {
        var template = Array("/tmp/ingest-benchmark-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            print("ingest-benchmark: cannot make a temporary folder")
            return nil
        }
        folder = String(cString: made)
    }
    return folder
}

func runBenchmark(_ options: Options) -> Int32 {
    guard let folder = inputFolder(options) else { return 2 }
    print("ingest-benchmark: sightings through verify --input's path, against reading the same bytes unparsed")
    print("rates per second of wall time; peak memory is each child process's VmHWM\n")
    let header = ["format", "sightings", "file", "verify", "sightings/s", "peak", "baseline", "items/s", "peak", "× baseline"]
    let widths = [8, 10, 10, 9, 12, 9, 9, 12, 9, 11]
    print(zip(header, widths).map { padded($0, $1) }.joined(separator: " "))
    var missed: [String] = []
    for size in options.sizes {
        for format in IngestFormat.allCases {
            let path = "\(folder)/\(size).\(format.fileExtension)"
            guard writeInput(format, count: size, to: path) else {
                print("ingest-benchmark: cannot write \(path)")
                return 2
            }
            var status = stat()
            stat(path, &status)
            defer { if options.keep == nil { unlink(path) } }
            guard let verify = runChild(.verify, format: format, path: path),
                  let baseline = runChild(.baseline, format: format, path: path)
            else {
                print("ingest-benchmark: a measurement of \(path) failed")
                return 2
            }
            let row = [
                format.rawValue, String(size), megabytes(Int(status.st_size)) + " MB",
                formatted(verify.wallSeconds, decimals: 3) + " s", formatted(verify.itemsPerSecond),
                megabytes(verify.peakBytes) + " MB", formatted(baseline.wallSeconds, decimals: 3) + " s",
                formatted(baseline.itemsPerSecond), megabytes(baseline.peakBytes) + " MB",
                formatted(verify.wallSeconds / baseline.wallSeconds, decimals: 1) + "×",
            ]
            print(zip(row, widths).map { padded($0, $1) }.joined(separator: " "))
            if verify.items != size {
                missed.append("\(format.rawValue) \(size): the pass read \(verify.items) sightings")
            }
            if let target = targets[format], verify.itemsPerSecond < target {
                missed.append("\(format.rawValue) \(size): \(formatted(verify.itemsPerSecond)) sightings/s (target \(formatted(target)))")
            }
        }
    }
    if options.keep == nil { rmdir(folder) }
    print("\ntargets: JSON lines ≥ 1,000,000 sightings/s; btsnoop and pcapng ≥ 2,000,000 reports/s")
    for miss in missed { print("MISSED: \(miss)") }
    if missed.isEmpty { print("all targets met") }
    return options.check && !missed.isEmpty ? 1 : 0
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--child" {
    guard arguments.count == 4 || arguments.count == 5, let mode = IngestMode(rawValue: arguments[1]),
          let format = IngestFormat(rawValue: arguments[2]),
          let measurement = await measure(mode, format: format, path: arguments[3], size: arguments.count == 5 ? Int(arguments[4]) ?? 0 : 0)
    else { exit(2) }
    print(measurement.line)
    exit(0)
}
if arguments.first == "--reports" {
    guard let options = ReportBenchmarkOptions.parse(arguments.dropFirst()) else {
        print(ReportBenchmarkOptions.usage)
        exit(2)
    }
    exit(await runReportBenchmark(options))
}
if arguments.first == "--broker-flood" {
    guard let options = FloodOptions.parse(arguments.dropFirst()) else {
        print(FloodOptions.usage)
        exit(2)
    }
    exit(await runBrokerFlood(options))
}
guard let options = Options.parse(arguments) else {
    print(Options.usage)
    exit(2)
}
exit(options.watch ? runWatchBenchmark(options) : runBenchmark(options))
