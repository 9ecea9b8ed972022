import LECentral

/// The server side of ATT on one link (Core v5.4 Vol 3 Part F 3.4), over an
/// ``AttributeTable``: MTU exchange, the discovery requests, reads (and blob reads), writes
/// and Write Commands, and notifications for the characteristics a client subscribed to.
///
/// Decoding and encoding are LECentral's `ATTPDU`, the one ATT codec of the package; what
/// is answered, and with which error, is this server's.
struct ATTServer: Sendable {
    /// The default ATT_MTU on LE (3.2.8), and the largest this server accepts.
    static let defaultMTU = 23
    let maximumMTU: Int
    private(set) var mtu = ATTServer.defaultMTU
    private(set) var table: AttributeTable

    init(table: AttributeTable, maximumMTU: Int = 247) {
        self.table = table
        self.maximumMTU = max(maximumMTU, Self.defaultMTU)
    }

    /// What one PDU from the client leads to.
    struct Step: Sendable {
        /// The response to send, if any (Write Commands, notifications and confirmations get none).
        var response: [UInt8]?
        /// A value the client wrote to a characteristic (not to a descriptor).
        var written: (handle: UInt16, value: [UInt8])?
    }

    /// Answers one PDU from the table's values alone (every write the table permits is taken).
    mutating func receive(_ bytes: [UInt8]) -> Step {
        var values = TableValues()
        return receive(bytes, values: &values)
    }

    /// Answers one PDU. A PDU that does not decode gets Invalid PDU (0x04) when it is a
    /// request; a command or anything from the server's own side of the protocol is ignored.
    /// `values` decides, when asked, the reads and writes of characteristic values.
    mutating func receive<Values: CharacteristicValues>(_ bytes: [UInt8], values: inout Values) -> Step {
        guard let opcode = bytes.first else { return Step() }
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(bytes: bytes)
        } catch {
            return Step(response: Self.isRequest(opcode) ? refusal(opcode, 0, .invalidPDU) : nil)
        }
        switch pdu {
        case .exchangeMTURequest(let clientMTU):
            // 3.4.2.2: the smaller of the two, never below the default.
            mtu = max(Self.defaultMTU, min(Int(clientMTU), maximumMTU))
            return Step(response: ATTPDU.exchangeMTUResponse(serverMTU: UInt16(maximumMTU)).bytes)
        case .readByGroupTypeRequest(let start, let end, let type):
            return Step(response: readByGroupType(start, end, type))
        case .readByTypeRequest(let start, let end, let type):
            return Step(response: readByType(start, end, type, values: &values))
        case .findInformationRequest(let start, let end):
            return Step(response: findInformation(start, end))
        case .findByTypeValueRequest(let start, let end, let type, let value):
            return Step(response: findByTypeValue(start, end, type, value))
        case .readRequest(let handle):
            return Step(response: read(handle, offset: 0, opcode: opcode, values: &values))
        case .readBlobRequest(let handle, let offset):
            return Step(response: read(handle, offset: Int(offset), opcode: opcode, values: &values))
        case .writeRequest(let handle, let value):
            let (failure, written) = write(handle, value, values: &values)
            return Step(response: failure.map { refusal(opcode, handle, $0) } ?? ATTPDU.writeResponse.bytes, written: written)
        case .writeCommand(let handle, let value):
            // No response, not even an error (3.4.5.3).
            return Step(written: write(handle, value, values: &values).written)
        case .prepareWriteRequest(let handle, _, _):
            // Every value here fits one Write Request at the MTU this server accepts.
            return Step(response: refusal(opcode, handle, .requestNotSupported))
        case .executeWriteRequest:
            return Step(response: refusal(opcode, 0, .requestNotSupported))
        case .unknown(let opcode, _):
            return Step(response: Self.isRequest(opcode) ? refusal(opcode, 0, .requestNotSupported) : nil)
        default:
            // Responses, notifications, confirmations: nothing a server answers.
            return Step()
        }
    }

    /// Whether a client subscribed to notifications of the characteristic whose value is at `handle`.
    func notifies(_ uuid: AttributeUUID) -> Bool {
        guard let descriptor = table.configurationHandles[uuid], let value = table.attribute(descriptor)?.value, value.count == 2 else {
            return false
        }
        return value[0] & 0x01 != 0
    }

    /// A Handle Value Notification of `value` (3.4.7.1), cut to ATT_MTU − 3.
    func notification(_ uuid: AttributeUUID, _ value: [UInt8]) -> [UInt8]? {
        guard let handle = table.valueHandles[uuid] else { return nil }
        return ATTPDU.handleValueNotification(handle: handle, value: Array(value.prefix(mtu - 3))).bytes
    }

    // MARK: Requests

    /// What a client sends that expects no response, and what only a server sends (3.3.1, 3.4.8).
    private static let notRequests: Set<UInt8> = [
        ATTOpcode.errorResponse, ATTOpcode.exchangeMTUResponse, ATTOpcode.findInformationResponse, ATTOpcode.findByTypeValueResponse,
        ATTOpcode.readByTypeResponse, ATTOpcode.readResponse, ATTOpcode.readBlobResponse, 0x0F, ATTOpcode.readByGroupTypeResponse,
        ATTOpcode.writeResponse, ATTOpcode.prepareWriteResponse, ATTOpcode.executeWriteResponse, ATTOpcode.handleValueNotification,
        ATTOpcode.handleValueIndication, ATTOpcode.handleValueConfirmation, 0x21, 0x23,
    ]

    /// Requests expect a response: neither commands (bit 6 set) nor the PDUs above. An
    /// unknown request is answered Request Not Supported (3.4.1.1).
    private static func isRequest(_ opcode: UInt8) -> Bool {
        opcode & 0x40 == 0 && !notRequests.contains(opcode)
    }

    private func refusal(_ opcode: UInt8, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
        ATTPDU.errorResponse(request: opcode, handle: handle, error: code).bytes
    }

    /// A handle range is valid when it starts above zero and does not end before it starts (3.4.3.1).
    private func validRange(_ start: UInt16, _ end: UInt16) -> Bool { start != 0 && start <= end }

    /// Read By Group Type (3.4.4.9): primary services only; entries of one value length,
    /// as many as fit ATT_MTU − 2.
    private func readByGroupType(_ start: UInt16, _ end: UInt16, _ type: AttributeUUID) -> [UInt8] {
        let opcode = ATTOpcode.readByGroupTypeRequest
        guard validRange(start, end) else { return refusal(opcode, start, .invalidHandle) }
        guard type == .primaryService else { return refusal(opcode, start, .unsupportedGroupType) }
        var entries: [ATTPDU.GroupValue] = []
        var used = 2
        for attribute in table.attributes(in: start, end) where attribute.type == .primaryService {
            if let first = entries.first, first.value.count != attribute.value.count { break }
            let length = 4 + attribute.value.count
            guard used + length <= mtu else { break }
            used += length
            entries.append(ATTPDU.GroupValue(handle: attribute.handle, endGroupHandle: table.groupEnd(of: attribute.handle), value: attribute.value))
        }
        guard !entries.isEmpty else { return refusal(opcode, start, .attributeNotFound) }
        return ATTPDU.readByGroupTypeResponse(entries).bytes
    }

    /// Read By Type (3.4.4.1): readable attributes of `type`, one value length, as many as fit.
    private func readByType<Values: CharacteristicValues>(
        _ start: UInt16, _ end: UInt16, _ type: AttributeUUID, values: inout Values
    ) -> [UInt8] {
        let opcode = ATTOpcode.readByTypeRequest
        guard validRange(start, end) else { return refusal(opcode, start, .invalidHandle) }
        var entries: [ATTPDU.HandleValue] = []
        var used = 2
        attributes: for attribute in table.attributes(in: start, end) where attribute.type == type {
            let whole: [UInt8]
            switch value(of: attribute, values: &values) {
            case .value(let value): whole = value
            case .refused(let code):
                if entries.isEmpty { return refusal(opcode, attribute.handle, code) }
                break attributes
            }
            // A value longer than fits is cut to ATT_MTU − 4 and sent alone (3.4.4.2).
            let value = Array(whole.prefix(min(mtu - 4, 253)))
            if let first = entries.first, first.value.count != value.count { break attributes }
            guard used + 2 + value.count <= mtu else { break attributes }
            used += 2 + value.count
            entries.append(ATTPDU.HandleValue(handle: attribute.handle, value: value))
        }
        guard !entries.isEmpty else { return refusal(opcode, start, .attributeNotFound) }
        return ATTPDU.readByTypeResponse(entries).bytes
    }

    /// Find Information (3.4.3.1): handles and types, all 16-bit or all 128-bit in one response.
    private func findInformation(_ start: UInt16, _ end: UInt16) -> [UInt8] {
        let opcode = ATTOpcode.findInformationRequest
        guard validRange(start, end) else { return refusal(opcode, start, .invalidHandle) }
        var entries: [ATTPDU.HandleUUID] = []
        var used = 2
        for attribute in table.attributes(in: start, end) {
            let short = attribute.type.shortValue != nil
            if let first = entries.first, (first.uuid.shortValue != nil) != short { break }
            let length = 2 + (short ? 2 : 16)
            guard used + length <= mtu else { break }
            used += length
            entries.append(ATTPDU.HandleUUID(handle: attribute.handle, uuid: attribute.type))
        }
        guard !entries.isEmpty else { return refusal(opcode, start, .attributeNotFound) }
        return ATTPDU.findInformationResponse(entries).bytes
    }

    /// Find By Type Value (3.4.3.3): the groups of primary services whose UUID is `value`.
    private func findByTypeValue(_ start: UInt16, _ end: UInt16, _ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        let opcode = ATTOpcode.findByTypeValueRequest
        guard validRange(start, end) else { return refusal(opcode, start, .invalidHandle) }
        var entries: [ATTPDU.GroupValue] = []
        var used = 1
        for attribute in table.attributes(in: start, end) where attribute.type == AttributeUUID(type) && attribute.value == value {
            guard used + 4 <= mtu else { break }
            used += 4
            let groupEnd = type == 0x2800 ? table.groupEnd(of: attribute.handle) : attribute.handle
            entries.append(ATTPDU.GroupValue(handle: attribute.handle, endGroupHandle: groupEnd, value: []))
        }
        guard !entries.isEmpty else { return refusal(opcode, start, .attributeNotFound) }
        return ATTPDU.findByTypeValueResponse(entries).bytes
    }

    /// Read (3.4.4.3) and Read Blob (3.4.4.5): up to ATT_MTU − 1 bytes from `offset`.
    private func read<Values: CharacteristicValues>(_ handle: UInt16, offset: Int, opcode: UInt8, values: inout Values) -> [UInt8] {
        guard let attribute = table.attribute(handle) else { return refusal(opcode, handle, .invalidHandle) }
        let whole: [UInt8]
        switch value(of: attribute, values: &values) {
        case .value(let value): whole = value
        case .refused(let code): return refusal(opcode, handle, code)
        }
        guard offset <= whole.count else { return refusal(opcode, handle, .invalidOffset) }
        let part = Array(whole[offset...].prefix(mtu - 1))
        return opcode == ATTOpcode.readRequest ? ATTPDU.readResponse(value: part).bytes : ATTPDU.readBlobResponse(part: part).bytes
    }

    /// A readable attribute's value: the device's when it decides it, else the table's.
    private func value<Values: CharacteristicValues>(of attribute: ServerAttribute, values: inout Values) -> AttributeRead {
        guard attribute.readable else { return .refused(.readNotPermitted) }
        return values.read(attribute.handle) ?? .value(attribute.value)
    }

    /// A write to `handle`: a Client Characteristic Configuration takes two bytes; a
    /// characteristic's value goes to the device, which may refuse it, and is handed on;
    /// anything else is refused.
    private mutating func write<Values: CharacteristicValues>(
        _ handle: UInt16, _ value: [UInt8], values: inout Values
    ) -> (failure: ATTErrorCode?, written: (handle: UInt16, value: [UInt8])?) {
        guard let attribute = table.attribute(handle) else { return (.invalidHandle, nil) }
        guard attribute.writable else { return (.writeNotPermitted, nil) }
        if attribute.type == .clientCharacteristicConfiguration {
            guard value.count == 2 else { return (.invalidAttributeValueLength, nil) }
            table.setValue(value, of: handle)
            return (nil, nil)
        }
        guard value.count <= mtu - 3 else { return (.invalidAttributeValueLength, nil) }
        if let refusal = values.write(handle, value) { return (refusal, nil) }
        return (nil, (handle, value))
    }
}

/// A read's outcome: the value, or the error the client gets.
enum AttributeRead: Hashable, Sendable {
    case value([UInt8])
    case refused(ATTErrorCode)

    /// The value, when the read succeeded.
    var bytes: [UInt8]? {
        if case .value(let bytes) = self { bytes } else { nil }
    }
}

/// The device behind characteristic values decided when a client asks (behind a lock, a
/// one-time challenge): what a read returns, and whether a write is taken. The server has
/// checked the table's permissions and the value's length first.
protocol CharacteristicValues {
    /// The value read at `handle` now, or the error the read gets; `nil`: the table's value.
    mutating func read(_ handle: UInt16) -> AttributeRead?
    /// `nil` when the write of `value` at `handle` is taken (and applied), else the error.
    mutating func write(_ handle: UInt16, _ value: [UInt8]) -> ATTErrorCode?
}

/// The table's values as they are: every read served from it, every permitted write taken.
struct TableValues: CharacteristicValues {
    func read(_ handle: UInt16) -> AttributeRead? { nil }
    func write(_ handle: UInt16, _ value: [UInt8]) -> ATTErrorCode? { nil }
}
