#if os(Linux)
import Glibc
import Testing

@testable import HCI
import HCITransports

/// The packet link under the TCP and serial transports, driven over a local socket pair
/// to reach the limits that a real peer rarely shows.
@Suite("H4 stream link limits", .timeLimit(.minutes(1)))
struct H4StreamLinkTests {
    /// A connected pair of stream sockets: the link's end (non-blocking) and the peer's.
    private func socketPair() throws -> (link: Int32, peer: H4TestPeer) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw POSIXCallError.lastError(of: "socketpair")
        }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return (ends[0], H4TestPeer(descriptor: ends[1], isSocket: true))
    }

    private func start(
        _ descriptor: Int32, writeTimeout: Duration = .seconds(5), incomingBufferLimit: Int = 4096
    ) throws -> POSIXPacketTransport {
        let configuration = PacketLinkConfiguration(
            name: "test-link",
            framing: .h4Stream(maximumPayloadLength: H4StreamParser.largestPossiblePayload),
            writeTimeout: writeTimeout, incomingBufferLimit: incomingBufferLimit
        ) { failure in
            PacketLinkConfiguration.genericExplanation(of: failure, name: "test-link")
        }
        return try POSIXPacketTransport.start(
            descriptor: descriptor, io: SystemDescriptorIO(isSocket: true), configuration: configuration)
    }

    @Test("a consumer that falls behind ends the stream loudly instead of losing events")
    func consumerFallsBehind() async throws {
        let (descriptor, peer) = try socketPair()
        let transport = try start(descriptor, incomingBufferLimit: 4)
        let report = H4Captures.rootCanalScanSession[8]
        try peer.write(Array(repeating: report.h4Bytes, count: 10).flatMap { $0 })
        // Nobody reads until the link has given up; the connection closing shows that.
        #expect(try await peer.readUntilClosed() == [])

        var received: [HCIPacket] = []
        let error = try await #require(throws: HCITransportError.self) {
            for try await packet in transport.incoming { received.append(packet) }
        }
        #expect(received == Array(repeating: report, count: 4))
        #expect(
            error
                == HCITransportError(
                    .ioFailure,
                    "test-link: 4 packets from the controller were left unread; stopping rather than "
                        + "dropping controller events silently"))
    }

    @Test("a peer that stops reading makes a send fail after the write timeout")
    func writeStalls() async throws {
        let (descriptor, peer) = try socketPair()
        var small: Int32 = 4096
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let transport = try start(descriptor, writeTimeout: .milliseconds(200))
        // 1 KiB ACL packets until the peer's receive buffer and our send buffer are full.
        let packet = HCIPacket(
            type: .acl, body: [0x40, 0x00, 0x00, 0x04] + [UInt8](repeating: 0xA5, count: 1024))
        var sent = 0
        let error = try await #require(throws: HCITransportError.self) {
            while sent < 100_000 {
                try await transport.send(packet)
                sent += 1
            }
        }
        #expect(sent > 0)
        #expect(
            error
                == HCITransportError(
                    .ioFailure, "test-link: the controller accepted no data for 200 ms; it may be hung"))
        await transport.close()
        peer.close()
    }

    @Test("close() releases a send that is waiting for the peer")
    func closeReleasesWaitingSend() async throws {
        let (descriptor, peer) = try socketPair()
        var small: Int32 = 4096
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let transport = try start(descriptor, writeTimeout: .seconds(30))
        let packet = HCIPacket(
            type: .acl, body: [0x40, 0x00, 0x00, 0x04] + [UInt8](repeating: 0x5A, count: 1024))
        let sender = Task { () throws(HCITransportError) -> Int in
            var sent = 0
            while true {
                try await transport.send(packet)
                sent += 1
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        await transport.close()
        let result = await sender.result
        #expect(started.duration(to: .now) < .seconds(5))
        #expect(throws: HCITransportError(.closed, "test-link: the transport is closed")) { try result.get() }
        peer.close()
    }
}
#endif
