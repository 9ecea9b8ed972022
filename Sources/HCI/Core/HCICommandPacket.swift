/// A command packet with its opcode known and its parameters raw
/// (Core v5.4 Vol 4 Part E 5.4.1): `opcode LE16 | length u8 | parameters`.
///
/// The bridge between typed commands and packets, in both directions: a host builds one
/// from an `HCICommand`; a virtual controller reads one off a transport, looks at the opcode
/// and decodes the parameters with the matching command type.
public struct HCICommandPacket: Hashable, Sendable, CustomStringConvertible {
    public let opcode: HCIOpcode
    /// At most 255 bytes: the length field is one octet.
    public let parameters: [UInt8]

    public static let maximumParameterLength = 255

    public init(opcode: HCIOpcode, parameters: [UInt8] = []) throws(HCIParameterError) {
        guard parameters.count <= Self.maximumParameterLength else {
            throw HCIParameterError("\(opcode.displayName) has \(parameters.count) parameter bytes; a command carries at most 255")
        }
        self.opcode = opcode
        self.parameters = parameters
    }

    public init<Command: HCICommand>(_ command: Command) throws(HCIParameterError) {
        try self.init(opcode: Command.opcode, parameters: command.encodedParameters)
    }

    /// Reads a command packet; its length octet must match the bytes present exactly.
    public init(packet: HCIPacket) throws(HCIDecodingError) {
        guard packet.type == .command else {
            throw .wrongPacketType(expected: .command, found: packet.type)
        }
        var reader = HCIByteReader(packet.body, structure: "HCI command packet")
        let opcode = HCIOpcode(rawValue: try reader.readUInt16())
        let length = Int(try reader.readUInt8())
        guard length == reader.remainingCount else {
            throw .lengthMismatch(structure: "\(opcode.displayName) command packet", declared: length, actual: reader.remainingCount)
        }
        self.opcode = opcode
        self.parameters = Array(reader.readRemaining())
    }

    public var packet: HCIPacket {
        var body: [UInt8] = []
        body.reserveCapacity(3 + parameters.count)
        body.appendLittleEndian(opcode.rawValue)
        body.append(UInt8(truncatingIfNeeded: parameters.count))
        body += parameters
        return HCIPacket(type: .command, body: body)
    }

    /// Decodes the parameters as `Command`; fails when the opcode is another command's.
    public func decode<Command: HCICommand>(as type: Command.Type) throws(HCIDecodingError) -> Command {
        guard opcode == Command.opcode else {
            throw .wrongOpcode(expected: Command.opcode, found: opcode)
        }
        return try Command.decodeParameters(parameters[...])
    }

    public var description: String {
        parameters.isEmpty ? opcode.description : "\(opcode) [\(HexText.bytes(parameters))]"
    }
}
