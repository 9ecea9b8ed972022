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
            sightings += try decoder.sightings(in: record, position: reader.lastRecordPosition)
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
    package private(set) var values: SightingCaptureSummary.Values
    private let source: String
    private var extractors: [UInt16?: SightingExtractor] = [:]
    private var malformedEvents = 0

    package init(datalink: BTSnoopDatalink, source: String) {
        values = .init(datalink: datalink)
        self.source = source
    }

    /// The reader's next record; `nil` at the end, or when it needs more bytes. A record
    /// cut short by the end of the capture ends it, noted in `truncation`.
    package mutating func nextRecord(from reader: inout BTSnoopReader) throws(SightingStreamError) -> BTSnoopRecord? {
        do {
            return try reader.next()
        } catch {
            if case .truncatedRecord = error {
                values.truncation = error.description
                return nil
            }
            throw SightingStreamError(source: source, reason: error.description)
        }
    }

    package mutating func sightings(in record: BTSnoopRecord, position: (index: Int, offset: Int)) throws(SightingStreamError) -> [Sighting] {
        values.recordCount += 1
        let start = values.startUnixMicroseconds ?? record.unixMicroseconds
        values.startUnixMicroseconds = start
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
        defer { updateCounts() }
        guard record.direction == .controllerToHost, record.packet.type == .event else { return [] }
        let event: HCIEvent
        do {
            event = try HCIEvent(packet: record.packet)
        } catch {
            malformedEvents += 1
            return []
        }
        // A Linux monitor capture may hold several controllers: each is its own receiver.
        let index = record.controllerIndex
        var extractor = extractors[index] ?? SightingExtractor(receiver: index.map { "\(source) hci\($0)" } ?? source)
        let sightings = extractor.extract(from: event, at: seconds).sightings
        extractors[index] = extractor
        return sightings
    }

    private mutating func updateCounts() {
        var total = extractors.values.reduce(into: SightingExtractionCounts()) { total, extractor in
            total.reports += extractor.counts.reports
            total.iBeaconReports += extractor.counts.iBeaconReports
            total.otherReports += extractor.counts.otherReports
            total.fragments += extractor.counts.fragments
            total.malformedData += extractor.counts.malformedData
            total.incompleteData += extractor.counts.incompleteData
        }
        total.malformedEvents = malformedEvents
        values.counts = total
    }
}

/// The sightings of a btsnoop capture read from a file or a pipe as they are consumed, one
/// chunk and one record at a time: memory stays bounded (a chunk plus one record, at most
/// 64 KiB) whatever the capture's length. `summary` fills in as it is read.
///
/// Ends with a `SightingStreamError` naming the record and its offset when a record is
/// corrupt; a record cut short by the end of the input ends it quietly, with `truncation`.
public struct SightingCaptureStream: AsyncSequence, Sendable {
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

    public struct AsyncIterator: AsyncIteratorProtocol {
        private var bytes: SightingLineReader.AsyncIterator
        private let source: String
        private let summary: SightingCaptureSummary
        private var reader: BTSnoopReader?
        private var decoder: SightingCaptureDecoder?
        private var pending: [Sighting] = []
        private var finished = false

        init(bytes: SightingLineReader.AsyncIterator, source: String, summary: SightingCaptureSummary) {
            self.bytes = bytes
            self.source = source
            self.summary = summary
        }

        public mutating func next() async throws -> Sighting? {
            while true {
                if !pending.isEmpty { return pending.removeFirst() }
                guard !finished else { return nil }
                try Task.checkCancellation()
                do {
                    guard let sightings = try await nextSightings() else {
                        finished = true
                        return nil
                    }
                    pending = sightings
                } catch {
                    finished = true
                    throw error
                }
            }
        }

        /// The sightings of the next record (often none), or `nil` at the end.
        private mutating func nextSightings() async throws -> [Sighting]? {
            guard var reader = try await openedReader(), var decoder else { return nil }
            defer {
                self.reader = reader
                self.decoder = decoder
                summary.update(decoder.values)
            }
            while true {
                if let record = try decoder.nextRecord(from: &reader) {
                    return try decoder.sightings(in: record, position: reader.lastRecordPosition)
                }
                // The end of the capture (whole, or cut short inside its last record).
                if reader.isFinished || decoder.values.truncation != nil { return nil }
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
