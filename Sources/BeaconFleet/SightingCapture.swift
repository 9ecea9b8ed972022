import BeaconCore
import HCI

/// The iBeacon sightings in a btsnoop capture (btmon's `-w`, Android's HCI snoop log, our
/// `--snoop`), so that an audit can run offline on what a controller reported.
///
/// Every controller→host LE Advertising Report and LE Extended Advertising Report event is
/// read as the live scanner reads it (`SightingExtractor`). Times are seconds since the
/// first record of the capture. Commands, data packets and other events are skipped.
public struct SightingCapture: Sendable {
    public var sightings: [Sighting]
    public var counts: SightingExtractionCounts
    public var datalink: BTSnoopDatalink
    /// HCI records read (of every kind).
    public var recordCount: Int
    /// The Unix time of the first record, microseconds: what `time` 0 of the sightings is.
    public var startUnixMicroseconds: Int64?
    /// Set when the capture ends inside a record, as it does when btmon or a phone stops
    /// while writing: every whole record before was read.
    public var truncation: String?

    /// Reads a whole capture. Throws only when the file is not a btsnoop capture at all or
    /// a record in the middle of it is corrupt; a record cut short at the very end is
    /// noted in `truncation` instead.
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
        datalink = reader.datalink
        sightings = []
        recordCount = 0
        var extractors: [UInt16?: SightingExtractor] = [:]
        var firstTimestamp: Int64?
        var malformedEvents = 0
        while true {
            let record: BTSnoopRecord
            do {
                guard let next = try reader.next() else { break }
                record = next
            } catch {
                if case .truncatedRecord = error {
                    truncation = error.description
                    break
                }
                throw SightingStreamError(source: source, reason: error.description)
            }
            recordCount += 1
            let start = firstTimestamp ?? record.unixMicroseconds
            firstTimestamp = start
            guard record.direction == .controllerToHost, record.packet.type == .event else { continue }
            let event: HCIEvent
            do {
                event = try HCIEvent(packet: record.packet)
            } catch {
                malformedEvents += 1
                continue
            }
            // A Linux monitor capture may hold several controllers: each is its own receiver.
            let index = record.controllerIndex
            var extractor = extractors[index]
                ?? SightingExtractor(receiver: index.map { "\(source) hci\($0)" } ?? source)
            let seconds = Double(record.unixMicroseconds &- start) / 1_000_000
            sightings += extractor.extract(from: event, at: seconds).sightings
            extractors[index] = extractor
        }
        startUnixMicroseconds = firstTimestamp
        counts = extractors.values.reduce(into: SightingExtractionCounts()) { total, extractor in
            total.reports += extractor.counts.reports
            total.iBeaconReports += extractor.counts.iBeaconReports
            total.otherReports += extractor.counts.otherReports
            total.fragments += extractor.counts.fragments
            total.malformedData += extractor.counts.malformedData
            total.incompleteData += extractor.counts.incompleteData
        }
        counts.malformedEvents = malformedEvents
    }

    /// Whether `bytes` start like a btsnoop file (its 8-byte magic).
    public static func looksLikeBTSnoop(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count >= BTSnoopFormat.magic.count && bytes.prefix(BTSnoopFormat.magic.count).elementsEqual(BTSnoopFormat.magic)
    }
}
