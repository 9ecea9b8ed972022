import Testing

@testable import BeaconProfiles

/// KBeacon frames against the layouts of the vendor's SDK (KBeacon.java `sendNextCfgData`,
/// `configSendDataRptAck`, `handleBeaconNtfData`), and malformed notifications.
@Suite("KBeacon frames")
struct KBeaconFrameTests {
    @Test("a message that fits goes as one part; a longer one as start, middle and end at their offsets")
    func parts() {
        let short = Array("{}".utf8)
        #expect(KBeaconFrame.part(of: short, type: .json, at: 0, capacity: 17) == [0x23, 0x00, 0x00] + short)
        let message = (0..<40).map { UInt8($0) }
        #expect(KBeaconFrame.part(of: message, type: .json, at: 0, capacity: 17) == [0x20, 0x00, 0x00] + message[0..<17])
        #expect(KBeaconFrame.part(of: message, type: .json, at: 17, capacity: 17) == [0x21, 0x00, 0x11] + message[17..<34])
        #expect(KBeaconFrame.part(of: message, type: .json, at: 34, capacity: 17) == [0x22, 0x00, 0x22] + message[34..<40])
        // Past the end, a part of a single-part message, or no room: nothing to send.
        #expect(KBeaconFrame.part(of: message, type: .json, at: 40, capacity: 17) == nil)
        #expect(KBeaconFrame.part(of: short, type: .json, at: 1, capacity: 17) == nil)
        #expect(KBeaconFrame.part(of: message, type: .json, at: 0, capacity: 0) == nil)
    }

    @Test("the acknowledgement of a reported part: head, bytes received, window 1000, cause")
    func reportAcknowledgement() {
        #expect(KBeaconFrame.reportAcknowledgement(type: .jsonReport, received: 300, cause: 0) == [0x33, 0x01, 0x2C, 0x03, 0xE8, 0x00, 0x00])
        #expect(KBeaconFrame.reportAcknowledgement(type: .jsonReport, received: 70_000, cause: 0) == nil)
    }

    @Test("notifications decode: challenge (full and folded), accepted, refused, acknowledgement, report")
    func notifications() throws {
        let proof = (0..<16).map { UInt8($0) }
        #expect(try KBeaconNotification(bytes: [0x13, 0x01, 9, 8, 7, 6] + proof) == .challenge(beaconRandom: [9, 8, 7, 6], proof: proof, folded: false))
        #expect(
            try KBeaconNotification(bytes: [0x13, 0x0B, 9, 8, 7, 6] + proof[0..<8])
                == .challenge(beaconRandom: [9, 8, 7, 6], proof: Array(proof[0..<8]), folded: true))
        #expect(try KBeaconNotification(bytes: [0x13, 0x02, 247]) == .authenticated(mtu: 247))
        #expect(try KBeaconNotification(bytes: [0x13, 0x02]) == .authenticated(mtu: nil))
        #expect(try KBeaconNotification(bytes: [0x13, 0xF1]) == .authenticationRefused)
        #expect(
            try KBeaconNotification(bytes: [0x23, 0x00, 0x11, 0x03, 0xE8, 0x00, 0x04])
                == .acknowledgement(type: .json, sequence: 17, cause: 4, data: []))
        #expect(
            try KBeaconNotification(bytes: [0x23, 0x00, 0x02, 0x03, 0xE8, 0x00, 0x00, 0x7B, 0x7D])
                == .acknowledgement(type: .json, sequence: 2, cause: 0, data: [0x7B, 0x7D]))
        #expect(try KBeaconNotification(bytes: [0x31, 0x00, 0x05, 0x41]) == .report(type: .jsonReport, place: .middle, sequence: 5, data: [0x41]))
    }

    @Test("malformed notifications are refused with what is wrong", arguments: [
        ([], KBeaconDecodeError.empty),
        ([0x13], .tooShort(what: "authentication answer", length: 1, needed: 2)),
        ([0x13, 0x01, 1, 2, 3, 4, 5], .tooShort(what: "authentication challenge", length: 7, needed: 22)),
        ([0x13, 0x0B, 1, 2, 3, 4], .tooShort(what: "authentication challenge", length: 6, needed: 14)),
        ([0x13, 0x77], .unknownPhase(0x77)),
        ([0x23, 0, 0, 0, 0, 0], .tooShort(what: "acknowledgement", length: 6, needed: 7)),
        ([0x33, 0], .tooShort(what: "report", length: 2, needed: 3)),
        ([0x37, 0, 0], .unknownPlace(7)),
        ([0x93, 0, 0], .unknownType(9)),
    ] as [([UInt8], KBeaconDecodeError)])
    func malformed(bytes: [UInt8], error: KBeaconDecodeError) {
        #expect(throws: error) { try KBeaconNotification(bytes: bytes) }
    }
}
