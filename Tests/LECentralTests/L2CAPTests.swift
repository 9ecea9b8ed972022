import HCI
import HCITestKit
import Testing
@testable import LECentral

/// L2CAP basic frames, fragmentation and reassembly (Core v5.4 Vol 3 Part A 3.1, 7.2.2),
/// the LE signalling channel (4.1, 4.20) and the Security Manager's refusal (Part H 3.5.5).
@Suite struct L2CAPTests {
    @Test func frameRoundTrip() throws {
        let frame = L2CAPFrame(channel: L2CAPChannel.attribute, payload: [0x0A, 0x03, 0x00])
        let bytes = try #require(frame.bytes)
        #expect(bytes == hex("03 00 04 00 0a 03 00"))
        #expect(try L2CAPFrame(bytes: bytes) == frame)
        #expect(throws: HCIDecodingError.self) { try L2CAPFrame(bytes: hex("05 00 04 00 0a")) }
        #expect(throws: HCIDecodingError.self) { try L2CAPFrame(bytes: hex("01 00 04")) }
    }

    @Test func framesAreCutToTheControllerLength() throws {
        let frame = L2CAPFrame(channel: 4, payload: Array(0..<30))
        let fragments = try #require(frame.fragments(handle: 0x40, fragmentLength: 27))
        #expect(fragments.map(\.data.count) == [27, 7])
        #expect(fragments.map(\.boundary) == [.firstNonFlushable, .continuation])
        #expect(fragments.allSatisfy { $0.handle == 0x40 })
        #expect(frame.fragments(handle: 0x40, fragmentLength: 0) == nil)
        var reassembler = L2CAPReassembler(maximumFrameLength: 517)
        #expect(reassembler.receive(fragments[0]) == .init(frame: nil, failure: nil))
        #expect(reassembler.receive(fragments[1]) == .init(frame: frame, failure: nil))
    }

    @Test func reassemblyOfAHeaderSplitOverFragments() {
        var reassembler = L2CAPReassembler(maximumFrameLength: 64)
        let frame = L2CAPFrame(channel: 5, payload: [1, 2, 3])
        let bytes = frame.bytes ?? []
        for (index, byte) in bytes.enumerated() {
            let step = reassembler.receive(ACLDataPacket(handle: 1, boundary: index == 0 ? .firstFlushable : .continuation, data: [byte]))
            #expect(step.failure == nil)
            #expect(step.frame == (index == bytes.count - 1 ? frame : nil))
        }
        #expect(!reassembler.isMidFrame)
    }

    @Test func aFrameLongerThanTheBoundIsSkippedNotBuffered() {
        var reassembler = L2CAPReassembler(maximumFrameLength: 10)
        // Declares 20 payload bytes: refused at once; its continuation is skipped.
        let first = reassembler.receive(ACLDataPacket(handle: 1, boundary: .firstNonFlushable, data: hex("14 00 04 00") + Array(repeating: 0, count: 6)))
        #expect(first.failure == .frameTooLong(declared: 20, maximum: 10))
        #expect(reassembler.receive(ACLDataPacket(handle: 1, boundary: .continuation, data: Array(repeating: 0, count: 14))) == .init(frame: nil, failure: nil))
        // The next frame is read normally.
        let next = reassembler.receive(ACLDataPacket(handle: 1, boundary: .firstNonFlushable, data: hex("01 00 04 00 1e")))
        #expect(next.frame == L2CAPFrame(channel: 4, payload: [0x1E]))
    }

    @Test func brokenFragmentSequencesLoseOnlyTheirFrame() {
        var reassembler = L2CAPReassembler(maximumFrameLength: 64)
        #expect(reassembler.receive(ACLDataPacket(handle: 1, boundary: .continuation, data: [1, 2])).failure == .unexpectedContinuation(bytes: 2))
        _ = reassembler.receive(ACLDataPacket(handle: 1, boundary: .firstNonFlushable, data: hex("05 00 04 00 01")))
        // Interrupted by a frame that is whole at once: the old one is reported, the new kept.
        let step = reassembler.receive(ACLDataPacket(handle: 1, boundary: .firstNonFlushable, data: hex("01 00 04 00 02")))
        #expect(step.failure == .interruptedFrame(received: 5, expected: 9))
        #expect(step.frame == L2CAPFrame(channel: 4, payload: [2]))
        // Too many bytes for the declared length.
        _ = reassembler.receive(ACLDataPacket(handle: 1, boundary: .firstNonFlushable, data: hex("02 00 04 00 01")))
        #expect(reassembler.receive(ACLDataPacket(handle: 1, boundary: .continuation, data: [2, 3])).failure == .overrun(declared: 2, received: 3))
        #expect(reassembler.receive(ACLDataPacket(handle: 1, boundary: .firstNonFlushable, data: hex("01 00 04 00 09 09"))).failure == .overrun(declared: 1, received: 2))
    }

    // MARK: Signalling

    @Test func aParameterUpdateRequestWithinTheRangesIsAccepted() throws {
        let request = ConnectionParameterUpdateRequest(intervalMinimum: 6, intervalMaximum: 12, latency: 0, supervisionTimeout: 100)
        let payload = LESignallingCommand(code: 0x12, identifier: 7, data: request.data).payload
        #expect(payload == hex("12 07 08 00 06 00 0c 00 00 00 64 00"))
        let answer = LESignallingAnswer.answering(payload)
        #expect(answer.reply?.payload == hex("13 07 02 00 00 00"))
        let parameters = try #require(answer.connectionUpdate)
        #expect(parameters.intervalMinimum == 6 && parameters.intervalMaximum == 12 && parameters.supervisionTimeout == 100)
    }

    @Test func anUnreasonableParameterUpdateIsRejected() {
        // A 4 s maximum interval with a 1 s supervision timeout could never hold the link.
        let request = ConnectionParameterUpdateRequest(intervalMinimum: 6, intervalMaximum: 3200, latency: 0, supervisionTimeout: 100)
        let answer = LESignallingAnswer.answering(LESignallingCommand(code: 0x12, identifier: 9, data: request.data).payload)
        #expect(answer.reply?.payload == hex("13 09 02 00 01 00"))
        #expect(answer.connectionUpdate == nil)
        // A request of the wrong length: not understood.
        #expect(LESignallingAnswer.answering(hex("12 0a 02 00 06 00")).reply?.payload == hex("01 0a 02 00 00 00"))
    }

    @Test func unknownCommandsAreRejectedAndResponsesNotAnswered() {
        // LE Credit Based Connection Request (0x14): this central opens no dynamic channels.
        #expect(LESignallingAnswer.answering(hex("14 03 0a 00 80 00 40 00 17 00 17 00 01 00")).reply?.payload == hex("01 03 02 00 00 00"))
        #expect(LESignallingAnswer.answering(hex("01 03 02 00 00 00")).reply == nil)
        #expect(LESignallingAnswer.answering(hex("13 03 02 00 00 00")).reply == nil)
        // Identifier 0 is invalid: discarded.
        #expect(LESignallingAnswer.answering(hex("14 00 00 00")).reply == nil)
        #expect(LESignallingAnswer.answering([]).reply == nil)
        // Longer than the signalling MTU of 23: Command Reject "signalling MTU exceeded".
        let long = hex("14 05 14 00") + Array(repeating: 0, count: 20)
        #expect(LESignallingAnswer.answering(long).reply?.payload == hex("01 05 04 00 01 00 17 00"))
    }

    @Test func securityRequestsAreRefusedAsPairingNotSupported() {
        #expect(SecurityManagerAnswer.answering(hex("0b 01")) == hex("05 05"))
        #expect(SecurityManagerAnswer.answering(hex("05 05")) == nil)
        #expect(SecurityManagerAnswer.answering([]) == nil)
    }
}
