import HCI

/// A command on the LE signalling channel (Core v5.4 Vol 3 Part A 4):
/// `code u8 | identifier u8 | length u16 | data`. On LE one C-frame carries one command.
public struct LESignallingCommand: Hashable, Sendable {
    public enum Code {
        public static let commandReject: UInt8 = 0x01
        public static let disconnectionResponse: UInt8 = 0x07
        public static let connectionParameterUpdateRequest: UInt8 = 0x12
        public static let connectionParameterUpdateResponse: UInt8 = 0x13
        public static let leCreditBasedConnectionResponse: UInt8 = 0x15
        public static let flowControlCredit: UInt8 = 0x16
        public static let creditBasedConnectionResponse: UInt8 = 0x18
        public static let creditBasedReconfigureResponse: UInt8 = 0x1A
    }

    /// The smallest signalling MTU an LE device must accept (MTUsig, 4.1): 23 bytes.
    public static let minimumSignallingMTU = 23

    public var code: UInt8
    /// Matches a response to its request; 0x00 is not a valid identifier (4).
    public var identifier: UInt8
    public var data: [UInt8]

    public init(code: UInt8, identifier: UInt8, data: [UInt8]) {
        self.code = code
        self.identifier = identifier
        self.data = data
    }

    public init(payload: [UInt8]) throws(HCIDecodingError) {
        var reader = HCIByteReader(payload, structure: "L2CAP signalling command")
        code = try reader.readUInt8()
        identifier = try reader.readUInt8()
        let length = Int(try reader.readUInt16())
        guard length == reader.remainingCount else {
            throw .lengthMismatch(structure: "L2CAP signalling command", declared: length, actual: reader.remainingCount)
        }
        data = Array(reader.readRemaining())
    }

    public var payload: [UInt8] {
        var bytes = [code, identifier]
        bytes.appendLittleEndian(UInt16(truncatingIfNeeded: data.count))
        return bytes + data
    }

    /// Command Reject (4.1): `reason u16 | data`; 0x0000 "command not understood",
    /// 0x0001 "signalling MTU exceeded" (data: the MTU).
    public static func commandReject(identifier: UInt8, reason: UInt16, data: [UInt8] = []) -> LESignallingCommand {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(reason)
        return LESignallingCommand(code: Code.commandReject, identifier: identifier, data: bytes + data)
    }
}

/// Connection Parameter Update Request (Core v5.4 Vol 3 Part A 4.20):
/// `interval_min u16 | interval_max u16 | latency u16 | timeout u16`.
public struct ConnectionParameterUpdateRequest: Hashable, Sendable {
    public var intervalMinimum: UInt16
    public var intervalMaximum: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    public init(intervalMinimum: UInt16, intervalMaximum: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.intervalMinimum = intervalMinimum
        self.intervalMaximum = intervalMaximum
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    public init(data: [UInt8]) throws(HCIDecodingError) {
        var reader = HCIByteReader(data, structure: "Connection Parameter Update Request")
        intervalMinimum = try reader.readUInt16()
        intervalMaximum = try reader.readUInt16()
        latency = try reader.readUInt16()
        supervisionTimeout = try reader.readUInt16()
        try reader.expectEnd()
    }

    public var data: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(intervalMinimum)
        bytes.appendLittleEndian(intervalMaximum)
        bytes.appendLittleEndian(latency)
        bytes.appendLittleEndian(supervisionTimeout)
        return bytes
    }

    /// The parameters when they are within the ranges a central can accept (4.20 and Core
    /// v5.4 Vol 4 Part E 7.8.18), `nil` otherwise.
    public var acceptable: LEConnectionParameters? {
        try? LEConnectionParameters(
            intervalMinimum: intervalMinimum, intervalMaximum: intervalMaximum, maximumLatency: latency,
            supervisionTimeout: supervisionTimeout)
    }
}

/// What the central does with one signalling C-frame: a reply to send, and parameters to
/// apply with LE Connection Update when it accepted a peripheral's request.
public struct LESignallingAnswer: Hashable, Sendable {
    public var reply: LESignallingCommand?
    public var connectionUpdate: LEConnectionParameters?

    /// Answers a C-frame's payload as a central without dynamic channels: parameter
    /// requests accepted within the valid ranges (result 0x0000) or rejected (0x0001);
    /// every other request "not understood"; responses and rejects not answered (4.1: a
    /// Command Reject never answers a Command Reject).
    public static func answering(_ payload: [UInt8]) -> LESignallingAnswer {
        guard payload.count <= LESignallingCommand.minimumSignallingMTU else {
            // 4.1: reason 0x0001 with our MTUsig; the identifier is the command's when readable.
            var mtu: [UInt8] = []
            mtu.appendLittleEndian(UInt16(LESignallingCommand.minimumSignallingMTU))
            let identifier = payload.count > 1 ? payload[1] : 0
            return LESignallingAnswer(reply: .commandReject(identifier: identifier, reason: 0x0001, data: mtu), connectionUpdate: nil)
        }
        guard let command = try? LESignallingCommand(payload: payload) else {
            let identifier = payload.count > 1 ? payload[1] : 0
            guard identifier != 0 else { return LESignallingAnswer(reply: nil, connectionUpdate: nil) }
            return LESignallingAnswer(reply: .commandReject(identifier: identifier, reason: 0x0000), connectionUpdate: nil)
        }
        // Identifier 0x00 is invalid: such a command is silently discarded (4).
        guard command.identifier != 0 else { return LESignallingAnswer(reply: nil, connectionUpdate: nil) }
        switch command.code {
        case LESignallingCommand.Code.connectionParameterUpdateRequest:
            guard let request = try? ConnectionParameterUpdateRequest(data: command.data) else {
                return LESignallingAnswer(reply: .commandReject(identifier: command.identifier, reason: 0x0000), connectionUpdate: nil)
            }
            let accepted = request.acceptable
            var result: [UInt8] = []
            result.appendLittleEndian(UInt16(accepted == nil ? 0x0001 : 0x0000))
            let reply = LESignallingCommand(
                code: LESignallingCommand.Code.connectionParameterUpdateResponse, identifier: command.identifier, data: result)
            return LESignallingAnswer(reply: reply, connectionUpdate: accepted)
        case LESignallingCommand.Code.commandReject, LESignallingCommand.Code.connectionParameterUpdateResponse,
            LESignallingCommand.Code.disconnectionResponse, LESignallingCommand.Code.leCreditBasedConnectionResponse,
            LESignallingCommand.Code.flowControlCredit, LESignallingCommand.Code.creditBasedConnectionResponse,
            LESignallingCommand.Code.creditBasedReconfigureResponse:
            return LESignallingAnswer(reply: nil, connectionUpdate: nil)
        default:
            return LESignallingAnswer(reply: .commandReject(identifier: command.identifier, reason: 0x0000), connectionUpdate: nil)
        }
    }
}

/// The Security Manager as a central that does not pair (Core v5.4 Vol 3 Part H 3.5.5,
/// 3.6.7): a Security Request, or any other pairing step, is answered with Pairing Failed,
/// reason 0x05 Pairing Not Supported. Attributes that need encryption then answer
/// Insufficient Authentication or Encryption, which the ATT layer words.
public enum SecurityManagerAnswer {
    public static let securityRequest: UInt8 = 0x0B
    public static let pairingFailed: UInt8 = 0x05
    public static let pairingNotSupported: UInt8 = 0x05

    /// The PDU to send back, or `nil` (an empty PDU, or Pairing Failed, which is not answered).
    public static func answering(_ payload: [UInt8]) -> [UInt8]? {
        guard let code = payload.first, code != pairingFailed else { return nil }
        return [pairingFailed, pairingNotSupported]
    }
}
