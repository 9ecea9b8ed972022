#if os(Linux)
import BeaconCore
import Glibc

/// How the bytes read from a descriptor become packets.
package enum PacketFraming: Sendable {
    /// A byte stream with H4 indicators (TCP, UART): packets may be split or joined.
    case h4Stream(maximumPayloadLength: Int)
    /// Every read returns exactly one packet, indicator first (Linux kernel HCI sockets).
    case onePacketPerRead
}

/// Why a link stopped or a send failed, before it is worded for the user.
package enum LinkFailure: Sendable, Equatable {
    case readFailed(POSIXCallError)
    case writeFailed(POSIXCallError)
    /// The peer closed the stream; `unfinishedPacketBytes` is non-zero if it did so mid-packet.
    case endOfStream(unfinishedPacketBytes: Int)
    /// The descriptor accepted no bytes for the whole write timeout.
    case writeStalled(Duration)
    /// The bytes could not be cut into packets.
    case framing(HCITransportError)
}

/// Everything a ``POSIXPacketTransport`` needs besides its descriptor.
package struct PacketLinkConfiguration: Sendable {
    /// The transport spec, e.g. `tcp-client:127.0.0.1:6402`: the prefix of every message.
    package var name: String
    package var framing: PacketFraming
    /// How long a send may wait for a descriptor that accepts no bytes.
    package var writeTimeout: Duration
    /// Packets `incoming` holds for a slow consumer; beyond, the link stops reading until the
    /// consumer catches up (the bytes wait in the descriptor, nothing is dropped).
    package var incomingBufferLimit: Int
    /// Words a failure: what happened on this link (and, as its `cause`, the facts that say
    /// what the user can do; the words for that are chosen above the transports).
    package var explain: @Sendable (LinkFailure) -> HCITransportError

    package init(
        name: String, framing: PacketFraming, writeTimeout: Duration = .seconds(5),
        incomingBufferLimit: Int = 4096,
        explain: @escaping @Sendable (LinkFailure) -> HCITransportError
    ) {
        self.name = name
        self.framing = framing
        self.writeTimeout = writeTimeout
        self.incomingBufferLimit = incomingBufferLimit
        self.explain = explain
    }

    /// The wording for failures a transport has nothing specific to add to.
    package static func genericExplanation(
        of failure: LinkFailure, name: String
    ) -> HCITransportError {
        switch failure {
        case .readFailed(let error):
            return HCITransportError(.ioFailure, "\(name): reading from the controller failed: \(error)")
        case .writeFailed(let error):
            return HCITransportError(.ioFailure, "\(name): sending to the controller failed: \(error)")
        case .endOfStream(let unfinished):
            return HCITransportError(
                .ioFailure,
                "\(name): the controller closed the link"
                    + (unfinished > 0
                        ? " in the middle of a packet (\(unfinished) bytes of it received)" : ""))
        case .writeStalled(let timeout):
            return HCITransportError(
                .ioFailure,
                "\(name): the controller accepted no data for \(timeout.spokenForMessages); it may be hung")
        case .framing(let error):
            return HCITransportError(.framing, "\(name): \(error.message)")
        }
    }
}

/// Cuts what one read returned into packets, per ``PacketFraming``.
struct PacketFramer {
    private var parser: H4StreamParser?

    init(_ framing: PacketFraming) {
        switch framing {
        case .h4Stream(let maximumPayloadLength):
            parser = H4StreamParser(maximumPayloadLength: maximumPayloadLength)
        case .onePacketPerRead:
            parser = nil
        }
    }

    /// The largest read worth asking for: a comfortable chunk of a stream, or the largest
    /// packet any header can declare (indicator, ACL header, 65535 bytes) so that a kernel
    /// read is never truncated.
    var readCapacity: Int {
        parser == nil ? 1 + H4PacketLayout.headerLength(of: .acl) + Int(UInt16.max) : 16 * 1024
    }

    /// Bytes of a packet still waiting for the rest of it.
    var unfinishedPacketBytes: Int { parser?.bufferedByteCount ?? 0 }

    mutating func packets(from bytes: UnsafeRawBufferPointer) -> H4ParseResult {
        if let streamed = parser?.parse(bytes) { return streamed }
        do {
            return H4ParseResult(packets: [try H4PacketLayout.decodeWholePacket(bytes)], failure: nil)
        } catch {
            return H4ParseResult(packets: [], failure: error)
        }
    }
}
#endif
import HCI
