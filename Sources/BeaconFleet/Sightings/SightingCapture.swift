import BeaconCore
import HCI
import Synchronization

/// The iBeacon sightings in a btsnoop, pcap or pcapng capture (btmon's `-w`, Android's HCI
/// snoop log, our `--snoop`, Wireshark and sniffers), so that an audit can run offline on
/// what a controller reported or a sniffer heard.
///
/// Every controller→host LE Advertising Report and LE Extended Advertising Report event is
/// read as the live scanner reads it (`SightingExtractor`); for the link-layer pcap link
/// types, every advertising PDU with advertising data. Times are seconds since the first
/// record of the capture. Commands, data packets and other events are skipped.
///
/// This is the in-memory form, for captures already in memory (tests, fuzzing); commands
/// read captures through `SightingCaptureStream`, record by record in bounded memory. Both
/// judge records with one `SightingCaptureDecoder`.
public struct SightingCapture: Sendable {
    public var sightings: [Sighting]
    /// The telemetry readings of its reports, in order (`SightingExtractor`).
    public var telemetry: [TelemetryReading]
    public var summary: SightingCaptureSummary.Values

    public var counts: SightingExtractionCounts { summary.counts }
    /// The btsnoop datalink; `nil` for pcap and pcapng.
    public var datalink: BTSnoopDatalink? { summary.datalink }
    public var recordCount: Int { summary.recordCount }
    public var startUnixMicroseconds: Int64? { summary.startUnixMicroseconds }
    public var truncation: String? { summary.truncation }

    /// Reads a whole capture, btsnoop, pcap or pcapng (told by its magic). Throws when the
    /// bytes are none of them or a record is corrupt; a record cut short at the very end is
    /// noted in `truncation` instead.
    public init(bytes: [UInt8], source: String) throws(SightingStreamError) {
        if let format = PcapReader.format(ofPrefix: bytes) {
            var reader = PcapReader()
            reader.append(bytes)
            reader.finish()
            let telemetry = TelemetryInbox()
            var decoder = SightingCaptureDecoder(pcapFormat: format, source: source, telemetry: telemetry)
            var sightings: [Sighting] = []
            while let packet = try decoder.nextRecord(from: &reader) {
                try decoder.appendSightings(in: packet, position: reader.lastRecordPosition, to: &sightings)
            }
            try decoder.checkEnd()
            self.init(sightings: sightings, telemetry: telemetry.take(), summary: decoder.values)
            return
        }
        let reader: BTSnoopReader
        do {
            reader = try BTSnoopReader(bytes: bytes)
        } catch {
            throw SightingStreamError(source: source, reason: error.description)
        }
        try self.init(reader: reader, source: source)
    }

    private init(sightings: [Sighting], telemetry: [TelemetryReading], summary: SightingCaptureSummary.Values) {
        self.sightings = sightings
        self.telemetry = telemetry
        self.summary = summary
    }

    /// Reads the records of an opened btsnoop capture.
    public init(reader: BTSnoopReader, source: String) throws(SightingStreamError) {
        var reader = reader
        let inbox = TelemetryInbox()
        var decoder = SightingCaptureDecoder(datalink: reader.datalink, source: source, telemetry: inbox)
        sightings = []
        while let record = try decoder.nextRecord(from: &reader) {
            try decoder.appendSightings(in: record, position: reader.lastRecordPosition, to: &sightings)
        }
        telemetry = inbox.take()
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
        /// The btsnoop datalink; `nil` for pcap and pcapng (whose link types are per interface).
        public var datalink: BTSnoopDatalink?
        /// "btsnoop", "pcap" or "pcapng".
        public var format = "btsnoop"
        /// Records (pcap and pcapng: packets) read, of every kind.
        public var recordCount = 0
        public var counts = SightingExtractionCounts()
        /// The Unix time of the first record, microseconds: what `time` 0 of the sightings is.
        public var startUnixMicroseconds: Int64?
        /// Set when the capture ends inside a record, as it does when btmon or a phone stops
        /// while writing: every whole record before was read.
        public var truncation: String?
        /// Records of a Bluetooth link type that could not be decoded (not an HCI packet, a
        /// header too short for its link type, an event that does not parse): skipped, and
        /// said in every report, since the verdicts rest only on the other records.
        public var undecodableRecords = 0
        /// The first of them, named with its position and what is wrong with it.
        public var firstUndecodableRecord: String?

        /// What a report says of the undecodable records, or `nil` when there were none.
        public var undecodableWarning: String? {
            guard undecodableRecords > 0, let first = firstUndecodableRecord else { return nil }
            return "\(undecodableRecords) of the \(NumberText.count(recordCount, "record")) of this \(format) capture "
                + "could not be decoded and \(undecodableRecords == 1 ? "was" : "were") skipped (the first: \(first)); "
                + "what was not decoded was not judged: check the capture with Wireshark or btmon -r, or record it again"
        }
    }

    private let state: Mutex<Values?>

    init() { state = Mutex(nil) }

    /// `nil` until the file header has been read.
    public var values: Values? { state.withLock { $0 } }

    func update(_ values: Values) { state.withLock { $0 = values } }
}

/// A record of a capture format the decoder reads: a btsnoop record or a pcap/pcapng packet.
package protocol SightingCaptureRecord {
    /// Appends the record's sightings (often none) to `sightings`, through `decoder`.
    static func appendSightings(
        of record: Self, position: (index: Int, offset: Int), decoder: inout SightingCaptureDecoder,
        to sightings: inout [Sighting]
    ) throws(SightingStreamError)
}

extension BTSnoopRecord: SightingCaptureRecord {
    package static func appendSightings(
        of record: Self, position: (index: Int, offset: Int), decoder: inout SightingCaptureDecoder,
        to sightings: inout [Sighting]
    ) throws(SightingStreamError) {
        try decoder.appendSightings(in: record, position: position, to: &sightings)
    }
}

extension PcapPacket: SightingCaptureRecord {
    package static func appendSightings(
        of record: Self, position: (index: Int, offset: Int), decoder: inout SightingCaptureDecoder,
        to sightings: inout [Sighting]
    ) throws(SightingStreamError) {
        try decoder.appendSightings(in: record, position: position, to: &sightings)
    }
}

/// Turns capture records into sightings: one extractor per controller (or interface) of the
/// capture, times relative to the first record and checked, counts kept. The one place
/// that judges records, for the in-memory and the streaming reader alike.
package struct SightingCaptureDecoder {
    /// What was found so far, counts included.
    package var values: SightingCaptureSummary.Values {
        var values = found
        var total = extractor.counts
        for other in Array(extractorsByIndex.values) + Array(extractorsByInterface.values) {
            total.reports += other.counts.reports
            total.iBeaconReports += other.counts.iBeaconReports
            total.otherReports += other.counts.otherReports
            total.fragments += other.counts.fragments
            total.malformedData += other.counts.malformedData
            total.incompleteData += other.counts.incompleteData
            total.telemetryReadings += other.counts.telemetryReadings
            total.encryptedTelemetry += other.counts.encryptedTelemetry
            total.malformedTelemetry += other.counts.malformedTelemetry
        }
        total.malformedEvents = malformedEvents
        values.counts = total
        return values
    }

    /// Counts the current record as undecodable, naming the first one.
    private mutating func noteUndecodable(_ why: String) {
        found.undecodableRecords += 1
        guard found.firstUndecodableRecord == nil else { return }
        let record = pcapFormat?.recordName ?? "btsnoop record"
        found.firstUndecodableRecord = "\(record) \(position.index) at byte \(position.offset): \(why)"
    }

    /// `values` but for the counts, which are summed when asked for (not at every record).
    private var found: SightingCaptureSummary.Values
    private let source: String
    /// Records of the capture's only (or first) controller or interface.
    private var extractor: SightingExtractor
    /// A Linux monitor capture may hold several controllers: each is its own receiver.
    private var extractorsByIndex: [UInt16: SightingExtractor] = [:]
    /// pcapng interfaces after the first: each is its own receiver.
    private var extractorsByInterface: [Int: SightingExtractor] = [:]
    private var malformedEvents = 0
    /// Where every receiver's telemetry readings go.
    private let telemetry: TelemetryInbox
    // pcap and pcapng
    private var pcapFormat: PcapReader.Format?
    private var startNanoseconds: Int64?
    private var lastNanoseconds: Int64?
    private var bluetoothPackets = 0
    private var otherLinkTypes: [UInt32] = []
    /// The record being decoded, to name it when it cannot be.
    private var position: (index: Int, offset: Int) = (0, 0)

    package init(datalink: BTSnoopDatalink, source: String, telemetry: TelemetryInbox = TelemetryInbox()) {
        found = .init(datalink: datalink)
        self.source = source
        self.telemetry = telemetry
        extractor = SightingExtractor(receiver: source, telemetry: telemetry)
    }

    package init(pcapFormat: PcapReader.Format, source: String, telemetry: TelemetryInbox = TelemetryInbox()) {
        found = .init(datalink: nil, format: pcapFormat.rawValue)
        self.source = source
        self.pcapFormat = pcapFormat
        self.telemetry = telemetry
        extractor = SightingExtractor(receiver: source, telemetry: telemetry)
    }

    /// Whether the capture ended inside a record (see `nextRecord(from:)`).
    package var isTruncated: Bool { found.truncation != nil }

    /// The reader's next record; `nil` at the end, or when it needs more bytes. A record
    /// cut short by the end of the capture ends it, noted in `truncation`.
    package mutating func nextRecord<Reader: CaptureRecordReader>(from reader: inout Reader) throws(SightingStreamError) -> Reader.Record? {
        do {
            return try reader.next()
        } catch {
            if Reader.isTruncation(error) {
                found.truncation = error.description
                return nil
            }
            throw SightingStreamError(source: source, reason: error.description)
        }
    }

    /// At the end of a pcap or pcapng capture: an error when it held packets and none was
    /// of a Bluetooth link type (a network capture given by mistake must not pass for a
    /// silent air).
    package func checkEnd() throws(SightingStreamError) {
        // Bluetooth packets, every one of them undecodable: nothing was heard, and a silent
        // air must not be concluded from it.
        if bluetoothPackets > 0, found.undecodableRecords >= bluetoothPackets, let first = found.firstUndecodableRecord {
            throw SightingStreamError(
                source: source,
                reason: "this \(found.format) capture holds no Bluetooth packet that can be decoded "
                    + "(\(NumberText.count(found.undecodableRecords, "record")); the first: \(first)); "
                    + "check it with Wireshark, or record it again")
        }
        guard found.recordCount > 0, bluetoothPackets == 0, !otherLinkTypes.isEmpty else { return }
        let types = otherLinkTypes.map { "\($0)\(Self.linkTypeHint($0))" }.joined(separator: ", ")
        throw SightingStreamError(
            source: source,
            reason: "this \(found.format) capture holds no Bluetooth packets (its link type\(otherLinkTypes.count > 1 ? "s are" : " is") \(types)); "
                + "readable are 187 and 201 (HCI H4), 254 (Linux monitor), 251 and 256 (LE link layer), 272 (nRF Sniffer)")
    }

    private static func linkTypeHint(_ type: UInt32) -> String {
        switch type {
        case 1: " (Ethernet)"
        case 101: " (raw IP)"
        case 105: " (802.11)"
        case 113, 276: " (Linux cooked)"
        case 127: " (802.11 radiotap)"
        default: ""
        }
    }

    package mutating func sightings(in record: BTSnoopRecord, position: (index: Int, offset: Int)) throws(SightingStreamError) -> [Sighting] {
        var sightings: [Sighting] = []
        try appendSightings(in: record, position: position, to: &sightings)
        return sightings
    }

    /// Appends the sightings of a btsnoop record (often none) to `sightings`.
    package mutating func appendSightings(
        in record: BTSnoopRecord, position: (index: Int, offset: Int), to sightings: inout [Sighting]
    ) throws(SightingStreamError) {
        found.recordCount += 1
        self.position = position
        let start = found.startUnixMicroseconds ?? record.unixMicroseconds
        found.startUnixMicroseconds = start
        // Checked where the time enters, as for JSON lines: a corrupt timestamp must not
        // become a time that later arithmetic cannot handle.
        let seconds = Double(record.unixMicroseconds) / 1_000_000 - Double(start) / 1_000_000
        try checkTime(seconds, recordName: "btsnoop record", position: position)
        guard record.direction == .controllerToHost, record.packet.type == .event else { return }
        record.packet.body.withUnsafeBufferPointer { body in
            appendSightings(ofEvent: body, controllerIndex: record.controllerIndex, interface: 0, at: seconds, to: &sightings)
        }
    }

    /// Appends the sightings of a pcap or pcapng packet (often none) to `sightings`.
    package mutating func appendSightings(
        in packet: PcapPacket, position: (index: Int, offset: Int), to sightings: inout [Sighting]
    ) throws(SightingStreamError) {
        found.recordCount += 1
        self.position = position
        // A Simple Packet Block has no time: it takes the time of the packet before.
        var seconds = 0.0
        if let stamp = packet.unixNanoseconds ?? lastNanoseconds {
            let start = startNanoseconds ?? stamp
            startNanoseconds = start
            lastNanoseconds = stamp
            found.startUnixMicroseconds = start / 1000
            let (elapsed, overflow) = stamp.subtractingReportingOverflow(start)
            seconds = overflow ? .infinity : Double(elapsed) / 1_000_000_000
            try checkTime(seconds, recordName: (pcapFormat ?? .pcap).recordName, position: position)
        }
        // Each interface is a receiver of its own: a hostile file of endless sections must not
        // make endless receivers.
        if packet.interface != 0, extractorsByInterface.count >= Self.maximumInterfaces,
           extractorsByInterface[packet.interface] == nil {
            throw SightingStreamError(
                source: source,
                reason: "\((pcapFormat ?? .pcap).recordName) \(position.index) at byte \(position.offset) is on a "
                    + "\(Self.maximumInterfaces + 1)th interface with packets; more are not read")
        }
        packet.data.withUnsafeBufferPointer { data in
            appendSightings(ofPacket: data, linkType: packet.linkType, interface: packet.interface, at: seconds, to: &sightings)
        }
    }

    /// Interfaces after the first that may carry packets, each a receiver.
    static let maximumInterfaces = 1024

    private func checkTime(_ seconds: Double, recordName: String, position: (index: Int, offset: Int)) throws(SightingStreamError) {
        guard !Sighting.acceptedTimes.contains(seconds) else { return }
        throw SightingStreamError(
            source: source,
            reason: "\(recordName) \(position.index) at byte \(position.offset) is \(seconds) s from the first record "
                + "(beyond about 317 years): its timestamp is corrupt; to use what precedes it, keep the "
                + "capture's first \(position.offset) bytes (head -c \(position.offset))")
    }

    /// The link types read (LINKTYPE_* numbers): what each packet starts with.
    private enum LinkType {
        /// H4: the packet indicator, then the packet.
        static let h4: UInt32 = 187
        /// A 4-octet direction (big-endian), then H4.
        static let h4WithDirection: UInt32 = 201
        /// The link layer as on the air (no preamble): access address, PDU, CRC.
        static let lowEnergyLinkLayer: UInt32 = 251
        /// BlueZ's monitor: adapter index and opcode (big-endian 16 bits each), then the packet.
        static let linuxMonitor: UInt32 = 254
        /// A 10-octet radio pseudo-header (little-endian), then the link layer as for 251.
        static let lowEnergyLinkLayerWithRadio: UInt32 = 256
        /// The nRF Sniffer for Bluetooth LE's headers, then the link layer as for 251.
        static let nordicLowEnergy: UInt32 = 272
    }

    private mutating func appendSightings(
        ofPacket data: UnsafeBufferPointer<UInt8>, linkType: UInt32, interface: Int, at seconds: Double, to sightings: inout [Sighting]
    ) {
        switch linkType {
        case LinkType.h4, LinkType.h4WithDirection:
            bluetoothPackets += 1
            // Events go from the controller to the host whatever the direction says (writers
            // disagree on which value of its low bit means "received").
            let skip = linkType == LinkType.h4 ? 0 : 4
            guard data.count > skip else {
                noteUndecodable("\(data.count) bytes, too short for an H4 packet with link type \(linkType)")
                return
            }
            // The packet indicator (Core v5.4 Vol 4 Part A 2): command, ACL, SCO, event, ISO.
            guard HCIPacketType(rawValue: data[skip]) != nil else {
                noteUndecodable("its H4 packet indicator is 0x\(HexText.byte(data[skip])), not an HCI packet type")
                return
            }
            guard data[skip] == HCIPacketType.event.rawValue else { return }
            appendSightings(
                ofEvent: UnsafeBufferPointer(rebasing: data[(skip + 1)...]), controllerIndex: nil, interface: interface,
                at: seconds, to: &sightings)
        case LinkType.linuxMonitor:
            bluetoothPackets += 1
            guard data.count >= 4 else {
                noteUndecodable("\(data.count) bytes, too short for the Linux monitor header (4 bytes)")
                return
            }
            // Opcode 3: an event (BlueZ monitor protocol, as in btsnoop datalink 2001).
            guard data[2] == 0, data[3] == 3 else { return }
            appendSightings(
                ofEvent: UnsafeBufferPointer(rebasing: data[4...]), controllerIndex: UInt16(data[0]) << 8 | UInt16(data[1]),
                interface: interface, at: seconds, to: &sightings)
        case LinkType.lowEnergyLinkLayer:
            bluetoothPackets += 1
            withExtractor(interface: interface) { $0.extractAdvertisingPDU(data, rssi: nil, at: seconds, into: &sightings) }
        case LinkType.lowEnergyLinkLayerWithRadio:
            bluetoothPackets += 1
            guard let header = LERadioPseudoHeader(data) else {
                noteUndecodable("\(data.count) bytes, too short for the LE radio pseudo-header (\(LERadioPseudoHeader.length) bytes)")
                return
            }
            guard header.isReadable else { return }
            withExtractor(interface: interface) {
                $0.extractAdvertisingPDU(
                    UnsafeBufferPointer(rebasing: data[LERadioPseudoHeader.length...]), rssi: header.signalPower, at: seconds,
                    into: &sightings)
            }
        case LinkType.nordicLowEnergy:
            bluetoothPackets += 1
            switch NordicSnifferPacket.read(data) {
            case .packet(let packet):
                withExtractor(interface: interface) {
                    $0.extractAdvertisingPDU(
                        UnsafeBufferPointer(rebasing: data[packet.linkLayerOffset...]), rssi: packet.rssi, at: seconds,
                        into: &sightings)
                }
            case .skipped: break
            case .malformed:
                malformedEvents += 1
                noteUndecodable("its nRF Sniffer header does not hold together")
            }
        default:
            if otherLinkTypes.count < 8 && !otherLinkTypes.contains(linkType) { otherLinkTypes.append(linkType) }
        }
    }

    /// An HCI event's sightings, the common shape read in place.
    private mutating func appendSightings(
        ofEvent body: UnsafeBufferPointer<UInt8>, controllerIndex: UInt16?, interface: Int, at seconds: Double,
        to sightings: inout [Sighting]
    ) {
        let decoded: Bool
        if let index = controllerIndex {
            var extractor = extractorsByIndex.removeValue(forKey: index) ?? SightingExtractor(receiver: "\(source) hci\(index)", telemetry: telemetry)
            decoded = Self.extract(body, with: &extractor, at: seconds, into: &sightings)
            extractorsByIndex[index] = extractor
        } else {
            decoded = withExtractor(interface: interface) { Self.extract(body, with: &$0, at: seconds, into: &sightings) }
        }
        if !decoded {
            malformedEvents += 1
            noteUndecodable("an HCI event that does not decode")
        }
    }

    /// Runs `body` on the extractor of `interface` (the source's own for the first).
    private mutating func withExtractor<Result>(interface: Int, _ body: (inout SightingExtractor) -> Result) -> Result {
        guard interface != 0 else { return body(&extractor) }
        var extractor = extractorsByInterface.removeValue(forKey: interface)
            ?? SightingExtractor(receiver: "\(source) interface \(interface)", telemetry: telemetry)
        defer { extractorsByInterface[interface] = extractor }
        return body(&extractor)
    }

    /// The event's sightings, the common shape read in place; false when it cannot be decoded.
    private static func extract(
        _ body: UnsafeBufferPointer<UInt8>, with extractor: inout SightingExtractor, at seconds: Double,
        into sightings: inout [Sighting]
    ) -> Bool {
        if extractor.extractLegacyReports(inEvent: body, at: seconds, into: &sightings) { return true }
        guard let event = try? HCIEvent(body: Array(body)[...]) else { return false }
        sightings += extractor.extract(from: event, at: seconds).sightings
        return true
    }
}

/// The sightings of a btsnoop, pcap or pcapng capture read from a file or a pipe as they are
/// consumed, one chunk and one record at a time: memory stays bounded (a chunk plus one
/// record, each capped) whatever the capture's length. `summary` fills in as it is read.
///
/// Ends with a `SightingStreamError` naming the record and its offset when a record is
/// corrupt; a record cut short by the end of the input ends it quietly, with `truncation`.
public struct SightingCaptureStream: AsyncSequence, Sendable, SightingBatchSequence {
    public typealias Element = Sighting

    /// The capture formats, as told by their magic.
    enum Format: Sendable {
        case btsnoop
        case pcap(PcapReader.Format)
    }

    private let bytes: SightingLineReader.AsyncIterator
    private let source: String
    private let format: Format
    public let summary = SightingCaptureSummary()
    /// The telemetry readings of the capture's reports, put as its records are decoded.
    public let telemetry = TelemetryInbox()

    init(bytes: SightingLineReader.AsyncIterator, source: String, format: Format = .btsnoop) {
        self.bytes = bytes
        self.source = source
        self.format = format
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(bytes: bytes, source: source, format: format, summary: summary, telemetry: telemetry)
    }

    package func makeBatchIterator() -> any SightingBatchIterator {
        makeAsyncIterator()
    }

    public struct AsyncIterator: AsyncIteratorProtocol, BatchHandingIterator {
        private var bytes: SightingLineReader.AsyncIterator
        private let source: String
        private let format: Format
        private let summary: SightingCaptureSummary
        private let telemetry: TelemetryInbox
        // Held here between batches and moved out while one is decoded, so that each is
        // uniquely referenced then (a second reference would copy its buffer at every append).
        private var btsnoop: BTSnoopReader?
        private var pcap: PcapReader?
        private var decoder: SightingCaptureDecoder?
        /// Sightings decoded ahead, handed out from `batchIndex`; an error found after them
        /// waits in `pendingFailure` until they are all out.
        var batch: [Sighting] = []
        var batchIndex = 0
        private var pendingFailure: SightingStreamError?
        private var finished = false

        /// Sightings decoded in one go at most, when the bytes at hand hold that many.
        static let batchLimit = 1024
        static let chunkSize = 64 * 1024

        init(
            bytes: SightingLineReader.AsyncIterator, source: String, format: Format, summary: SightingCaptureSummary,
            telemetry: TelemetryInbox
        ) {
            self.bytes = bytes
            self.source = source
            self.format = format
            self.summary = summary
            self.telemetry = telemetry
        }

        public mutating func next() async throws -> Sighting? {
            try await nextFromBatches()
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
                let more: Bool
                switch format {
                case .btsnoop: more = try await decodeBTSnoopBatch(into: &sightings)
                case .pcap(let format): more = try await decodePcapBatch(format, into: &sightings)
                }
                if more { return true }
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
        private mutating func decodeBTSnoopBatch(into batch: inout [Sighting]) async throws -> Bool {
            if btsnoop == nil {
                let header = try await bytes.read(exactly: BTSnoopFormat.fileHeaderLength)
                do {
                    let opened = try BTSnoopReader(prefix: header)
                    btsnoop = opened
                    decoder = SightingCaptureDecoder(datalink: opened.datalink, source: source, telemetry: telemetry)
                } catch {
                    throw SightingStreamError(source: source, reason: error.description)
                }
            }
            guard var reader = btsnoop, var decoder else { return false }
            btsnoop = nil
            self.decoder = nil
            defer {
                btsnoop = reader
                self.decoder = decoder
                summary.update(decoder.values)
            }
            return try await decodeBatch(&reader, &decoder, into: &batch)
        }

        /// `decodeBTSnoopBatch(into:)` for pcap and pcapng.
        private mutating func decodePcapBatch(_ format: PcapReader.Format, into batch: inout [Sighting]) async throws -> Bool {
            var reader = pcap ?? PcapReader()
            var decoder = self.decoder ?? SightingCaptureDecoder(pcapFormat: format, source: source, telemetry: telemetry)
            pcap = nil
            self.decoder = nil
            defer {
                pcap = reader
                self.decoder = decoder
                summary.update(decoder.values)
            }
            return try await decodeBatch(&reader, &decoder, into: &batch)
        }

        /// The one driver of every capture format: decodes the records at hand into `batch`,
        /// reading more bytes only while it is empty; true when it holds some sightings,
        /// false at the end of the capture (whole, or cut short inside its last record).
        private mutating func decodeBatch<Reader: CaptureRecordReader>(
            _ reader: inout Reader, _ decoder: inout SightingCaptureDecoder, into batch: inout [Sighting]
        ) async throws -> Bool where Reader.Record: SightingCaptureRecord {
            while true {
                do throws(SightingStreamError) {
                    while let record = try decoder.nextRecord(from: &reader) {
                        try Reader.Record.appendSightings(
                            of: record, position: reader.lastRecordPosition, decoder: &decoder, to: &batch)
                        if batch.count >= Self.batchLimit { return true }
                    }
                    if batch.isEmpty && (reader.isFinished || decoder.isTruncated) { try decoder.checkEnd() }
                } catch {
                    if batch.isEmpty { throw error }
                    pendingFailure = error
                    return true
                }
                // What was decoded goes out before waiting for more (a pipe may be slow).
                if !batch.isEmpty { return true }
                if reader.isFinished || decoder.isTruncated { return false }
                let chunk = try await bytes.read(atMost: Swift.max(reader.bytesNeeded, Self.chunkSize))
                if chunk.isEmpty {
                    reader.finish()
                } else {
                    reader.append(chunk)
                }
            }
        }
    }
}
