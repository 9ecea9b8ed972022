import HCITestKit
import Testing

@testable import HCI

@Suite("H4 packet layout")
struct H4PacketLayoutTests {
    @Test("header lengths and declared lengths per packet kind (Core v5.4 Vol 4 Part E 5.4)")
    func declaredLengths() {
        #expect(H4PacketLayout.declaredPayloadLength(of: .command, header: [0x03, 0x0C, 0x00]) == 0)
        #expect(H4PacketLayout.declaredPayloadLength(of: .event, header: [0x3E, 0x2A]) == 42)
        #expect(H4PacketLayout.declaredPayloadLength(of: .acl, header: [0x01, 0x20, 0x34, 0x12]) == 0x1234)
        #expect(H4PacketLayout.declaredPayloadLength(of: .sco, header: [0x01, 0x00, 0x30]) == 48)
        #expect(H4PacketLayout.declaredPayloadLength(of: .iso, header: [0x01, 0x00, 0xFF, 0xFF]) == 0x3FFF)
        #expect(H4PacketLayout.declaredPayloadLength(of: .acl, header: [0x01, 0x20, 0x34]) == nil)
    }

    @Test("a well-formed command passes; a lying length is refused before it is sent")
    func validateOutgoing() throws {
        try H4PacketLayout.validate(H4Captures.resetCommand)
        let lying = HCIPacket(type: .command, body: [0x08, 0x20, 0x20, 0x00])
        let error = try #require(throws: HCITransportError.self) { try H4PacketLayout.validate(lying) }
        #expect(error.kind == .framing)
        #expect(
            error.message
                == "refusing to send a malformed command packet: its header declares 32 payload bytes, the packet carries 1"
        )
        let headless = HCIPacket(type: .event, body: [0x0E])
        let short = try #require(throws: HCITransportError.self) { try H4PacketLayout.validate(headless) }
        #expect(short.message.contains("it stops after 1 of its 2 header bytes"))
    }

    @Test("one read holding one whole packet decodes; anything else is a framing error")
    func decodeWholePacket() throws {
        #expect(
            try H4PacketLayout.decodeWholePacket([0x04, 0x0E, 0x01, 0x01])
                == HCIPacket(type: .event, body: [0x0E, 0x01, 0x01]))
        let cases: [([UInt8], String)] = [
            ([], "received an empty packet"),
            ([0xFF, 0x00], "unknown indicator 0xFF"),
            ([0x04, 0x0E], "it stops after 1 of its 2 header bytes"),
            ([0x04, 0x0E, 0x04, 0x01], "declares 4 payload bytes, the packet carries 1"),
            ([0x04, 0x0E, 0x00, 0x01], "declares 0 payload bytes, the packet carries 1"),
        ]
        for (bytes, expected) in cases {
            let error = try #require(throws: HCITransportError.self) {
                try H4PacketLayout.decodeWholePacket(bytes)
            }
            #expect(error.kind == .framing)
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }
}
