/// An event from the controller, decoded from an event packet
/// (Core v5.4 Vol 4 Part E 5.4.4): `code u8 | length u8 | parameters`.
///
/// Decoding never traps and never drops an event it does not know: unknown codes and
/// LE subevents are kept raw. Length rules:
/// - the length octet must equal the parameter bytes present;
/// - events with a fixed layout may carry bytes after their last field, which are ignored,
///   as the Linux kernel does (later Core versions append fields);
/// - report events must be filled exactly by their reports: every report carries its own
///   length, so leftover bytes mean the report count or a length is wrong.
public enum HCIEvent: Hashable, Sendable {
    case commandComplete(CommandComplete)
    case commandStatus(CommandStatus)
    /// Hardware Error (7.7.16): the controller hit a fault; it usually needs a Reset.
    case hardwareError(code: UInt8)
    case disconnectionComplete(DisconnectionComplete)
    /// Number Of Completed Packets (7.7.19): the controller's ACL buffers freed, per handle.
    case numberOfCompletedPackets(NumberOfCompletedPackets)
    case le(LEMetaEvent)
    case unknown(code: HCIEventCode, parameters: [UInt8])

    public static let maximumParameterLength = 255

    /// Decodes an event packet; any other packet type is an error.
    public init(packet: HCIPacket) throws(HCIDecodingError) {
        guard packet.type == .event else {
            throw .wrongPacketType(expected: .event, found: packet.type)
        }
        try self.init(body: packet.body[...])
    }

    /// Decodes an event body: code, length, parameters.
    public init(body: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var reader = HCIByteReader(body, structure: "HCI event packet")
        let code = HCIEventCode(rawValue: try reader.readUInt8())
        let length = Int(try reader.readUInt8())
        guard length == reader.remainingCount else {
            throw .lengthMismatch(structure: "\(code) event packet", declared: length, actual: reader.remainingCount)
        }
        try self.init(code: code, parameters: reader.readRemaining())
    }

    /// Decodes the parameters of an event whose code is known.
    public init(code: HCIEventCode, parameters: ArraySlice<UInt8>) throws(HCIDecodingError) {
        switch code {
        case .commandComplete:
            self = .commandComplete(try CommandComplete(parameters: parameters))
        case .commandStatus:
            self = .commandStatus(try CommandStatus(parameters: parameters))
        case .hardwareError:
            var reader = HCIByteReader(parameters, structure: "Hardware Error event")
            self = .hardwareError(code: try reader.readUInt8())
        case .disconnectionComplete:
            self = .disconnectionComplete(try DisconnectionComplete(parameters: parameters))
        case .numberOfCompletedPackets:
            self = .numberOfCompletedPackets(try NumberOfCompletedPackets(parameters: parameters))
        case .leMeta:
            self = .le(try LEMetaEvent(parameters: parameters))
        default:
            self = .unknown(code: code, parameters: Array(parameters))
        }
    }

    public var code: HCIEventCode {
        switch self {
        case .commandComplete: return .commandComplete
        case .commandStatus: return .commandStatus
        case .hardwareError: return .hardwareError
        case .disconnectionComplete: return .disconnectionComplete
        case .numberOfCompletedPackets: return .numberOfCompletedPackets
        case .le: return .leMeta
        case .unknown(let code, _): return code
        }
    }

    /// Appends the event's parameters (not the code nor the length octet).
    public func encodeParameters(into bytes: inout [UInt8]) {
        switch self {
        case .commandComplete(let event): event.encodeParameters(into: &bytes)
        case .commandStatus(let event): event.encodeParameters(into: &bytes)
        case .hardwareError(let code): bytes.append(code)
        case .disconnectionComplete(let event): event.encodeParameters(into: &bytes)
        case .numberOfCompletedPackets(let event): event.encodeParameters(into: &bytes)
        case .le(let event): event.encodeParameters(into: &bytes)
        case .unknown(_, let parameters): bytes += parameters
        }
    }

    /// The event as a packet; fails when its parameters exceed 255 bytes (too many or too
    /// long reports for one event: split them).
    public func packet() throws(HCIParameterError) -> HCIPacket {
        var parameters: [UInt8] = []
        encodeParameters(into: &parameters)
        guard parameters.count <= Self.maximumParameterLength else {
            throw HCIParameterError("\(code) event has \(parameters.count) parameter bytes; an event carries at most 255 (split the reports over several events)")
        }
        return HCIPacket(type: .event, body: [code.rawValue, UInt8(truncatingIfNeeded: parameters.count)] + parameters)
    }
}

extension HCIEvent {
    /// Command Complete (Core v5.4 Vol 4 Part E 7.7.14):
    /// `num_hci_command_packets u8 | opcode u16 | return_parameters`.
    public struct CommandComplete: Hashable, Sendable {
        /// How many commands the host may now send (credits, not an increment).
        public var numHCICommandPackets: UInt8
        /// The command answered, or 0x0000 when the event only returns credits.
        public var opcode: HCIOpcode
        /// Raw return parameters, status first for every command we use.
        public var returnParameters: [UInt8]

        public init(numHCICommandPackets: UInt8, opcode: HCIOpcode, returnParameters: [UInt8]) {
            self.numHCICommandPackets = numHCICommandPackets
            self.opcode = opcode
            self.returnParameters = returnParameters
        }

        /// Builds the answer to `Command` from its status and (on success) return parameters.
        public init<Command: HCICommand>(
            numHCICommandPackets: UInt8 = 1, answering command: Command.Type, status: HCIStatus = .success,
            returnParameters: Command.ReturnParameters
        ) {
            var bytes: [UInt8] = [status.rawValue]
            if status == .success {
                Command.encodeReturnParameters(returnParameters, into: &bytes)
            }
            self.init(numHCICommandPackets: numHCICommandPackets, opcode: Command.opcode, returnParameters: bytes)
        }

        /// A successful answer to a command without return parameters.
        public init<Command: HCICommand>(numHCICommandPackets: UInt8 = 1, answering command: Command.Type)
        where Command.ReturnParameters == Void {
            self.init(numHCICommandPackets: numHCICommandPackets, opcode: Command.opcode, returnParameters: [HCIStatus.success.rawValue])
        }

        /// A refusal: the status alone, as controllers send when a command fails.
        public init<Command: HCICommand>(numHCICommandPackets: UInt8 = 1, answering command: Command.Type, failure status: HCIStatus) {
            self.init(numHCICommandPackets: numHCICommandPackets, opcode: Command.opcode, returnParameters: [status.rawValue])
        }

        init(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) {
            var reader = HCIByteReader(parameters, structure: "Command Complete event")
            numHCICommandPackets = try reader.readUInt8()
            opcode = HCIOpcode(rawValue: try reader.readUInt16())
            returnParameters = Array(reader.readRemaining())
        }

        func encodeParameters(into bytes: inout [UInt8]) {
            bytes.append(numHCICommandPackets)
            bytes.appendLittleEndian(opcode.rawValue)
            bytes += returnParameters
        }

        /// The first return parameter read as a status; `nil` when there is none (NOP).
        public var status: HCIStatus? {
            returnParameters.first.map(HCIStatus.init(rawValue:))
        }
    }

    /// Command Status (Core v5.4 Vol 4 Part E 7.7.15):
    /// `status u8 | num_hci_command_packets u8 | opcode u16`.
    public struct CommandStatus: Hashable, Sendable {
        public var status: HCIStatus
        public var numHCICommandPackets: UInt8
        public var opcode: HCIOpcode

        public init(status: HCIStatus, numHCICommandPackets: UInt8, opcode: HCIOpcode) {
            self.status = status
            self.numHCICommandPackets = numHCICommandPackets
            self.opcode = opcode
        }

        init(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) {
            var reader = HCIByteReader(parameters, structure: "Command Status event")
            status = HCIStatus(rawValue: try reader.readUInt8())
            numHCICommandPackets = try reader.readUInt8()
            opcode = HCIOpcode(rawValue: try reader.readUInt16())
        }

        func encodeParameters(into bytes: inout [UInt8]) {
            bytes.append(status.rawValue)
            bytes.append(numHCICommandPackets)
            bytes.appendLittleEndian(opcode.rawValue)
        }
    }

    /// Disconnection Complete (Core v5.4 Vol 4 Part E 7.7.5):
    /// `status u8 | connection_handle u16 | reason u8`.
    public struct DisconnectionComplete: Hashable, Sendable {
        public var status: HCIStatus
        /// 12 significant bits (0x000–0xEFF).
        public var connectionHandle: UInt16
        public var reason: HCIStatus

        public init(status: HCIStatus, connectionHandle: UInt16, reason: HCIStatus) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.reason = reason
        }

        init(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) {
            var reader = HCIByteReader(parameters, structure: "Disconnection Complete event")
            status = HCIStatus(rawValue: try reader.readUInt8())
            connectionHandle = try reader.readUInt16()
            reason = HCIStatus(rawValue: try reader.readUInt8())
        }

        func encodeParameters(into bytes: inout [UInt8]) {
            bytes.append(status.rawValue)
            bytes.appendLittleEndian(connectionHandle)
            bytes.append(reason.rawValue)
        }
    }
}
