/// Reads a btsnoop capture record by record, trusting nothing in it: every length is
/// checked against the bytes present and every failure is a `BTSnoopError` naming the
/// record and its offset.
///
/// Reads datalinks 1002 (HCI UART, what `BTSnoopWriter` writes), 1001 (un-encapsulated
/// HCI; the flags tell command, event or data — SCO cannot be told from ACL there and
/// reads as ACL) and 2001 (Linux monitor, as btmon writes; records that are not HCI
/// packets, such as index or system notes, are skipped).
public struct BTSnoopReader {
    public let datalink: BTSnoopDatalink
    /// The bytes fed and not yet read, and where they are in the file.
    private var input: CaptureBuffer
    private var recordIndex = 0
    /// Where the record `next()` returned last starts: its number from 0 and its byte offset.
    public private(set) var lastRecordPosition = (index: 0, offset: 0)

    /// Reads the file header from the first 16 bytes of `prefix`, and keeps the rest of
    /// `prefix` as the start of the records. More bytes come through `append(_:)`; the
    /// reader holds only what is not read yet, so a capture of any length is read in
    /// bounded memory when it is fed in chunks.
    public init(prefix bytes: [UInt8]) throws(BTSnoopError) {
        let comparable = min(bytes.count, BTSnoopFormat.magic.count)
        guard bytes.prefix(comparable).elementsEqual(BTSnoopFormat.magic.prefix(comparable)) else {
            throw .notBTSnoop
        }
        guard bytes.count >= BTSnoopFormat.fileHeaderLength else {
            throw .truncatedFileHeader(length: bytes.count)
        }
        let version = Self.bigEndianUInt32(bytes, at: 8)
        guard version == BTSnoopFormat.version else { throw .unsupportedVersion(version) }
        let datalinkValue = Self.bigEndianUInt32(bytes, at: 12)
        guard let datalink = BTSnoopDatalink(rawValue: datalinkValue) else {
            throw .unsupportedDatalink(datalinkValue)
        }
        self.datalink = datalink
        self.input = CaptureBuffer(bytes: bytes, start: BTSnoopFormat.fileHeaderLength)
    }

    /// Reads a whole capture held in memory.
    public init(bytes: [UInt8]) throws(BTSnoopError) {
        try self.init(prefix: bytes)
        finish()
    }

    /// More bytes of the capture, in file order.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        input.append(bytes)
    }

    /// No more bytes will come: a record cut short is then `truncatedRecord`.
    public mutating func finish() {
        input.ended = true
    }

    /// Whether `finish()` was called.
    public var isFinished: Bool { input.ended }

    /// Bytes held: fed and not read yet, plus at most one chunk already read (a measure of
    /// the reader's memory, whatever the capture's length).
    public var bufferedByteCount: Int { input.bytes.count }

    /// How many more bytes `next()` needs before it can say anything (0 when it can).
    public var bytesNeeded: Int {
        let available = input.bytes.count - input.start
        guard available >= BTSnoopFormat.recordHeaderLength else {
            return BTSnoopFormat.recordHeaderLength - available
        }
        let includedLength = Int(Self.bigEndianUInt32(input.bytes, at: input.start + 4))
        guard includedLength <= BTSnoopFormat.maximumRecordLength else { return 0 }
        return max(0, BTSnoopFormat.recordHeaderLength + includedLength - available)
    }

    /// The next HCI packet record; `nil` at the end of the capture, or, before `finish()`,
    /// when the bytes fed so far hold no whole record (`bytesNeeded` says how many more).
    ///
    /// A record whose lengths no HCI packet can have, or whose packet says another length
    /// than the record, is corrupt: an error naming it, never "the capture ended early".
    /// A record cut off by the end of the capture is `truncatedRecord`.
    public mutating func next() throws(BTSnoopError) -> BTSnoopRecord? {
        while true {
            let available = input.bytes.count - input.start
            guard available > 0 || !input.ended else { return nil }
            let recordOffset = input.offset + input.start
            let index = recordIndex
            guard available >= BTSnoopFormat.recordHeaderLength else {
                if input.ended { throw .truncatedRecord(index: index, offset: recordOffset) }
                return nil
            }
            let originalLength = Int(Self.bigEndianUInt32(input.bytes, at: input.start))
            let includedLength = Int(Self.bigEndianUInt32(input.bytes, at: input.start + 4))
            let flags = Self.bigEndianUInt32(input.bytes, at: input.start + 8)
            let drops = Self.bigEndianUInt32(input.bytes, at: input.start + 12)
            let timestamp = Int64(bitPattern: Self.bigEndianUInt64(input.bytes, at: input.start + 16))
            // Checked before waiting for the data: a corrupt length must not make the reader
            // wait for (or hold) gigabytes.
            guard includedLength <= originalLength else {
                throw .invalidRecord(index: index, offset: recordOffset,
                                     reason: "it holds \(includedLength) bytes of a \(originalLength)-byte packet")
            }
            guard originalLength <= BTSnoopFormat.maximumRecordLength else {
                throw .invalidRecord(index: index, offset: recordOffset,
                                     reason: "its length \(originalLength) is beyond any HCI packet (at most \(BTSnoopFormat.maximumRecordLength) bytes)")
            }
            let dataStart = input.start + BTSnoopFormat.recordHeaderLength
            guard includedLength <= input.bytes.count - dataStart else {
                if input.ended { throw .truncatedRecord(index: index, offset: recordOffset) }
                return nil
            }
            let data = input.bytes[dataStart..<(dataStart + includedLength)]
            input.start = dataStart + includedLength
            recordIndex += 1
            lastRecordPosition = (index, recordOffset)
            let unixMicroseconds = timestamp &- BTSnoopFormat.unixEpochOffset
            let decoded: (packet: HCIPacket, direction: BTSnoopDirection, controllerIndex: UInt16?)?
            do {
                decoded = try decode(data, flags: flags)
                if let decoded, includedLength == originalLength {
                    try Self.checkOwnLength(of: decoded.packet, recordLength: includedLength, datalink: datalink)
                }
            } catch {
                throw .invalidRecord(index: index, offset: recordOffset, reason: error.reason)
            }
            guard let decoded else { continue }  // a monitor record that is not an HCI packet
            // `originalLength` counts the H4 indicator for 1002 only; count it everywhere.
            let indicatorAdjustment = datalink == .hciUART ? 0 : 1
            return BTSnoopRecord(
                packet: decoded.packet, direction: decoded.direction, unixMicroseconds: unixMicroseconds,
                originalLength: originalLength + indicatorAdjustment, cumulativeDrops: drops,
                controllerIndex: decoded.controllerIndex)
        }
    }

    /// Every remaining record.
    public mutating func readAll() throws(BTSnoopError) -> [BTSnoopRecord] {
        var records: [BTSnoopRecord] = []
        while let record = try next() {
            records.append(record)
        }
        return records
    }

    /// A whole packet states its own length in its header (Core v5.4 Vol 4 Part E 5.4:
    /// command `opcode(2) plen(1)`, ACL `handle(2) length(2)`, SCO `handle(2) length(1)`,
    /// event `code(1) plen(1)`, ISO `handle(2) length(2)` with 14 bits of length). A record
    /// whose length disagrees was cut or stitched wrongly: corruption, said here rather
    /// than read as a wrong packet. ACL in a 1001 capture may be SCO (its flags cannot
    /// tell), so it is not checked there.
    private static func checkOwnLength(of packet: HCIPacket, recordLength: Int, datalink: BTSnoopDatalink) throws(RecordProblem) {
        let body = packet.body
        let stated: Int?
        switch packet.type {
        case .command: stated = body.count >= 3 ? 3 + Int(body[2]) : nil
        case .event: stated = body.count >= 2 ? 2 + Int(body[1]) : nil
        case .acl where datalink == .hciUnencapsulated: return
        case .acl: stated = body.count >= 4 ? 4 + (Int(body[2]) | Int(body[3]) << 8) : nil
        case .sco: stated = body.count >= 3 ? 3 + Int(body[2]) : nil
        case .iso: stated = body.count >= 4 ? 4 + ((Int(body[2]) | Int(body[3]) << 8) & 0x3FFF) : nil
        }
        guard let stated else {
            throw RecordProblem(reason: "its \(packet.type) packet of \(body.count) bytes is shorter than a \(packet.type) header")
        }
        guard stated == body.count else {
            throw RecordProblem(reason: "its \(packet.type) packet says it has \(stated) bytes, the record holds \(body.count) (the record length \(recordLength) is corrupt, or the packet is)")
        }
    }

    private struct RecordProblem: Error {
        var reason: String
    }

    private func decode(_ data: ArraySlice<UInt8>, flags: UInt32) throws(RecordProblem)
        -> (packet: HCIPacket, direction: BTSnoopDirection, controllerIndex: UInt16?)? {
        let received = flags & BTSnoopFormat.receivedFlag != 0
        switch datalink {
        case .hciUART:
            guard let indicator = data.first else {
                throw RecordProblem(reason: "it is empty; an H4 record starts with the packet indicator")
            }
            guard let type = HCIPacketType(rawValue: indicator) else {
                throw RecordProblem(reason: "unknown H4 packet indicator \(HexText.code(indicator))")
            }
            return (HCIPacket(type: type, body: Array(data.dropFirst())), received ? .controllerToHost : .hostToController, nil)
        case .hciUnencapsulated:
            let type: HCIPacketType
            if flags & BTSnoopFormat.commandOrEventFlag != 0 {
                type = received ? .event : .command
            } else {
                type = .acl
            }
            return (HCIPacket(type: type, body: Array(data)), received ? .controllerToHost : .hostToController, nil)
        case .linuxMonitor:
            // Flags: controller index in the high 16 bits, monitor opcode in the low 16
            // (BlueZ monitor protocol).
            let index = UInt16(truncatingIfNeeded: flags >> 16)
            let kind: (HCIPacketType, BTSnoopDirection)
            switch flags & 0xFFFF {
            case 2: kind = (.command, .hostToController)
            case 3: kind = (.event, .controllerToHost)
            case 4: kind = (.acl, .hostToController)
            case 5: kind = (.acl, .controllerToHost)
            case 6: kind = (.sco, .hostToController)
            case 7: kind = (.sco, .controllerToHost)
            case 18: kind = (.iso, .hostToController)
            case 19: kind = (.iso, .controllerToHost)
            default: return nil
            }
            return (HCIPacket(type: kind.0, body: Array(data)), kind.1, index)
        }
    }

    private static func bigEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func bigEndianUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
