import BenchmarkSupport
import CYAML
import FleetManifest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one child process measured.
struct Measurement {
    /// CPU time of the measured work (user + system). Wall-clock time would also count
    /// the time other processes held the CPU, which on a shared machine swamps the
    /// difference being measured.
    var seconds: Double
    /// Peak resident set of the whole child process, in bytes.
    var peakBytes: Int
    /// Peak resident set before the measured work started (runtime plus the input bytes).
    var baselineBytes: Int
    var detail: String

    var line: String { "\(seconds) \(peakBytes) \(baselineBytes) \(detail)" }

    init(seconds: Double, peakBytes: Int, baselineBytes: Int, detail: String) {
        self.seconds = seconds
        self.peakBytes = peakBytes
        self.baselineBytes = baselineBytes
        self.detail = detail
    }

    init?(line: String) {
        let fields = line.split(separator: " ", maxSplits: 3)
        guard fields.count >= 3, let seconds = Double(fields[0]), let peak = Int(fields[1]),
            let baseline = Int(fields[2])
        else { return nil }
        self.init(seconds: seconds, peakBytes: peak, baselineBytes: baseline,
                  detail: fields.count > 3 ? String(fields[3]) : "")
    }
}

/// The measurements a child process runs: each in a fresh process, so peak memory is
/// that of one measurement and nothing else.
enum ChildMode: String, CaseIterable {
    /// libyaml alone: the event loop over the same bytes, nothing kept.
    case libyaml
    /// `ManifestLoader.load(sources:)` over the bytes in memory.
    case loadSources = "load-sources"
    /// `ManifestLoader.load(paths:)` reading the file itself.
    case loadPaths = "load-paths"

    func run(file: String) -> Measurement? {
        let clock = ProcessCPUClock()
        switch self {
        case .libyaml, .loadSources:
            guard let bytes = readFile(file) else { return nil }
            let baseline = peakResidentBytes()
            var detail = ""
            // The result outlives the clock: freeing it is not validation, and `fleet
            // validate` leaves it to the process's exit (KeptUntilExit).
            var kept: ManifestLoadResult?
            let elapsed = clock.measure {
                if self == .libyaml {
                    detail = "\(parseEvents(bytes)) events"
                } else {
                    let result = ManifestLoader.load(sources: [(file, bytes)])
                    detail = "\(result.fleet.beacons.count) beacons, \(result.errorCount) errors, \(result.warningCount) warnings"
                    kept = result
                }
            }
            withExtendedLifetime(kept) {}
            return Measurement(seconds: elapsed.seconds, peakBytes: peakResidentBytes(), baselineBytes: baseline, detail: detail)
        case .loadPaths:
            let baseline = peakResidentBytes()
            var detail = ""
            let elapsed = clock.measure {
                let result = ManifestLoader.load(paths: [file])
                detail = "\(result.fleet.beacons.count) beacons, \(result.errorCount) errors, \(result.warningCount) warnings"
            }
            return Measurement(seconds: elapsed.seconds, peakBytes: peakResidentBytes(), baselineBytes: baseline, detail: detail)
        }
    }
}

/// The baseline: every event of the document produced and freed, exactly as the loader's
/// parser is set up (UTF-8 input from memory), with nothing done with them.
func parseEvents(_ bytes: [UInt8]) -> Int {
    var parser = yaml_parser_t()
    var event = yaml_event_t()
    guard yaml_parser_initialize(&parser) != 0 else { return -1 }
    defer { yaml_parser_delete(&parser) }
    var count = 0
    bytes.withUnsafeBufferPointer { buffer in
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
        while yaml_parser_parse(&parser, &event) != 0 {
            let done = event.type == YAML_STREAM_END_EVENT
            yaml_event_delete(&event)
            count += 1
            if done { break }
        }
    }
    return count
}

/// This process's peak resident set, in bytes.
func peakResidentBytes() -> Int {
    ChildProcessMeasurement.peakResidentBytes()
}

/// Reads a whole file into an array sized once, so that the input costs its size in
/// memory and no more (a growing array would briefly hold two copies).
func readFile(_ path: String) -> [UInt8]? {
    guard let handle = fopen(path, "rb") else { return nil }
    defer { fclose(handle) }
    guard fseek(handle, 0, SEEK_END) == 0 else { return nil }
    let size = ftell(handle)
    guard size >= 0, fseek(handle, 0, SEEK_SET) == 0 else { return nil }
    var readCount = 0
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
        readCount = fread(buffer.baseAddress, 1, size, handle)
        initialized = readCount
    }
    return readCount == size ? bytes : nil
}

func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
    guard let handle = fopen(path, "wb") else { return false }
    defer { fclose(handle) }
    return bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) } == bytes.count
}

/// CPU time consumed by this process (it is single-threaded while measuring).
struct ProcessCPUClock {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU seconds spent in `work`.
    func measure(_ work: () -> Void) -> CPUSeconds {
        let start = now()
        work()
        return CPUSeconds(seconds: now() - start)
    }
}

struct CPUSeconds {
    var seconds: Double
}
