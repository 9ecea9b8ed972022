/// An HCI ACL data packet (Core v5.4 Vol 4 Part E 5.4.2):
/// `handle u12 | packet_boundary u2 | broadcast u2 | data_total_length u16 | data`.
/// On LE it carries L2CAP frames, cut into fragments the controller's buffers can hold.
public struct ACLDataPacket: Hashable, Sendable {
    /// Packet_Boundary_Flag (Core v5.4 Vol 4 Part E 5.4.2).
    public enum Boundary: UInt8, Hashable, Sendable, CaseIterable {
        /// Host to controller, first fragment of a frame: the only "first" value LE allows.
        case firstNonFlushable = 0b00
        /// Either direction: a later fragment of the frame in progress.
        case continuation = 0b01
        /// Controller to host on BR/EDR; some LE controllers use it for first fragments too.
        case firstFlushable = 0b10
        /// A complete, automatically flushable frame (BR/EDR only; decoded, never sent here).
        case complete = 0b11

        /// Whether this fragment begins a new L2CAP frame.
        public var startsFrame: Bool { self != .continuation }
    }

    /// The largest connection handle (0x0EFF, 5.4.2): values above are reserved.
    public static let maximumHandle: UInt16 = 0x0EFF

    /// 12 significant bits.
    public var handle: UInt16
    public var boundary: Boundary
    /// Broadcast_Flag: 0b00 (point to point) for everything LE sends.
    public var broadcast: UInt8
    public var data: [UInt8]

    public init(handle: UInt16, boundary: Boundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0b11
        self.data = data
    }

    /// Decodes an ACL packet; the length field must match the data present.
    public init(packet: HCIPacket) throws(HCIDecodingError) {
        guard packet.type == .acl else {
            throw .wrongPacketType(expected: .acl, found: packet.type)
        }
        var reader = HCIByteReader(packet.body, structure: "ACL data packet")
        let field = try reader.readUInt16()
        let length = Int(try reader.readUInt16())
        guard length == reader.remainingCount else {
            throw .lengthMismatch(structure: "ACL data packet", declared: length, actual: reader.remainingCount)
        }
        let handle = field & 0x0FFF
        guard handle <= Self.maximumHandle else {
            throw reader.invalid("connection handle", handle, expected: "0x000 to 0xEFF")
        }
        // Two bits always name a case.
        let boundary = Boundary(rawValue: UInt8(truncatingIfNeeded: field >> 12) & 0b11) ?? .continuation
        self.init(handle: handle, boundary: boundary, broadcast: UInt8(truncatingIfNeeded: field >> 14), data: Array(reader.readRemaining()))
    }

    /// The packet as a transport moves it; fails when the data exceeds the 16-bit length.
    public func packet() throws(HCIParameterError) -> HCIPacket {
        guard data.count <= Int(UInt16.max) else {
            throw HCIParameterError("an ACL data packet carries at most 65535 bytes, this one has \(data.count)")
        }
        var body: [UInt8] = []
        body.reserveCapacity(4 + data.count)
        let field = handle & 0x0FFF | UInt16(boundary.rawValue) << 12 | UInt16(broadcast & 0b11) << 14
        body.appendLittleEndian(field)
        body.appendLittleEndian(UInt16(truncatingIfNeeded: data.count))
        body += data
        return HCIPacket(type: .acl, body: body)
    }
}
