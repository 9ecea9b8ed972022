import BeaconCore

/// The btsnoop record format for `FramingReader` (RFC 1761's snoop layout as btsnoop uses
/// it, big-endian: `original_length u32 | included_length u32 | flags u32 | drops u32 |
/// timestamp i64 | data`), trusting nothing in it: every length is checked against the
/// bytes present and a cap before anything is waited for, and every failure is a
/// `BTSnoopError` naming the record and its offset. The file header is `BTSnoopReader`'s.
public struct BTSnoopRecordDecoder: RecordDecoder {
    public let datalink: BTSnoopDatalink

    public init(datalink: BTSnoopDatalink) {
        self.datalink = datalink
    }

    /// A record whose lengths no HCI packet can have, or whose packet says another length
    /// than the record, is corrupt: an error naming it, never "the capture ended early".
    /// Records of a Linux monitor capture that are not HCI packets are skipped.
    public mutating func decode(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(BTSnoopError)
        -> DecodingStep<BTSnoopRecord> {
        let (index, recordOffset) = position
        guard bytes.count - start >= BTSnoopFormat.recordHeaderLength else {
            return .needMore(total: BTSnoopFormat.recordHeaderLength)
        }
        let originalLength = Int(Self.bigEndianUInt32(bytes, at: start))
        let includedLength = Int(Self.bigEndianUInt32(bytes, at: start + 4))
        let flags = Self.bigEndianUInt32(bytes, at: start + 8)
        let drops = Self.bigEndianUInt32(bytes, at: start + 12)
        let timestamp = Int64(bitPattern: Self.bigEndianUInt64(bytes, at: start + 16))
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
        let dataStart = start + BTSnoopFormat.recordHeaderLength
        guard includedLength <= bytes.count - dataStart else {
            return .needMore(total: BTSnoopFormat.recordHeaderLength + includedLength)
        }
        let data = bytes[dataStart..<(dataStart + includedLength)]
        let consumed = BTSnoopFormat.recordHeaderLength + includedLength
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
        guard let decoded else { return .skip(consumed: consumed, counted: true) }  // a monitor record that is not an HCI packet
        // `originalLength` counts the H4 indicator for 1002 only; count it everywhere.
        let indicatorAdjustment = datalink == .hciUART ? 0 : 1
        let record = BTSnoopRecord(
            packet: decoded.packet, direction: decoded.direction, unixMicroseconds: unixMicroseconds,
            originalLength: originalLength + indicatorAdjustment, cumulativeDrops: drops,
            controllerIndex: decoded.controllerIndex)
        return .record(record, consumed: consumed)
    }

    /// A record cut off by the end of the capture is `truncatedRecord`.
    public func decodeLast(_ bytes: [UInt8], from start: Int, position: RecordPosition) throws(BTSnoopError) -> BTSnoopRecord? {
        guard start == bytes.count else { throw .truncatedRecord(index: position.index, offset: position.offset) }
        return nil
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

    static func bigEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func bigEndianUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
