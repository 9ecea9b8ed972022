/// Cuts an H4 byte stream (UART, TCP) into whole HCI packets (Core v5.4 Vol 4 Part A, 2).
///
/// Feed it chunks exactly as they were read; packets may be split or joined at any byte.
/// It never holds more than one unfinished packet: at most the header plus
/// ``maximumPayloadLength`` bytes, whatever the peer sends.
///
/// **Policy on a bad indicator or length: fail, do not resynchronise.** H4 has no sync word
/// and no checksum, so every byte value 0x01–0x05 occurs inside payloads; "skipping to the
/// next plausible indicator" would land mid-packet and hand the host fabricated events (a
/// Command Complete for a command never sent, an advertising report from nobody). The
/// specification says the same: H4 assumes an error-free line, and a wrong indicator or an
/// out-of-range length is a loss of synchronisation that needs a reset (Core v5.4 Vol 4
/// Part A, 1 and 4). So the parser reports a `.framing` error once and stays failed; the
/// transport ends its stream with that error and the host reopens and resets the controller.
public struct H4StreamParser: Sendable {
    /// The largest payload any H4 header can declare (ACL's 16-bit length).
    public static let largestPossiblePayload = Int(UInt16.max)

    /// Payloads longer than this are refused as a framing error before any of them is
    /// buffered. Lower it to the controller's buffer size to catch garbage earlier.
    public let maximumPayloadLength: Int

    private enum State: Sendable {
        case awaitingIndicator
        case readingHeader(HCIPacketType)
        case readingPayload(HCIPacketType, packetLength: Int)
        case failed(HCITransportError)
    }

    private var state = State.awaitingIndicator
    /// The unfinished packet's bytes after its indicator.
    private var pending: [UInt8] = []
    /// Bytes consumed since the stream began: locates a failure for whoever reads the log.
    private var streamOffset = 0

    public init(maximumPayloadLength: Int = H4StreamParser.largestPossiblePayload) {
        self.maximumPayloadLength = max(0, min(maximumPayloadLength, Self.largestPossiblePayload))
    }

    /// Bytes of an unfinished packet held back until the rest arrives (indicator included).
    /// Non-zero when a stream ends means it ended mid-packet.
    public var bufferedByteCount: Int {
        switch state {
        case .awaitingIndicator, .failed: 0
        case .readingHeader, .readingPayload: 1 + pending.count
        }
    }

    /// The framing error the parser stopped at, if any.
    public var failure: HCITransportError? {
        if case .failed(let error) = state { return error }
        return nil
    }

    /// Consumes one chunk of the stream. Returns the packets it completed, in order, and
    /// the framing error that stopped the parser, if any. Packets completed before the
    /// error are still returned; once failed, later chunks are ignored.
    public mutating func parse<Chunk: Collection<UInt8>>(_ chunk: Chunk) -> H4ParseResult {
        var packets: [HCIPacket] = []
        var index = chunk.startIndex
        while index != chunk.endIndex {
            switch state {
            case .failed:
                return H4ParseResult(packets: packets, failure: failure)

            case .awaitingIndicator:
                let byte = chunk[index]
                guard let type = HCIPacketType(rawValue: byte) else {
                    fail(unknownIndicator(byte, followedBy: chunk[chunk.index(after: index)...]))
                    continue
                }
                index = chunk.index(after: index)
                streamOffset += 1
                pending.removeAll(keepingCapacity: true)
                state = .readingHeader(type)

            case .readingHeader(let type):
                let headerLength = H4PacketLayout.headerLength(of: type)
                index = take(headerLength - pending.count, from: chunk, at: index)
                guard let payloadLength = H4PacketLayout.declaredPayloadLength(of: type, header: pending)
                else { continue }
                guard payloadLength <= maximumPayloadLength else {
                    fail(oversized(type, payloadLength: payloadLength))
                    continue
                }
                state = .readingPayload(type, packetLength: headerLength + payloadLength)

            case .readingPayload(_, let packetLength):
                index = take(packetLength - pending.count, from: chunk, at: index)
            }
            // Checked after every step, not only after payload bytes: a packet with an empty
            // payload is complete as soon as its header is, and must not wait for more input.
            if case .readingPayload(let type, let packetLength) = state, pending.count == packetLength {
                packets.append(HCIPacket(type: type, body: pending))
                state = .awaitingIndicator
            }
        }
        return H4ParseResult(packets: packets, failure: failure)
    }

    /// Appends up to `count` bytes of `chunk` from `index` to the pending packet.
    private mutating func take<Chunk: Collection<UInt8>>(
        _ count: Int, from chunk: Chunk, at index: Chunk.Index
    ) -> Chunk.Index {
        let end = chunk.index(index, offsetBy: count, limitedBy: chunk.endIndex) ?? chunk.endIndex
        let before = pending.count
        pending.append(contentsOf: chunk[index..<end])
        streamOffset += pending.count - before
        return end
    }

    private mutating func fail(_ error: HCITransportError) {
        pending = []
        state = .failed(error)
    }

    private func unknownIndicator<Rest: Collection<UInt8>>(
        _ byte: UInt8, followedBy rest: Rest
    ) -> HCITransportError {
        let shown = ([byte] + rest.prefix(7)).map { HexText.code($0).dropFirst(2) }
        return HCITransportError(
            .framing,
            "H4 framing lost at stream byte \(streamOffset): \(HexText.code(byte)) is not a "
                + "packet indicator (expected \(H4PacketLayout.knownIndicators)); next bytes "
                + "\(shown.joined(separator: " ")). \(Self.recoveryAdvice)")
    }

    /// H4 cannot resynchronise by itself (see the type's comment): only a fresh start helps.
    private static let recoveryAdvice =
        "The peer is not speaking H4 or bytes were lost; reopen the transport so the controller is reset"

    private func oversized(_ type: HCIPacketType, payloadLength: Int) -> HCITransportError {
        HCITransportError(
            .framing,
            "H4 framing lost at stream byte \(streamOffset): the header of this "
                + "\(H4PacketLayout.kindName(type)) packet declares \(payloadLength) payload bytes, "
                + "more than the \(maximumPayloadLength) this host accepts. \(Self.recoveryAdvice)")
    }
}

/// What one ``H4StreamParser/parse(_:)`` call produced.
public struct H4ParseResult: Sendable, Equatable {
    /// Whole packets, in stream order.
    public var packets: [HCIPacket]
    /// Set when the stream cannot be framed any further.
    public var failure: HCITransportError?

    public init(packets: [HCIPacket], failure: HCITransportError?) {
        self.packets = packets
        self.failure = failure
    }
}
