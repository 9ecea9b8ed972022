import HCI
import HCITestKit
import Testing
@testable import LECentral

/// The ATT codec (Core v5.4 Vol 3 Part F 3.4): every opcode round-trips; short PDUs, bad
/// lengths and partial list entries are refused with the structure named.
@Suite struct ATTPDUTests {
    static let long = AttributeUUID("a3c87500-8ed3-4bdf-8a39-a01bebede295") ?? AttributeUUID(0)

    static let everyPDU: [ATTPDU] = [
        .errorResponse(request: 0x0A, handle: 0x0003, error: .readNotPermitted),
        .exchangeMTURequest(clientMTU: 247), .exchangeMTUResponse(serverMTU: 185),
        .findInformationRequest(start: 1, end: 0xFFFF),
        .findInformationResponse([.init(handle: 4, uuid: AttributeUUID(0x2902)), .init(handle: 5, uuid: AttributeUUID(0x2901))]),
        .findInformationResponse([.init(handle: 9, uuid: long)]),
        .findByTypeValueRequest(start: 1, end: 0xFFFF, type: 0x2800, value: [0x0F, 0x18]),
        .findByTypeValueResponse([.init(handle: 1, endGroupHandle: 5, value: [])]),
        .readByTypeRequest(start: 1, end: 0xFFFF, type: .characteristic), .readByTypeRequest(start: 1, end: 9, type: long),
        .readByTypeResponse([.init(handle: 2, value: [0x02, 0x03, 0x00, 0x00, 0x2A]), .init(handle: 4, value: [0x10, 0x05, 0x00, 0x19, 0x2A])]),
        .readRequest(handle: 3), .readResponse(value: Array("beacon".utf8)), .readResponse(value: []),
        .readBlobRequest(handle: 3, offset: 22), .readBlobResponse(part: [1, 2]),
        .readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService),
        .readByGroupTypeResponse([.init(handle: 1, endGroupHandle: 5, value: [0x0F, 0x18])]),
        .writeRequest(handle: 3, value: [1]), .writeResponse, .writeCommand(handle: 3, value: []),
        .prepareWriteRequest(handle: 3, offset: 18, part: [7, 8]), .prepareWriteResponse(handle: 3, offset: 18, part: [7, 8]),
        .executeWriteRequest(write: true), .executeWriteRequest(write: false), .executeWriteResponse,
        .handleValueNotification(handle: 5, value: [0x64]), .handleValueIndication(handle: 5, value: []), .handleValueConfirmation,
        .unknown(opcode: 0x0E, parameters: [3, 0, 4, 0]),
    ]

    @Test func everyPDURoundTrips() throws {
        for pdu in Self.everyPDU {
            #expect(try ATTPDU(bytes: pdu.bytes) == pdu, "\(pdu)")
        }
    }

    @Test func knownByteLayouts() {
        #expect(ATTPDU.exchangeMTURequest(clientMTU: 247).bytes == hex("02 f7 00"))
        #expect(ATTPDU.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService).bytes == hex("10 01 00 ff ff 00 28"))
        #expect(ATTPDU.errorResponse(request: 0x10, handle: 0x0006, error: .attributeNotFound).bytes == hex("01 10 06 00 0a"))
        #expect(ATTPDU.findInformationResponse([.init(handle: 9, uuid: Self.long)]).bytes
            == hex("05 02 09 00 95 e2 ed eb 1b a0 39 8a df 4b d3 8e 00 75 c8 a3"))
    }

    @Test func malformedPDUsAreRefused() {
        let malformed: [[UInt8]] = [
            [],  // no opcode
            hex("01 0a 03 00"),  // Error Response one byte short
            hex("01 0a 03 00 02 00"),  // and one too long
            hex("02 f7"),  // MTU cut short
            hex("05 03 01 00 00 28"),  // Find Information format 3
            hex("05 01 01 00 00"),  // a partial entry
            hex("05 01"),  // no entry at all
            hex("07 01 00 05"),  // Find By Type Value Response, partial
            hex("08 01 00 ff ff 00 28 00"),  // a 3-byte UUID
            hex("09 01 02 00"),  // Read By Type length below 2
            hex("09 05 02 00 02 03 00 00"),  // 6 bytes of 5-byte entries
            hex("11 03 01 00 05 00"),  // Read By Group Type length below 4
            hex("11 06 01 00 05 00 0f 18 02"),  // a trailing byte
            hex("0a 03"),  // Read Request cut short
            hex("0c 03 00 01"),  // Read Blob Request cut short
            hex("12 03"),  // Write Request without a whole handle
            hex("13 00"),  // Write Response with a byte
            hex("16 03 00 01"),  // Prepare Write without an offset
            hex("18 02"),  // Execute Write flags 2
            hex("1e 00"),  // Confirmation with a byte
        ]
        for bytes in malformed {
            #expect(throws: HCIDecodingError.self, "\(HexText.bytes(bytes))") { try ATTPDU(bytes: bytes) }
        }
    }

    @Test func errorCodesInPlainWords() {
        #expect(ATTErrorCode.insufficientEncryption.description.contains("does not pair"))
        #expect(ATTErrorCode.writeNotPermitted.description == "0x03 Write Not Permitted: the beacon does not let this value be written")
        #expect(ATTErrorCode(rawValue: 0x80).description.contains("vendor"))
        #expect(ATTErrorCode.insufficientAuthentication.needsSecurity)
        #expect(!ATTErrorCode.invalidHandle.needsSecurity)
    }

    @Test func uuidsInBothForms() throws {
        let short = AttributeUUID(0x2A19)
        #expect(short.description == "0x2A19")
        #expect(AttributeUUID("00002a19-0000-1000-8000-00805f9b34fb") == short)
        #expect(AttributeUUID(littleEndian: hex("19 2a")) == short)
        #expect(AttributeUUID("2a19") == short)
        #expect(Self.long.description == "A3C87500-8ED3-4BDF-8A39-A01BEBEDE295")
        #expect(Self.long.shortValue == nil)
        #expect(AttributeUUID(littleEndian: Self.long.littleEndian) == Self.long)
        #expect(AttributeUUID("a3c87500-8ed3-4bdf-8a39") == nil)
        #expect(AttributeUUID("zzzz") == nil)
        #expect(AttributeUUID(littleEndian: [1, 2, 3]) == nil)
    }
}
