import BeaconCore
import HCITestKit
import Testing

@testable import HCI

@Suite("H4 stream parser", .timeLimit(.minutes(1)))
struct H4StreamParserTests {
    private let session = H4Captures.rootCanalScanSession
    private var sessionStream: [UInt8] { session.flatMap(\.h4Bytes) }

    /// Parses `stream` in chunks whose sizes `nextChunkSize` picks; fails the test on a
    /// framing error.
    private func parseInChunks(
        _ stream: [UInt8], parser: inout H4StreamParser, nextChunkSize: () -> Int
    ) -> [HCIPacket] {
        var packets: [HCIPacket] = []
        var offset = 0
        while offset < stream.count {
            let end = min(stream.count, offset + max(1, nextChunkSize()))
            let result = parser.parse(stream[offset..<end])
            #expect(result.failure == nil)
            packets += result.packets
            offset = end
        }
        return packets
    }

    @Test("a captured RootCanal session cut into random chunks yields exactly its packets")
    func capturedSessionInRandomChunks() {
        let stream = sessionStream
        var generator = SeededGenerator(seed: 0x4834_5052_5345)
        for _ in 0..<500 {
            // Mix tiny and large chunks so that every header and payload boundary gets split.
            let largest = [2, 7, 64, stream.count].randomElement(using: &generator) ?? 1
            var parser = H4StreamParser()
            let packets = parseInChunks(stream, parser: &parser) {
                Int.random(in: 1...largest, using: &generator)
            }
            #expect(packets == session)
            #expect(parser.bufferedByteCount == 0)
        }
    }

    @Test("one byte at a time and all at once give the same packets")
    func extremeChunkSizes() {
        let stream = sessionStream
        var byByte = H4StreamParser()
        #expect(parseInChunks(stream, parser: &byByte) { 1 } == session)
        var whole = H4StreamParser()
        #expect(whole.parse(stream) == H4ParseResult(packets: session, failure: nil))
    }

    @Test(
        "every packet type survives encode → parse → encode, empty and full",
        arguments: HCIPacketType.allCases)
    func roundTripEveryType(type: HCIPacketType) {
        let headerLength = H4PacketLayout.headerLength(of: type)
        let largest = H4PacketLayout.largestDeclarablePayload(of: type)
        let packets = [0, 1, largest].map { payloadLength in
            HCIPacket(
                type: type,
                body: Self.header(of: type, payloadLength: payloadLength)
                    + (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        }
        #expect(packets.allSatisfy { $0.body.count >= headerLength })
        var parser = H4StreamParser()
        let result = parser.parse(packets.flatMap(\.h4Bytes))
        #expect(result == H4ParseResult(packets: packets, failure: nil))
        #expect(result.packets.flatMap(\.h4Bytes) == packets.flatMap(\.h4Bytes))
    }

    /// A header declaring `payloadLength`, with a handle or opcode in front.
    private static func header(of type: HCIPacketType, payloadLength: Int) -> [UInt8] {
        let low = UInt8(payloadLength & 0xFF)
        let high = UInt8(payloadLength >> 8)
        switch type {
        case .command: return [0x06, 0x20, low]
        case .acl: return [0x40, 0x20, low, high]
        case .sco: return [0x01, 0x00, low]
        case .event: return [0x3E, low]
        case .iso: return [0x60, 0x00, low, high]
        }
    }

    @Test("the ISO length is 14 bits: the two RFU bits above it are not length")
    func isoLengthIgnoresReservedBits() {
        var parser = H4StreamParser()
        let packet: [UInt8] = [0x05, 0x60, 0x00, 0x02, 0xC0, 0xAA, 0xBB]
        let result = parser.parse(packet)
        #expect(
            result
                == H4ParseResult(
                    packets: [HCIPacket(type: .iso, body: [0x60, 0x00, 0x02, 0xC0, 0xAA, 0xBB])], failure: nil
                ))
    }

    @Test("an unknown indicator fails the stream after the packets before it are delivered")
    func unknownIndicatorAfterPackets() throws {
        var parser = H4StreamParser()
        let reset = H4Captures.packet(hex: "040e0401030c00")
        // "HTTP": what a wrong port tends to answer.
        let result = parser.parse(reset.h4Bytes + Array("HTTP/1.1".utf8))
        #expect(result.packets == [reset])
        let failure = try #require(result.failure)
        #expect(failure.kind == .framing)
        #expect(failure.message.contains("stream byte 7"))
        #expect(failure.message.contains("0x48 is not a packet indicator"))
        #expect(failure.message.contains("48 54 54 50 2F 31 2E 31"))
        #expect(parser.failure == failure)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("once framing is lost, later bytes are not trusted")
    func failureIsSticky() {
        var parser = H4StreamParser()
        let first = parser.parse([0x00, 0x04, 0x0E])
        #expect(first.packets.isEmpty)
        #expect(first.failure?.message.contains("0x00 is not a packet indicator") == true)
        let later = parser.parse(sessionStream)
        #expect(later.packets.isEmpty)
        #expect(later.failure == first.failure)
    }

    @Test("a length beyond the limit fails as soon as the header is read, buffering nothing")
    func oversizedLengthFailsEarly() throws {
        var parser = H4StreamParser(maximumPayloadLength: 1021)
        // An ACL header declaring 0x0400 = 1024 bytes, with none of them sent yet.
        let result = parser.parse([0x02, 0x40, 0x20, 0x00, 0x04])
        let failure = try #require(result.failure)
        #expect(failure.kind == .framing)
        #expect(failure.message.contains("declares 1024 payload bytes, more than the 1021"))
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("an unfinished packet is held back and counted, indicator included")
    func unfinishedPacketIsBuffered() {
        var parser = H4StreamParser()
        let report = session[8].h4Bytes
        let head = parser.parse(report.prefix(10))
        #expect(head == H4ParseResult(packets: [], failure: nil))
        #expect(parser.bufferedByteCount == 10)
        let tail = parser.parse(report.dropFirst(10))
        #expect(tail.packets == [session[8]])
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("random bytes never crash the parser nor grow it past one packet")
    func randomBytesStayBounded() {
        var generator = SeededGenerator(seed: 0x6A72_6261_6765)
        let limit = 300
        let bound = 1 + 4 + limit
        for _ in 0..<2_000 {
            var parser = H4StreamParser(maximumPayloadLength: limit)
            // Bias towards valid indicators so that headers and lengths get exercised too.
            for _ in 0..<8 {
                let chunk = (0..<Int.random(in: 1...200, using: &generator)).map { _ in
                    Bool.random(using: &generator)
                        ? UInt8.random(in: 1...5, using: &generator)
                        : UInt8.random(in: 0...255, using: &generator)
                }
                let result = parser.parse(chunk)
                #expect(parser.bufferedByteCount <= bound)
                #expect(result.packets.allSatisfy { H4PacketLayout.layoutProblem(of: $0) == nil })
                if result.failure != nil { break }
            }
        }
    }
}
