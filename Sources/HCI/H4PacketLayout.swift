/// Where each HCI packet kind keeps its length field, so that bytes can be cut into whole
/// packets and outgoing packets can be checked before they reach a controller.
///
/// Header layouts (all multi-byte fields little-endian), Core v5.4 Vol 4 Part E:
/// - 5.4.1 command: opcode (2), parameter length (1)
/// - 5.4.2 ACL data: handle + flags (2), data length (2)
/// - 5.4.3 synchronous (SCO) data: handle + flags (2), data length (1)
/// - 5.4.4 event: event code (1), parameter length (1)
/// - 5.4.5 ISO data: handle + flags (2), data load length (14 bits) + RFU (2 bits)
public enum H4PacketLayout {
    /// Header bytes after the H4 indicator, up to and including the length field.
    public static func headerLength(of type: HCIPacketType) -> Int {
        switch type {
        case .command: 3
        case .acl: 4
        case .sco: 3
        case .event: 2
        case .iso: 4
        }
    }

    /// The largest payload the length field of this packet kind can declare.
    public static func largestDeclarablePayload(of type: HCIPacketType) -> Int {
        switch type {
        case .command, .sco, .event: Int(UInt8.max)
        case .acl: Int(UInt16.max)
        case .iso: 0x3FFF
        }
    }

    /// The payload length a header declares, or `nil` when `header` is shorter than
    /// ``headerLength(of:)``. `header` starts right after the indicator byte.
    public static func declaredPayloadLength<Header: Collection<UInt8>>(
        of type: HCIPacketType, header: Header
    ) -> Int? {
        let bytes = Array(header.prefix(headerLength(of: type)))
        guard bytes.count == headerLength(of: type) else { return nil }
        switch type {
        case .command, .sco:
            return Int(bytes[2])
        case .event:
            return Int(bytes[1])
        case .acl:
            return Int(bytes[2]) | Int(bytes[3]) << 8
        case .iso:
            // The top two bits of the second length byte are RFU, not length.
            return (Int(bytes[2]) | Int(bytes[3]) << 8) & 0x3FFF
        }
    }

    /// Checks that a packet's header agrees with its body, so a malformed packet is refused
    /// here instead of desynchronising (or, for RootCanal, aborting) the controller.
    public static func validate(_ packet: HCIPacket) throws(HCITransportError) {
        if let problem = layoutProblem(of: packet) {
            throw HCITransportError(
                .framing, "refusing to send a malformed \(kindName(packet.type)) packet: \(problem)")
        }
    }

    /// Decodes bytes that hold exactly one packet, indicator first: what one read from a
    /// Linux kernel HCI socket returns. Anything else is a `.framing` error.
    public static func decodeWholePacket<Bytes: Collection<UInt8>>(
        _ bytes: Bytes
    ) throws(HCITransportError) -> HCIPacket {
        guard let indicator = bytes.first else {
            throw HCITransportError(.framing, "received an empty packet")
        }
        guard let type = HCIPacketType(rawValue: indicator) else {
            throw HCITransportError(
                .framing,
                "received a packet with unknown indicator \(HexText.code(indicator)) "
                    + "(expected \(knownIndicators))")
        }
        let packet = HCIPacket(type: type, body: Array(bytes.dropFirst()))
        if let problem = layoutProblem(of: packet) {
            throw HCITransportError(
                .framing, "received a malformed \(kindName(type)) packet: \(problem)")
        }
        return packet
    }

    /// Why a packet's body disagrees with its header, or `nil` when it is whole.
    static func layoutProblem(of packet: HCIPacket) -> String? {
        let headerLength = headerLength(of: packet.type)
        guard let declared = declaredPayloadLength(of: packet.type, header: packet.body) else {
            return "it stops after \(packet.body.count) of its \(headerLength) header bytes"
        }
        let carried = packet.body.count - headerLength
        guard declared == carried else {
            return "its header declares \(declared) payload bytes, the packet carries \(carried)"
        }
        return nil
    }

    /// "command", "ACL data", … as people reading a capture call them.
    static func kindName(_ type: HCIPacketType) -> String {
        switch type {
        case .command: "command"
        case .acl: "ACL data"
        case .sco: "SCO data"
        case .event: "event"
        case .iso: "ISO data"
        }
    }

    /// The valid indicator bytes, for error messages.
    static let knownIndicators =
        "01 command, 02 ACL, 03 SCO, 04 event or 05 ISO"
}
