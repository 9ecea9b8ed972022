import BeaconCore
import HCI
import Synchronization

/// The iBeacon sightings in a btsnoop capture (btmon's `-w`, Android's HCI snoop log, our
/// `--snoop`), so that an audit can run offline on what a controller reported.
///
/// Every controller→host LE Advertising Report and LE Extended Advertising Report event is
/// read as the live scanner reads it (`SightingExtractor`). Times are seconds since the
/// first record of the capture. Commands, data packets and other events are skipped.
///
/// This is the in-memory form, for captures already in memory (tests, fuzzing); commands
/// read captures through `SightingCaptureStream`, record by record in bounded memory. Both
/// judge records with one `SightingCaptureDecoder`.
public struct SightingCapture: Sendable {
    public var sightings: [Sighting]
    public var summary: SightingCaptureSummary.Values

    public var counts: SightingExtractionCounts { summary.counts }
    public var datalink: BTSnoopDatalink { summary.datalink }
    public var recordCount: Int { summary.recordCount }
    public var startUnixMicroseconds: Int64? { summary.startUnixMicroseconds }
    public var truncation: String? { summary.truncation }

    /// Reads a whole capture. Throws when the bytes are not a btsnoop capture or a record
    /// is corrupt; a record cut short at the very end is noted in `truncation` instead.
    public init(bytes: [UInt8], source: String) throws(SightingStreamError) {
        let reader: BTSnoopReader
        do {
            reader = try BTSnoopReader(bytes: bytes)
        } catch {
            throw SightingStreamError(source: source, reason: error.description)
        }
        try self.init(reader: reader, source: source)
    }

    /// Reads the records of an opened capture.
    public init(reader: BTSnoopReader, source: String) throws(SightingStreamError) {
        var reader = reader
        var decoder = SightingCaptureDecoder(datalink: reader.datalink, source: source)
        sightings = []
        while let record = try decoder.nextRecord(from: &reader) {
            try decoder.appendSightings(in: record, position: reader.lastRecordPosition, to: &sightings)
        }
        summary = decoder.values
    }

    /// Whether `bytes` start like a btsnoop file (its 8-byte magic).
    public static func looksLikeBTSnoop(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count >= BTSnoopFormat.magic.count && bytes.prefix(BTSnoopFormat.magic.count).elementsEqual(BTSnoopFormat.magic)
    }
}

/// What reading a capture found besides its sightings. Filled as the capture is read, so
/// it is complete once the sightings have been read to their end.
public final class SightingCaptureSummary: Sendable {
    public struct Values: Sendable, Hashable {
        public var datalink: BTSnoopDatalink
        /// HCI records read (of every kind).
        public var recordCount = 0
        public var counts = SightingExtractionCounts()
        /// The Unix time of the first record, microseconds: what `time` 0 of the sightings is.
        public var startUnixMicroseconds: Int64?
        /// Set when the capture ends inside a record, as it does when btmon or a phone stops
        /// while writing: every whole record before was read.
        public var truncation: String?
    }

    private let state: Mutex<Values?>

    init() { state = Mutex(nil) }

    /// `nil` until the file header has been read.
    public var values: Values? { state.withLock { $0 } }

    func update(_ values: Values) { state.withLock { $0 = values } }
}

/// Turns btsnoop records into sightings: one extractor per controller of the capture, times
/// relative to the first record and checked, counts kept. The one place that judges
/// records, for the in-memory and the streaming reader alike.
package struct SightingCaptureDecoder {
    /// What was found so far, counts included.
    package var values: SightingCaptureSummary.Values {
        var values = found
        var total = extractor.counts
        for other in extractorsByIndex.values {
            total.reports += other.counts.reports
            total.iBeaconReports += other.counts.iBeaconReports
            total.otherReports += other.counts.otherReports
            total.fragments += other.counts.fragments
            total.malformedData += other.counts.malformedData
            total.incompleteData += other.counts.incompleteData
        }
        total.malformedEvents = malformedEvents
        values.counts = total
        return values
    }

    /// `values` but for the counts, which are summed when asked for (not at every record).
    private var found: SightingCaptureSummary.Values
    private let source: String
    /// Records without a controller index (every datalink but Linux monitor).
    private var extractor: SightingExtractor
    /// A Linux monitor capture may hold several controllers: each is its own receiver.
    private var extractorsByIndex: [UInt16: SightingExtractor] = [:]
    private var malformedEvents = 0

    package init(datalink: BTSnoopDatalink, source: String) {
        found = .init(datalink: datalink)
        self.source = source
        extractor = SightingExtractor(receiver: source)
    }

    /// Whether the capture ended inside a record (see `nextRecord(from:)`).
    package var isTruncated: Bool { found.truncation != nil }

    /// The reader's next record; `nil` at the end, or when it needs more bytes. A record
    /// cut short by the end of the capture ends it, noted in `truncation`.
    package mutating func nextRecord(from reader: inout BTSnoopReader) throws(SightingStreamError) -> BTSnoopRecord? {
        do {
            return try reader.next()
        } catch {
            if case .truncatedRecord = error {
                found.truncation = error.description
                return nil
            }
            throw SightingStreamError(source: source, reason: error.description)
        }
    }

    package mutating func sightings(in record: BTSnoopRecord, position: (index: Int, offset: Int)) throws(SightingStreamError) -> [Sighting] {
        var sightings: [Sighting] = []
        try appendSightings(in: record, position: position, to: &sightings)
        return sightings
    }

    /// Appends the sightings of `record` (often none) to `sightings`.
    package mutating func appendSightings(
        in record: BTSnoopRecord, position: (index: Int, offset: Int), to sightings: inout [Sighting]
    ) throws(SightingStreamError) {
        found.recordCount += 1
        let start = found.startUnixMicroseconds ?? record.unixMicroseconds
        found.startUnixMicroseconds = start
        // Checked where the time enters, as for JSON lines: a corrupt timestamp must not
        // become a time that later arithmetic cannot handle.
        let seconds = Double(record.unixMicroseconds) / 1_000_000 - Double(start) / 1_000_000
        guard Sighting.acceptedTimes.contains(seconds) else {
            throw SightingStreamError(
                source: source,
                reason: "btsnoop record \(position.index) at byte \(position.offset) is \(seconds) s from the first record "
                    + "(beyond about 317 years): its timestamp is corrupt; to use what precedes it, keep the "
                    + "capture's first \(position.offset) bytes (head -c \(position.offset))")
        }
        guard record.direction == .controllerToHost, record.packet.type == .event else { return }
        let decoded: Bool
        if let index = record.controllerIndex {
            var extractor = extractorsByIndex.removeValue(forKey: index) ?? SightingExtractor(receiver: "\(source) hci\(index)")
            decoded = Self.extract(record.packet.body, with: &extractor, at: seconds, into: &sightings)
            extractorsByIndex[index] = extractor
        } else {
            decoded = Self.extract(record.packet.body, with: &extractor, at: seconds, into: &sightings)
        }
        if !decoded { malformedEvents += 1 }
    }

    /// The event's sightings, the common shape read in place; false when it cannot be decoded.
    private static func extract(
        _ body: [UInt8], with extractor: inout SightingExtractor, at seconds: Double, into sightings: inout [Sighting]
    ) -> Bool {
        if body.withUnsafeBufferPointer({ extractor.extractLegacyReports(inEvent: $0, at: seconds, into: &sightings) }) {
            return true
        }
        guard let event = try? HCIEvent(body: body[...]) else { return false }
        sightings += extractor.extract(from: event, at: seconds).sightings
        return true
    }
}

/// The sightings of a btsnoop capture read from a file or a pipe as they are consumed, one
/// chunk and one record at a time: memory stays bounded (a chunk plus one record, at most
/// 64 KiB) whatever the capture's length. `summary` fills in as it is read.
///
/// Ends with a `SightingStreamError` naming the record and its offset when a record is
/// corrupt; a record cut short by the end of the input ends it quietly, with `truncation`.
public struct SightingCaptureStream: AsyncSequence, Sendable, SightingBatchSequence {
    public typealias Element = Sighting

    private let bytes: SightingLineReader.AsyncIterator
    private let source: String
    public let summary = SightingCaptureSummary()

    init(bytes: SightingLineReader.AsyncIterator, source: String) {
        self.bytes = bytes
        self.source = source
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(bytes: bytes, source: source, summary: summary)
    }

    package func makeBatchIterator() -> any SightingBatchIterator {
        makeAsyncIterator()
    }

    public struct AsyncIterator: AsyncIteratorProtocol, SightingBatchIterator {
        private var bytes: SightingLineReader.AsyncIterator
        private let source: String
        private let summary: SightingCaptureSummary
        private var reader: BTSnoopReader?
        private var decoder: SightingCaptureDecoder?
        /// Sightings decoded ahead, handed out from `batchIndex`; an error found after them
        /// waits in `pendingFailure` until they are all out.
        private var batch: [Sighting] = []
        private var batchIndex = 0
        private var pendingFailure: SightingStreamError?
        private var finished = false

        /// Sightings decoded in one go at most, when the bytes at hand hold that many.
        static let batchLimit = 1024

        init(bytes: SightingLineReader.AsyncIterator, source: String, summary: SightingCaptureSummary) {
            self.bytes = bytes
            self.source = source
            self.summary = summary
        }

        public mutating func next() async throws -> Sighting? {
            if batchIndex < batch.count {
                defer { batchIndex += 1 }
                return batch[batchIndex]
            }
            var taken: [Sighting] = []
            swap(&taken, &batch)
            batchIndex = 1
            guard try await nextBatch(into: &taken) else { return nil }
            swap(&taken, &batch)
            return batch[0]
        }

        package mutating func nextBatch(into sightings: inout [Sighting]) async throws -> Bool {
            sightings.removeAll(keepingCapacity: true)
            if let pendingFailure {
                self.pendingFailure = nil
                finished = true
                throw pendingFailure
            }
            guard !finished else { return false }
            try Task.checkCancellation()
            do {
                if try await decodeBatch(into: &sightings) { return true }
            } catch {
                finished = true
                throw error
            }
            finished = true
            return false
        }

        /// Decodes the records at hand into `batch`, reading more only while it is empty: true
        /// when it holds some sightings, false at the end of the capture (whole, or cut short
        /// inside its last record).
        private mutating func decodeBatch(into batch: inout [Sighting]) async throws -> Bool {
            guard var reader = try await openedReader(), var decoder else { return false }
            defer {
                self.reader = reader
                self.decoder = decoder
                summary.update(decoder.values)
            }
            while true {
                do throws(SightingStreamError) {
                    while let record = try decoder.nextRecord(from: &reader) {
                        try decoder.appendSightings(in: record, position: reader.lastRecordPosition, to: &batch)
                        if batch.count >= Self.batchLimit { return true }
                    }
                } catch {
                    if batch.isEmpty { throw error }
                    pendingFailure = error
                    return true
                }
                // What was decoded goes out before waiting for more (a pipe may be slow).
                if !batch.isEmpty { return true }
                if reader.isFinished || decoder.isTruncated { return false }
                let chunk = try await bytes.read(atMost: Swift.max(reader.bytesNeeded, 64 * 1024))
                if chunk.isEmpty {
                    reader.finish()
                } else {
                    reader.append(chunk)
                }
            }
        }

        /// The reader, once the 16-byte file header has been read.
        private mutating func openedReader() async throws -> BTSnoopReader? {
            if let reader { return reader }
            let header = try await bytes.read(exactly: BTSnoopFormat.fileHeaderLength)
            do {
                let opened = try BTSnoopReader(prefix: header)
                reader = opened
                decoder = SightingCaptureDecoder(datalink: opened.datalink, source: source)
                return opened
            } catch {
                throw SightingStreamError(source: source, reason: error.description)
            }
        }
    }
}
