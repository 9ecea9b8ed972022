import BenchmarkSupport
import BeaconCore
import BeaconFleet
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child process measures: the verification pass `verify --input` runs, or the
/// baseline (the same bytes read line by line or record by record, nothing parsed).
enum IngestMode: String {
    case verify
    case baseline
    /// The sightings read and counted, not verified (to tell reading from judging).
    case read
    /// The recording replayed through the continuous audit (`verify --watch --input`).
    case watch
    /// The one-shot pass over a chain's recording (`verify --input` with a large manifest).
    case oneShot = "oneshot"
}

/// One child's answer, on one line of its standard output.
struct IngestMeasurement {
    var wallSeconds: Double
    var cpuSeconds: Double
    /// Peak resident set of the child (VmHWM), bytes.
    var peakBytes: Int
    /// Sightings (verify) or lines/records (baseline) read.
    var items: Int

    var line: String { "\(wallSeconds) \(cpuSeconds) \(peakBytes) \(items)" }

    init(wallSeconds: Double, cpuSeconds: Double, peakBytes: Int, items: Int) {
        self.wallSeconds = wallSeconds
        self.cpuSeconds = cpuSeconds
        self.peakBytes = peakBytes
        self.items = items
    }

    init?(line: String) {
        let fields = line.split(separator: " ")
        guard fields.count == 4, let wall = Double(fields[0]), let cpu = Double(fields[1]),
              let peak = Int(fields[2]), let items = Int(fields[3])
        else { return nil }
        self.init(wallSeconds: wall, cpuSeconds: cpu, peakBytes: peak, items: items)
    }

    var itemsPerSecond: Double { Double(items) / wallSeconds }
}

/// Runs in the child: the measurement named, over `path`; `size` is the number of stores
/// (watch) or beacons (oneshot) the recording holds.
func measure(_ mode: IngestMode, format: IngestFormat, path: String, size: Int = 0) async -> IngestMeasurement? {
    let clock = ContinuousClock()
    let cpuStart = cpuSeconds()
    let start = clock.now
    let items: Int
    switch mode {
    case .verify:
        guard let count = await verifyPass(path) else { return nil }
        items = count
    case .baseline:
        guard let count = walk(format, path: path) else { return nil }
        items = count
    case .watch:
        guard let count = await watchPass(path, stores: size) else { return nil }
        items = count
    case .oneShot:
        guard let count = await oneShotPass(path, beacons: size) else { return nil }
        items = count
    case .read:
        do {
            // Through the one loop every pass reads with, to a reducer that only counts.
            var counting = CountingReducer()
            _ = try await SightingRecording.open(path: path).pass(
                &counting, clocking: .replay(origin: .firstSighting), named: path, logger: Logger(label: "ingest"))
            items = counting.count
        } catch {
            return nil
        }
    }
    let wall = clock.now - start
    let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    return IngestMeasurement(wallSeconds: seconds, cpuSeconds: cpuSeconds() - cpuStart, peakBytes: peakResidentBytes(), items: items)
}

/// What `verify --input FILE` does with a regular file: open it (its format told by its
/// first bytes) and replay it through `BeaconVerifier` on its own clock, to its end.
private func verifyPass(_ path: String) async -> Int? {
    await replayedPass(path) { try IngestScenario.plan() }
}

/// The sightings a one-shot pass over the recording at `path` read (its format told by its
/// first bytes, replayed on its own clock, to its end), with the plan `plan` makes; `nil`
/// when it failed, said on standard error.
func replayedPass(_ path: String, plan: () throws -> VerificationPlan) async -> Int? {
    do {
        let verifier = BeaconVerifier(plan: try plan(), policy: VerificationPolicy(timeout: nil))
        let result: VerificationResult
        switch try await SightingRecording.open(path: path) {
        case .capture(let capture):
            result = try await verifier.run(capture, timing: .replay)
        case .jsonLines(let lines):
            result = try await verifier.run(lines, timing: .replay)
        case .broker(let sightings):
            result = try await verifier.run(sightings, timing: .replay)
        }
        return result.sightings + result.ignoredSightings
    } catch {
        FileHandleWriter.standardError("ingest-benchmark: \(path): \(error)\n")
        return nil
    }
}

/// The baseline: the file read in the same 64 KiB chunks, cut into lines (a newline
/// search) or records (their length fields followed), nothing else.
private func walk(_ format: IngestFormat, path: String) -> Int? {
    guard var file = ChunkedFile(path: path) else { return nil }
    var count = 0
    switch format {
    case .jsonLines:
        while let available = file.ensure(1) {
            if let newline = file.firstIndex(of: 0x0A) {
                file.skip(newline + 1)
                count += 1
            } else if file.ensure(available + 1) == nil {
                file.skip(available)
                count += 1
            }
        }
    case .btsnoop:
        guard file.ensure(16) != nil else { return nil }
        file.skip(16)
        while file.ensure(24) != nil {
            let length = Int(file.bigEndianUInt32(at: 4))
            guard file.ensure(24 + length) != nil else { break }
            file.skip(24 + length)
            count += 1
        }
    case .pcapng:
        while file.ensure(8) != nil {
            let type = file.littleEndianUInt32(at: 0)
            let length = Int(file.littleEndianUInt32(at: 4))
            guard length >= 12, file.ensure(length) != nil else { break }
            if type == 6 { count += 1 }
            file.skip(length)
        }
    }
    return count
}

/// A file read forwards 64 KiB at a time into a buffer that keeps the bytes not yet skipped.
private struct ChunkedFile {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init?(path: String) {
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
    }

    /// At least `count` bytes buffered: how many there are, or `nil` at the end of the file.
    mutating func ensure(_ count: Int) -> Int? {
        while buffer.count - start < count {
            if ended { return nil }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 {
                ended = true
                close(descriptor)
            } else {
                buffer += chunk[0..<count]
            }
        }
        return buffer.count - start
    }

    mutating func skip(_ count: Int) { start += count }

    func firstIndex(of byte: UInt8) -> Int? {
        buffer.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress, let found = memchr(base + start, Int32(byte), all.count - start) else { return nil }
            return base.advanced(by: start).distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    func bigEndianUInt32(at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(buffer[start + offset + $1]) }
    }

    func littleEndianUInt32(at offset: Int) -> UInt32 {
        (0..<4).reversed().reduce(0) { $0 << 8 | UInt32(buffer[start + offset + $1]) }
    }
}

/// CPU time of this process, both threads (the reading queue and the pass) included.
private func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// VmHWM of this process, in bytes: its peak resident set.
func peakResidentBytes() -> Int {
    ChildProcessMeasurement.peakResidentBytes()
}

enum FileHandleWriter {
    static func standardError(_ text: String) {
        var text = text
        text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// Runs this executable again as `--child MODE FORMAT FILE [SIZE]` and reads its one-line
/// answer: a fresh process per measurement, so that its peak memory is that measurement's alone.
func runChild(_ mode: IngestMode, format: IngestFormat, path: String, size: Int? = nil) -> IngestMeasurement? {
    let arguments = ["--child", mode.rawValue, format.rawValue, path] + (size.map { [String($0)] } ?? [])
    return ChildProcessMeasurement.run(arguments).flatMap(IngestMeasurement.init(line:))
}

/// Counts a pass's sightings, and does nothing else.
private struct CountingReducer: PassReducer {
    var count = 0

    mutating func take(_ input: PassInput) -> PassStep {
        if case .sighting = input { count += 1 }
        return .more
    }
}
