import HCI

/// One Attribute Protocol PDU (Core v5.4 Vol 3 Part F 3.3 and 3.4): `opcode u8 | parameters`,
/// every multi-byte field little-endian. Both directions are here, so that tests and a
/// simulated peripheral speak the same codec; decoding checks every length and never traps.
public enum ATTPDU: Hashable, Sendable {
    /// One (handle, UUID) of Find Information Response.
    public struct HandleUUID: Hashable, Sendable {
        public var handle: UInt16
        public var uuid: AttributeUUID
        public init(handle: UInt16, uuid: AttributeUUID) {
            self.handle = handle
            self.uuid = uuid
        }
    }

    /// One (handle, value) of Read By Type Response.
    public struct HandleValue: Hashable, Sendable {
        public var handle: UInt16
        public var value: [UInt8]
        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// One group of Read By Group Type Response or Find By Type Value Response.
    public struct GroupValue: Hashable, Sendable {
        public var handle: UInt16
        public var endGroupHandle: UInt16
        public var value: [UInt8]
        public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.value = value
        }
    }

    case errorResponse(request: UInt8, handle: UInt16, error: ATTErrorCode)
    case exchangeMTURequest(clientMTU: UInt16)
    case exchangeMTUResponse(serverMTU: UInt16)
    case findInformationRequest(start: UInt16, end: UInt16)
    case findInformationResponse([HandleUUID])
    /// The type is a 16-bit UUID by definition of the request (3.4.3.3).
    case findByTypeValueRequest(start: UInt16, end: UInt16, type: UInt16, value: [UInt8])
    /// Found attribute handle and group end handle; `value` is always empty.
    case findByTypeValueResponse([GroupValue])
    case readByTypeRequest(start: UInt16, end: UInt16, type: AttributeUUID)
    case readByTypeResponse([HandleValue])
    case readRequest(handle: UInt16)
    case readResponse(value: [UInt8])
    case readBlobRequest(handle: UInt16, offset: UInt16)
    case readBlobResponse(part: [UInt8])
    case readByGroupTypeRequest(start: UInt16, end: UInt16, type: AttributeUUID)
    case readByGroupTypeResponse([GroupValue])
    case writeRequest(handle: UInt16, value: [UInt8])
    case writeResponse
    case writeCommand(handle: UInt16, value: [UInt8])
    case prepareWriteRequest(handle: UInt16, offset: UInt16, part: [UInt8])
    case prepareWriteResponse(handle: UInt16, offset: UInt16, part: [UInt8])
    /// `true` writes the queued parts, `false` cancels them (flags 0x01 / 0x00).
    case executeWriteRequest(write: Bool)
    case executeWriteResponse
    case handleValueNotification(handle: UInt16, value: [UInt8])
    case handleValueIndication(handle: UInt16, value: [UInt8])
    case handleValueConfirmation
    /// Any other opcode, kept whole (a server must answer an unknown request with Request
    /// Not Supported; a client ignores an unknown command).
    case unknown(opcode: UInt8, parameters: [UInt8])

    public var opcode: UInt8 {
        switch self {
        case .errorResponse: ATTOpcode.errorResponse
        case .exchangeMTURequest: ATTOpcode.exchangeMTURequest
        case .exchangeMTUResponse: ATTOpcode.exchangeMTUResponse
        case .findInformationRequest: ATTOpcode.findInformationRequest
        case .findInformationResponse: ATTOpcode.findInformationResponse
        case .findByTypeValueRequest: ATTOpcode.findByTypeValueRequest
        case .findByTypeValueResponse: ATTOpcode.findByTypeValueResponse
        case .readByTypeRequest: ATTOpcode.readByTypeRequest
        case .readByTypeResponse: ATTOpcode.readByTypeResponse
        case .readRequest: ATTOpcode.readRequest
        case .readResponse: ATTOpcode.readResponse
        case .readBlobRequest: ATTOpcode.readBlobRequest
        case .readBlobResponse: ATTOpcode.readBlobResponse
        case .readByGroupTypeRequest: ATTOpcode.readByGroupTypeRequest
        case .readByGroupTypeResponse: ATTOpcode.readByGroupTypeResponse
        case .writeRequest: ATTOpcode.writeRequest
        case .writeResponse: ATTOpcode.writeResponse
        case .writeCommand: ATTOpcode.writeCommand
        case .prepareWriteRequest: ATTOpcode.prepareWriteRequest
        case .prepareWriteResponse: ATTOpcode.prepareWriteResponse
        case .executeWriteRequest: ATTOpcode.executeWriteRequest
        case .executeWriteResponse: ATTOpcode.executeWriteResponse
        case .handleValueNotification: ATTOpcode.handleValueNotification
        case .handleValueIndication: ATTOpcode.handleValueIndication
        case .handleValueConfirmation: ATTOpcode.handleValueConfirmation
        case .unknown(let opcode, _): opcode
        }
    }

    // MARK: Decoding

    /// Decodes one PDU. Lengths are exact where the spec fixes them; list responses must be
    /// filled exactly by whole entries, and hold at least one.
    public init(bytes: [UInt8]) throws(HCIDecodingError) {
        var reader = HCIByteReader(bytes, structure: "ATT PDU")
        let opcode = try reader.readUInt8()
        let name = ATTOpcode.name(opcode)
        reader = HCIByteReader(reader.readRemaining(), structure: "ATT \(name)")
        switch opcode {
        case ATTOpcode.errorResponse:
            let request = try reader.readUInt8()
            let handle = try reader.readUInt16()
            let error = ATTErrorCode(rawValue: try reader.readUInt8())
            try reader.expectEnd()
            self = .errorResponse(request: request, handle: handle, error: error)
        case ATTOpcode.exchangeMTURequest:
            let mtu = try reader.readUInt16()
            try reader.expectEnd()
            self = .exchangeMTURequest(clientMTU: mtu)
        case ATTOpcode.exchangeMTUResponse:
            let mtu = try reader.readUInt16()
            try reader.expectEnd()
            self = .exchangeMTUResponse(serverMTU: mtu)
        case ATTOpcode.findInformationRequest:
            let (start, end) = try Self.readRange(&reader)
            try reader.expectEnd()
            self = .findInformationRequest(start: start, end: end)
        case ATTOpcode.findInformationResponse:
            let format = try reader.readUInt8()
            let uuidLength: Int
            switch format {
            case 0x01: uuidLength = 2
            case 0x02: uuidLength = 16
            default: throw reader.invalid("Format", format, expected: "0x01 (16-bit UUIDs) or 0x02 (128-bit UUIDs)")
            }
            var entries: [HandleUUID] = []
            try Self.requireEntries(reader, entryLength: 2 + uuidLength)
            while !reader.isAtEnd {
                let handle = try reader.readUInt16()
                // The length is 2 or 16 by the format above.
                guard let uuid = AttributeUUID(littleEndian: try reader.readBytes(uuidLength)) else { break }
                entries.append(HandleUUID(handle: handle, uuid: uuid))
            }
            self = .findInformationResponse(entries)
        case ATTOpcode.findByTypeValueRequest:
            let (start, end) = try Self.readRange(&reader)
            let type = try reader.readUInt16()
            self = .findByTypeValueRequest(start: start, end: end, type: type, value: Array(reader.readRemaining()))
        case ATTOpcode.findByTypeValueResponse:
            try Self.requireEntries(reader, entryLength: 4)
            var entries: [GroupValue] = []
            while !reader.isAtEnd {
                entries.append(GroupValue(handle: try reader.readUInt16(), endGroupHandle: try reader.readUInt16(), value: []))
            }
            self = .findByTypeValueResponse(entries)
        case ATTOpcode.readByTypeRequest, ATTOpcode.readByGroupTypeRequest:
            let (start, end) = try Self.readRange(&reader)
            let remaining = reader.remainingCount
            guard let type = AttributeUUID(littleEndian: reader.readRemaining()) else {
                throw reader.invalid("Attribute Type length", remaining, expected: "2 or 16 bytes")
            }
            self = opcode == ATTOpcode.readByTypeRequest
                ? .readByTypeRequest(start: start, end: end, type: type)
                : .readByGroupTypeRequest(start: start, end: end, type: type)
        case ATTOpcode.readByTypeResponse:
            let length = Int(try reader.readUInt8())
            guard length >= 2 else { throw reader.invalid("Length", length, expected: "2 or more (a handle and its value)") }
            try Self.requireEntries(reader, entryLength: length)
            var entries: [HandleValue] = []
            while !reader.isAtEnd {
                entries.append(HandleValue(handle: try reader.readUInt16(), value: Array(try reader.readBytes(length - 2))))
            }
            self = .readByTypeResponse(entries)
        case ATTOpcode.readRequest:
            let handle = try reader.readUInt16()
            try reader.expectEnd()
            self = .readRequest(handle: handle)
        case ATTOpcode.readResponse:
            self = .readResponse(value: Array(reader.readRemaining()))
        case ATTOpcode.readBlobRequest:
            let handle = try reader.readUInt16()
            let offset = try reader.readUInt16()
            try reader.expectEnd()
            self = .readBlobRequest(handle: handle, offset: offset)
        case ATTOpcode.readBlobResponse:
            self = .readBlobResponse(part: Array(reader.readRemaining()))
        case ATTOpcode.readByGroupTypeResponse:
            let length = Int(try reader.readUInt8())
            guard length >= 4 else { throw reader.invalid("Length", length, expected: "4 or more (two handles and a value)") }
            try Self.requireEntries(reader, entryLength: length)
            var entries: [GroupValue] = []
            while !reader.isAtEnd {
                entries.append(GroupValue(
                    handle: try reader.readUInt16(), endGroupHandle: try reader.readUInt16(),
                    value: Array(try reader.readBytes(length - 4))))
            }
            self = .readByGroupTypeResponse(entries)
        case ATTOpcode.writeRequest, ATTOpcode.writeCommand, ATTOpcode.handleValueNotification, ATTOpcode.handleValueIndication:
            let handle = try reader.readUInt16()
            let value = Array(reader.readRemaining())
            switch opcode {
            case ATTOpcode.writeRequest: self = .writeRequest(handle: handle, value: value)
            case ATTOpcode.writeCommand: self = .writeCommand(handle: handle, value: value)
            case ATTOpcode.handleValueNotification: self = .handleValueNotification(handle: handle, value: value)
            default: self = .handleValueIndication(handle: handle, value: value)
            }
        case ATTOpcode.writeResponse, ATTOpcode.executeWriteResponse, ATTOpcode.handleValueConfirmation:
            try reader.expectEnd()
            switch opcode {
            case ATTOpcode.writeResponse: self = .writeResponse
            case ATTOpcode.executeWriteResponse: self = .executeWriteResponse
            default: self = .handleValueConfirmation
            }
        case ATTOpcode.prepareWriteRequest, ATTOpcode.prepareWriteResponse:
            let handle = try reader.readUInt16()
            let offset = try reader.readUInt16()
            let part = Array(reader.readRemaining())
            self = opcode == ATTOpcode.prepareWriteRequest
                ? .prepareWriteRequest(handle: handle, offset: offset, part: part)
                : .prepareWriteResponse(handle: handle, offset: offset, part: part)
        case ATTOpcode.executeWriteRequest:
            let flags = try reader.readUInt8()
            try reader.expectEnd()
            guard flags <= 0x01 else { throw reader.invalid("Flags", flags, expected: "0x00 (cancel) or 0x01 (write)") }
            self = .executeWriteRequest(write: flags == 0x01)
        default:
            self = .unknown(opcode: opcode, parameters: Array(reader.readRemaining()))
        }
    }

    private static func readRange(_ reader: inout HCIByteReader) throws(HCIDecodingError) -> (UInt16, UInt16) {
        (try reader.readUInt16(), try reader.readUInt16())
    }

    /// A list response must hold at least one entry and whole entries only.
    private static func requireEntries(_ reader: HCIByteReader, entryLength: Int) throws(HCIDecodingError) {
        let remaining = reader.remainingCount
        guard remaining >= entryLength, remaining % entryLength == 0 else {
            throw .inconsistentParameters(
                structure: reader.structure,
                reason: "\(remaining) bytes of entries are not a whole number (at least one) of \(entryLength)-byte entries")
        }
    }

    // MARK: Encoding

    public var bytes: [UInt8] {
        var bytes = [opcode]
        switch self {
        case .errorResponse(let request, let handle, let error):
            bytes.append(request)
            bytes.appendLittleEndian(handle)
            bytes.append(error.rawValue)
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
            bytes.appendLittleEndian(mtu)
        case .findInformationRequest(let start, let end):
            bytes.appendLittleEndian(start)
            bytes.appendLittleEndian(end)
        case .findInformationResponse(let entries):
            // One format for the whole PDU (3.4.3.2): 128-bit when any entry needs it.
            let long = entries.contains { $0.uuid.shortValue == nil }
            bytes.append(long ? 0x02 : 0x01)
            for entry in entries {
                bytes.appendLittleEndian(entry.handle)
                bytes += long ? Array(entry.uuid.bytes.reversed()) : entry.uuid.littleEndian
            }
        case .findByTypeValueRequest(let start, let end, let type, let value):
            bytes.appendLittleEndian(start)
            bytes.appendLittleEndian(end)
            bytes.appendLittleEndian(type)
            bytes += value
        case .findByTypeValueResponse(let entries):
            for entry in entries {
                bytes.appendLittleEndian(entry.handle)
                bytes.appendLittleEndian(entry.endGroupHandle)
            }
        case .readByTypeRequest(let start, let end, let type), .readByGroupTypeRequest(let start, let end, let type):
            bytes.appendLittleEndian(start)
            bytes.appendLittleEndian(end)
            bytes += type.littleEndian
        case .readByTypeResponse(let entries):
            // One length for every entry (3.4.4.2): the first entry's; the caller keeps them equal.
            bytes.append(UInt8(truncatingIfNeeded: 2 + (entries.first?.value.count ?? 0)))
            for entry in entries {
                bytes.appendLittleEndian(entry.handle)
                bytes += entry.value
            }
        case .readRequest(let handle):
            bytes.appendLittleEndian(handle)
        case .readResponse(let value), .readBlobResponse(let value):
            bytes += value
        case .readBlobRequest(let handle, let offset):
            bytes.appendLittleEndian(handle)
            bytes.appendLittleEndian(offset)
        case .readByGroupTypeResponse(let entries):
            bytes.append(UInt8(truncatingIfNeeded: 4 + (entries.first?.value.count ?? 0)))
            for entry in entries {
                bytes.appendLittleEndian(entry.handle)
                bytes.appendLittleEndian(entry.endGroupHandle)
                bytes += entry.value
            }
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value),
            .handleValueNotification(let handle, let value), .handleValueIndication(let handle, let value):
            bytes.appendLittleEndian(handle)
            bytes += value
        case .prepareWriteRequest(let handle, let offset, let part), .prepareWriteResponse(let handle, let offset, let part):
            bytes.appendLittleEndian(handle)
            bytes.appendLittleEndian(offset)
            bytes += part
        case .executeWriteRequest(let write):
            bytes.append(write ? 0x01 : 0x00)
        case .writeResponse, .executeWriteResponse, .handleValueConfirmation:
            break
        case .unknown(_, let parameters):
            bytes += parameters
        }
        return bytes
    }
}
