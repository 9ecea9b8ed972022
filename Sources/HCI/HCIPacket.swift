/// The HCI packet kinds and their H4 indicator bytes (Core Spec v5.4, Vol 4, Part A, 2).
public enum HCIPacketType: UInt8, Sendable, CaseIterable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05
}

/// One whole HCI packet as it crosses a transport: its kind and the bytes that follow the
/// H4 indicator (for a command: opcode, length, parameters; for an event: code, length,
/// parameters). Transports move these; typed commands and events are built on top.
public struct HCIPacket: Hashable, Sendable {
    public var type: HCIPacketType
    public var body: [UInt8]

    public init(type: HCIPacketType, body: [UInt8]) {
        self.type = type
        self.body = body
    }

    /// The packet as H4 framing puts it on a byte stream: indicator, then body.
    public var h4Bytes: [UInt8] { [type.rawValue] + body }
}
