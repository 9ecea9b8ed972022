import BeaconCore
import HCI

/// Where recorded sightings come from: JSON lines (what `scan --format jsonl` writes) and
/// btsnoop, pcap and pcapng captures. `verify`, `scan` and `monitor --input` read through these.
public enum SightingSources {
    /// The sightings of JSON lines, lazily: one per non-blank line, an error naming the
    /// line at the first line that is not a sighting. A line without `"clock"` is on
    /// `defaultClock` (a recording's: the receiver's elapsed clock).
    public static func jsonLines<Lines: AsyncSequence>(
        _ lines: Lines, source: String, defaultClock: SightingClock = SightingJSONLines.recordingClock
    ) -> SightingJSONLineSequence<Lines> where Lines.Element == String {
        SightingJSONLineSequence(lines: lines, source: source, defaultClock: defaultClock) { Array($0.utf8) }
    }

    /// The sightings of a JSON-lines file (`-` for standard input), read as consumed.
    public static func jsonLines(
        path: String, defaultClock: SightingClock = SightingJSONLines.recordingClock
    ) -> SightingJSONLineSequence<SightingLineReader> {
        SightingJSONLineSequence(lines: SightingLineReader(path: path), source: displayName(path), defaultClock: defaultClock) { $0 }
    }

    /// The sightings of JSON-lines text held in memory.
    public static func jsonLines(
        text: String, source: String, defaultClock: SightingClock = SightingJSONLines.recordingClock
    ) throws(SightingStreamError) -> [Sighting] {
        var sightings: [Sighting] = []
        for (index, line) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let bytes = line.last == 0x0D ? line.dropLast() : line[...]
            if let sighting = try SightingJSONLines.decode(line: bytes, lineNumber: index + 1, source: source, defaultClock: defaultClock) {
                sightings.append(sighting)
            }
        }
        return sightings
    }

    /// Opens a recorded input (`-` for standard input), telling its format from its first
    /// bytes: the btsnoop, pcap or pcapng magic, else JSON lines; bytes that cannot start
    /// any of them (a zip archive, a compressed file) are an error naming them. Every
    /// format is read as consumed, in bounded memory. Waits for the first 8 bytes (or the
    /// end of the input): callers that must not wait for a silent pipe run it under their
    /// deadline; cancelling the task ends the wait.
    public static func open(path: String) async throws(SightingStreamError) -> SightingInput {
        let source = displayName(path)
        var lines = try SightingLineReader(path: path).makeReader()
        let prefix: [UInt8]
        do {
            prefix = try await lines.peek(BTSnoopFormat.magic.count)
        } catch is CancellationError {
            throw SightingStreamError(source: source, reason: "reading was interrupted before its format was known")
        } catch {
            throw SightingStreamError(source: source, reason: "cannot read it: \(error)")
        }
        if SightingCapture.looksLikeBTSnoop(prefix) {
            return .capture(SightingCaptureStream(bytes: lines, source: source))
        }
        if let format = PcapReader.format(ofPrefix: prefix) {
            return .capture(SightingCaptureStream(bytes: lines, source: source, format: .pcap(format)))
        }
        if let problem = notSightings(prefix) {
            throw SightingStreamError(source: source, reason: problem)
        }
        return .jsonLines(SightingJSONLineSequence(
            lines: SightingLineReader(resuming: lines), source: source, defaultClock: SightingJSONLines.recordingClock) { $0 })
    }

    /// Why `prefix` cannot start a sighting file, when it cannot: control bytes or bytes
    /// that begin no UTF-8 character, or the magic of a well-known file type. Anything
    /// textual is left to the JSON-lines reader, whose errors name the line and column.
    static func notSightings(_ prefix: [UInt8]) -> String? {
        let known: [(magic: [UInt8], kind: String)] = [
            ([0x50, 0x4B, 0x03, 0x04], "a zip archive"), ([0x50, 0x4B, 0x05, 0x06], "an empty zip archive"),
            ([0x1F, 0x8B], "gzip-compressed: decompress it first"), ([0x42, 0x5A, 0x68], "bzip2-compressed: decompress it first"),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A], "xz-compressed: decompress it first"),
            ([0x28, 0xB5, 0x2F, 0xFD], "zstd-compressed: decompress it first"),
            ([0x7F, 0x45, 0x4C, 0x46], "an ELF executable"), ([0x89, 0x50, 0x4E, 0x47], "a PNG image"),
            ([0xFF, 0xD8, 0xFF], "a JPEG image"), ([0x25, 0x50, 0x44, 0x46], "a PDF document"),
        ]
        let kind = known.first { prefix.starts(with: $0.magic) }?.kind
        let binary = prefix.contains { byte in
            (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F
                || byte == 0xC0 || byte == 0xC1 || byte >= 0xF5
        }
        guard kind != nil || binary else { return nil }
        let digits = Array("0123456789abcdef")
        let shown = prefix.prefix(4).map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: " ")
        return "not a sighting file: starts with bytes \(shown)\(kind.map { " (\($0)?)" } ?? ""); "
            + "expected JSON lines, btsnoop, pcap or pcapng"
    }

    /// `<stdin>` for `-`, the path otherwise.
    static func displayName(_ path: String) -> String {
        path == "-" ? "<stdin>" : path
    }
}

/// A recorded sighting input, as `SightingSources.open(path:)` found it.
public enum SightingInput: Sendable {
    case capture(SightingCaptureStream)
    case jsonLines(SightingJSONLineSequence<SightingLineReader>)
    /// What receivers publish to a broker, as it arrives (`BrokerSightingFeed`).
    case broker(BrokerSightings)

    /// The sightings, whichever the format.
    public var sightings: any AsyncSequence<Sighting, any Error> & Sendable {
        switch self {
        case .capture(let capture): capture
        case .jsonLines(let lines): lines
        case .broker(let sightings): sightings
        }
    }

    /// Whether the input arrives as it is heard (a broker), rather than being a recording
    /// that may be a file or a pipe.
    public var isLive: Bool {
        if case .broker = self { return true }
        return false
    }
}

/// Sightings decoded from a sequence of JSON lines, in order. Blank lines are skipped; the
/// first bad line ends the sequence with a `SightingStreamError` naming it.
public struct SightingJSONLineSequence<Lines: AsyncSequence>: AsyncSequence, SightingBatchSequence {
    public typealias Element = Sighting

    private let lines: Lines
    private let defaults: SightingJSONLines.Defaults
    private let bytes: @Sendable (Lines.Element) -> [UInt8]

    init(lines: Lines, source: String, defaultClock: SightingClock, bytes: @escaping @Sendable (Lines.Element) -> [UInt8]) {
        self.lines = lines
        self.defaults = SightingJSONLines.Defaults(receiver: source, clock: defaultClock)
        self.bytes = bytes
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator(), defaults: defaults, bytes: bytes)
    }

    package func makeBatchIterator() -> any SightingBatchIterator {
        makeAsyncIterator()
    }

    public struct AsyncIterator: AsyncIteratorProtocol, SightingBatchIterator {
        private var lines: Lines.AsyncIterator?
        /// A file or standard input: decoded a chunk of lines at a time, in place.
        private var file: SightingLineReader.AsyncIterator?
        /// The input's name (also the receiver of lines that name none) and clock.
        private let defaults: SightingJSONLines.Defaults
        private let bytes: @Sendable (Lines.Element) -> [UInt8]
        private var lineNumber = 0
        private var finished = false
        private var fast = SightingJSONFastDecoder()
        /// Sightings decoded ahead, handed out from `batchIndex`; an error found after them
        /// waits in `pendingFailure` until they are all out.
        private var batch: [Sighting] = []
        private var batchIndex = 0
        private var pendingFailure: SightingStreamError?

        init(lines: Lines.AsyncIterator, defaults: SightingJSONLines.Defaults, bytes: @escaping @Sendable (Lines.Element) -> [UInt8]) {
            if let file = lines as? SightingLineReader.AsyncIterator {
                self.file = file
            } else {
                self.lines = lines
            }
            self.defaults = defaults
            self.bytes = bytes
        }

        public mutating func next() async throws -> Sighting? {
            if batchIndex < batch.count {
                defer { batchIndex += 1 }
                return batch[batchIndex]
            }
            if file != nil {
                var taken: [Sighting] = []
                swap(&taken, &batch)
                batchIndex = 1
                guard try await nextBatch(into: &taken) else { return nil }
                swap(&taken, &batch)
                return batch[0]
            }
            guard !finished else { return nil }
            do {
                while let line = try await lines!.next() {
                    lineNumber += 1
                    if let sighting = try SightingJSONLines.decode(
                        line: bytes(line), lineNumber: lineNumber, source: defaults.receiver, defaultClock: defaults.clock) {
                        return sighting
                    }
                }
            } catch {
                finished = true
                throw error
            }
            finished = true
            return nil
        }

        package mutating func nextBatch(into sightings: inout [Sighting]) async throws -> Bool {
            sightings.removeAll(keepingCapacity: true)
            guard file != nil else {
                guard let sighting = try await next() else { return false }
                sightings.append(sighting)
                return true
            }
            while true {
                if let pendingFailure {
                    self.pendingFailure = nil
                    finished = true
                    throw pendingFailure
                }
                guard !finished else { return false }
                decodeBufferedLines(into: &sightings)
                if !sightings.isEmpty { return true }
                if pendingFailure != nil { continue }
                if file!.isDrained {
                    finished = true
                    return false
                }
                do {
                    try await file!.fillBuffer()
                } catch {
                    finished = true
                    throw error
                }
            }
        }

        /// Decodes every whole line buffered, up to the first bad one.
        private mutating func decodeBufferedLines(into sightings: inout [Sighting]) {
            var lineNumber = self.lineNumber
            var fast = self.fast
            var failure: SightingStreamError?
            let defaults = self.defaults
            file!.takeBufferedLines { line in
                lineNumber += 1
                do throws(SightingStreamError) {
                    if let sighting = try SightingJSONLines.decode(
                        line, lineNumber: lineNumber, source: defaults.receiver, defaults: defaults, fast: &fast) {
                        sightings.append(sighting)
                    }
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            self.lineNumber = lineNumber
            self.fast = fast
            pendingFailure = failure
        }
    }
}

extension SightingJSONLineSequence: Sendable where Lines: Sendable {}
