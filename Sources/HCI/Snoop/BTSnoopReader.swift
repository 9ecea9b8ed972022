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
    private let bytes: [UInt8]
    private var offset: Int
    private var recordIndex = 0

    /// Reads the file header; records are read by `next()`.
    public init(bytes: [UInt8]) throws(BTSnoopError) {
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
        self.bytes = bytes
        self.offset = BTSnoopFormat.fileHeaderLength
    }

    /// Reads the file at `path`.
    public init(contentsOf path: String) throws(BTSnoopError) {
        try self.init(bytes: try BTSnoopFileIO.readAll(path))
    }

    /// The next HCI packet record, or `nil` at the end of the file.
    public mutating func next() throws(BTSnoopError) -> BTSnoopRecord? {
        while offset < bytes.count {
            let recordOffset = offset
            let index = recordIndex
            guard bytes.count - offset >= BTSnoopFormat.recordHeaderLength else {
                throw .truncatedRecord(index: index, offset: recordOffset)
            }
            let originalLength = Int(Self.bigEndianUInt32(bytes, at: offset))
            let includedLength = Int(Self.bigEndianUInt32(bytes, at: offset + 4))
            let flags = Self.bigEndianUInt32(bytes, at: offset + 8)
            let drops = Self.bigEndianUInt32(bytes, at: offset + 12)
            let timestamp = Int64(bitPattern: Self.bigEndianUInt64(bytes, at: offset + 16))
            let dataStart = offset + BTSnoopFormat.recordHeaderLength
            guard includedLength <= bytes.count - dataStart else {
                throw .truncatedRecord(index: index, offset: recordOffset)
            }
            guard includedLength <= originalLength else {
                throw .invalidRecord(index: index, offset: recordOffset,
                                     reason: "it holds \(includedLength) bytes of a \(originalLength)-byte packet")
            }
            let data = bytes[dataStart..<(dataStart + includedLength)]
            offset = dataStart + includedLength
            recordIndex += 1
            let unixMicroseconds = timestamp &- BTSnoopFormat.unixEpochOffset
            let decoded: (packet: HCIPacket, direction: BTSnoopDirection, controllerIndex: UInt16?)?
            do {
                decoded = try decode(data, flags: flags)
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
        return nil
    }

    /// Every remaining record.
    public mutating func readAll() throws(BTSnoopError) -> [BTSnoopRecord] {
        var records: [BTSnoopRecord] = []
        while let record = try next() {
            records.append(record)
        }
        return records
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
                throw RecordProblem(reason: "unknown H4 packet indicator \(hexString(indicator))")
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
