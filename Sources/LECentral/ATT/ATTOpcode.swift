import HCI

/// ATT opcodes (Core v5.4 Vol 3 Part F 3.4.8, table 3.37). Bit 6 marks a command (no
/// response), bit 7 a signed PDU.
public enum ATTOpcode {
    public static let errorResponse: UInt8 = 0x01
    public static let exchangeMTURequest: UInt8 = 0x02
    public static let exchangeMTUResponse: UInt8 = 0x03
    public static let findInformationRequest: UInt8 = 0x04
    public static let findInformationResponse: UInt8 = 0x05
    public static let findByTypeValueRequest: UInt8 = 0x06
    public static let findByTypeValueResponse: UInt8 = 0x07
    public static let readByTypeRequest: UInt8 = 0x08
    public static let readByTypeResponse: UInt8 = 0x09
    public static let readRequest: UInt8 = 0x0A
    public static let readResponse: UInt8 = 0x0B
    public static let readBlobRequest: UInt8 = 0x0C
    public static let readBlobResponse: UInt8 = 0x0D
    public static let readByGroupTypeRequest: UInt8 = 0x10
    public static let readByGroupTypeResponse: UInt8 = 0x11
    public static let writeRequest: UInt8 = 0x12
    public static let writeResponse: UInt8 = 0x13
    public static let prepareWriteRequest: UInt8 = 0x16
    public static let prepareWriteResponse: UInt8 = 0x17
    public static let executeWriteRequest: UInt8 = 0x18
    public static let executeWriteResponse: UInt8 = 0x19
    public static let handleValueNotification: UInt8 = 0x1B
    public static let handleValueIndication: UInt8 = 0x1D
    public static let handleValueConfirmation: UInt8 = 0x1E
    public static let writeCommand: UInt8 = 0x52

    private static let names: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
        0x04: "Find Information Request", 0x05: "Find Information Response",
        0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response",
        0x08: "Read By Type Request", 0x09: "Read By Type Response", 0x0A: "Read Request", 0x0B: "Read Response",
        0x0C: "Read Blob Request", 0x0D: "Read Blob Response",
        0x10: "Read By Group Type Request", 0x11: "Read By Group Type Response",
        0x12: "Write Request", 0x13: "Write Response", 0x16: "Prepare Write Request", 0x17: "Prepare Write Response",
        0x18: "Execute Write Request", 0x19: "Execute Write Response",
        0x1B: "Handle Value Notification", 0x1D: "Handle Value Indication", 0x1E: "Handle Value Confirmation",
        0x52: "Write Command",
    ]

    /// `Read Request`, or `opcode 0x0E` for one this table lacks.
    public static func name(_ opcode: UInt8) -> String {
        names[opcode] ?? "opcode \(HexText.code(opcode))"
    }

    /// The response that answers `request`, `nil` for PDUs that are not requests.
    public static func response(to request: UInt8) -> UInt8? {
        switch request {
        case exchangeMTURequest, findInformationRequest, findByTypeValueRequest, readByTypeRequest, readRequest,
            readBlobRequest, readByGroupTypeRequest, writeRequest, prepareWriteRequest, executeWriteRequest:
            return request + 1
        default:
            return nil
        }
    }
}
