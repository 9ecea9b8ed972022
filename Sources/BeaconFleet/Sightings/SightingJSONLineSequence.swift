import BeaconCore

/// Sightings decoded from a sequence of JSON lines, in order. Blank lines are skipped; the
/// first bad line ends the sequence with a `SightingStreamError` naming it.
public struct SightingJSONLineSequence<Lines: AsyncSequence>: AsyncSequence, SightingBatchSequence {
    public typealias Element = Sighting

    private let lines: Lines
    private let defaults: SightingJSONLines.Defaults
    private let bytes: @Sendable (Lines.Element) -> [UInt8]
    /// Says once when the first line looks like Unix time left unmarked
    /// (`UndeclaredUnixTimeHint`); only for inputs whose default clock is elapsed.
    public let undeclaredUnixTime = UndeclaredUnixTimeHint()
    /// The readings of its telemetry lines (docs/sightings.md), put as they are read.
    public let telemetry = TelemetryInbox()

    init(lines: Lines, source: String, defaultClock: SightingClock, bytes: @escaping @Sendable (Lines.Element) -> [UInt8]) {
        self.lines = lines
        self.defaults = SightingJSONLines.Defaults(receiver: source, clock: defaultClock)
        self.bytes = bytes
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator(), defaults: defaults, bytes: bytes, hint: undeclaredUnixTime, telemetry: telemetry)
    }

    package func makeBatchIterator() -> any SightingBatchIterator {
        makeAsyncIterator()
    }

    public struct AsyncIterator: AsyncIteratorProtocol, BatchHandingIterator {
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
        var batch: [Sighting] = []
        var batchIndex = 0
        private var pendingFailure: SightingStreamError?
        /// `nil` once the first sighting was looked at.
        private var hint: UndeclaredUnixTimeHint?
        /// Where telemetry lines' readings go.
        private let telemetry: TelemetryInbox

        init(
            lines: Lines.AsyncIterator, defaults: SightingJSONLines.Defaults, bytes: @escaping @Sendable (Lines.Element) -> [UInt8],
            hint: UndeclaredUnixTimeHint, telemetry: TelemetryInbox
        ) {
            self.telemetry = telemetry
            self.hint = defaults.clock == .elapsed ? hint : nil
            if let file = lines as? SightingLineReader.AsyncIterator {
                self.file = file
            } else {
                self.lines = lines
            }
            self.defaults = defaults
            self.bytes = bytes
        }

        public mutating func next() async throws -> Sighting? {
            // Only a file is decoded in batches; other lines, one at a time below.
            if batchIndex < batch.count || file != nil {
                return try await nextFromBatches()
            }
            guard !finished else { return nil }
            do {
                while let line = try await lines!.next() {
                    lineNumber += 1
                    let lineBytes = bytes(line)
                    if let sighting = try SightingJSONLines.decode(
                        line: lineBytes, lineNumber: lineNumber, source: defaults.receiver, defaultClock: defaults.clock,
                        telemetry: telemetry.put) {
                        if let hint {
                            self.hint = nil
                            lineBytes.withUnsafeBufferPointer { hint.noteFirst(sighting, line: $0, source: defaults.receiver) }
                        }
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
            var hint = self.hint
            let telemetry = self.telemetry
            file!.takeBufferedLines { line in
                lineNumber += 1
                do throws(SightingStreamError) {
                    switch try SightingJSONLines.decode(
                        line, lineNumber: lineNumber, source: defaults.receiver, defaults: defaults, fast: &fast) {
                    case .sighting(let sighting)?:
                        if let first = hint {
                            hint = nil
                            first.noteFirst(sighting, line: line, source: defaults.receiver)
                        }
                        sightings.append(sighting)
                    case .telemetry(let reading)?:
                        telemetry.put(reading)
                    case nil:
                        break
                    }
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            self.lineNumber = lineNumber
            self.fast = fast
            self.hint = hint
            pendingFailure = failure
        }
    }
}

extension SightingJSONLineSequence: Sendable where Lines: Sendable {}
