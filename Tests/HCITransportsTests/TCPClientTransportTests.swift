#if os(Linux)
import ClockTestKit
import HCITestKit
import Glibc
import Testing

@testable import HCI
import HCITransports

@Suite("H4 over TCP", .timeLimit(.minutes(1)))
struct TCPClientTransportTests {
    private func connect(to server: TCPLoopbackServer) async throws -> (any HCITransport, H4TestPeer) {
        let transport = try await TCPClientTransport.connect(host: "127.0.0.1", port: server.port)
        return (transport, try await server.accept())
    }

    @Test("a command goes out whole and split answers come back as packets")
    func roundTrip() async throws {
        let server = try TCPLoopbackServer()
        let (transport, peer) = try await connect(to: server)
        #expect(transport.name == "tcp-client:127.0.0.1:\(server.port)")

        try await transport.send(H4Captures.resetCommand)
        #expect(try await peer.read(count: 4) == [0x01, 0x03, 0x0C, 0x00])

        let answers = Array(H4Captures.rootCanalScanSession[0...8])
        // Split inside the second packet's header (7 + 2) and inside the fourth one's payload
        // (7 + 15 + 13 + 4), as a slow peer would.
        let received = try await deliverSplit(answers, cutAt: [9, 39], from: peer, to: transport)
        #expect(received == answers)
        await transport.close()
    }

    @Test("the peer closing the connection ends the stream with an error, and sends fail")
    func peerClose() async throws {
        let server = try TCPLoopbackServer()
        let (transport, peer) = try await connect(to: server)
        peer.close()

        let error = try await #require(throws: HCITransportError.self) {
            for try await _ in transport.incoming {}
        }
        #expect(error.kind == .ioFailure)
        #expect(
            error.message
                == "tcp-client:127.0.0.1:\(server.port): the controller at 127.0.0.1:\(server.port) closed "
                + "the connection; did its process exit? (RootCanal aborts on a command it cannot parse)")

        let sendError = try await #require(throws: HCITransportError.self) {
            try await transport.send(H4Captures.resetCommand)
        }
        #expect(sendError == error)
        await transport.close()
    }

    @Test("a peer that drops mid-packet is reported with how much of the packet came")
    func peerCloseMidPacket() async throws {
        let server = try TCPLoopbackServer()
        let (transport, peer) = try await connect(to: server)
        try peer.write(Array(H4Captures.rootCanalScanSession[8].h4Bytes.prefix(5)))
        peer.close()
        let error = try await #require(throws: HCITransportError.self) {
            for try await _ in transport.incoming {}
        }
        #expect(
            error.message.contains("closed the connection in the middle of a packet (5 bytes of it received)")
        )
    }

    @Test("a refused connection asks whether the controller is running")
    func connectionRefused() async throws {
        // Bound but not listening: the kernel refuses connections to it, and nobody else
        // can take the port while the test holds it.
        let closedPort = try TCPLoopbackServer(listening: false)
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await TCPClientTransport.connect(host: "127.0.0.1", port: closedPort.port)
        }
        #expect(error.kind == .connectFailed)
        #expect(
            error.message
                == "tcp-client:127.0.0.1:\(closedPort.port): connection refused: is the controller/RootCanal "
                + "running on 127.0.0.1:\(closedPort.port)?")
    }

    @Test("a connect that gets no answer gives up after the timeout")
    func connectTimeout() async throws {
        // A listener whose accept queue is full drops further SYNs, so the next connect
        // waits unanswered: Linux queues backlog + 1 connections, here one.
        let server = try TCPLoopbackServer(backlog: 0)
        let filler = try await TCPClientTransport.connect(host: "127.0.0.1", port: server.port)
        let started = ContinuousClock.now
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await TCPClientTransport.connect(
                host: "127.0.0.1", port: server.port, connectTimeout: .milliseconds(300))
        }
        #expect(started.duration(to: .now) >= .milliseconds(300))
        #expect(error.kind == .connectFailed)
        #expect(
            error.message
                == "tcp-client:127.0.0.1:\(server.port): no answer from 127.0.0.1:\(server.port) within 300 ms: "
                + "check the address and port, and that no firewall drops the connection")
        await filler.close()
    }

    @Test("an unresolvable host name says so")
    func unresolvableHost() async throws {
        // ".invalid" is reserved never to resolve (RFC 6761).
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await TCPClientTransport.connect(host: "controller.invalid", port: 6402)
        }
        #expect(error.kind == .connectFailed)
        #expect(
            error.message.hasPrefix(
                "tcp-client:controller.invalid:6402: cannot resolve host \"controller.invalid\""))
    }

    @Test("close() stops a reader parked in poll, ends the stream cleanly and is idempotent")
    func closeUnblocksReader() async throws {
        let server = try TCPLoopbackServer()
        let (transport, peer) = try await connect(to: server)
        let delivered = WatchedState(0)
        let listener = Task { () throws -> Int in
            for try await _ in transport.incoming { delivered.update { $0 += 1 } }
            return delivered.value
        }
        // A packet delivered is the event that the reader runs: it has gone back to poll for
        // the next (a close() before it is in poll is seen by the poll too).
        try peer.write(H4Captures.rootCanalScanSession[0].h4Bytes)
        try await delivered.wait(for: "the first packet delivered") { $0 == 1 }
        await transport.close()
        #expect(try await listener.value == 1)
        #expect(try await peer.readUntilClosed() == [])
        await transport.close()

        let error = try await #require(throws: HCITransportError.self) {
            try await transport.send(H4Captures.resetCommand)
        }
        #expect(
            error
                == HCITransportError(.closed, "tcp-client:127.0.0.1:\(server.port): the transport is closed"))
    }

    @Test("bytes that are not H4 end the stream with a framing error naming the endpoint")
    func garbageFromPeer() async throws {
        let server = try TCPLoopbackServer()
        let (transport, peer) = try await connect(to: server)
        try peer.write(Array("SSH-2.0-OpenSSH_9.2\r\n".utf8))
        let error = try await #require(throws: HCITransportError.self) {
            for try await _ in transport.incoming {}
        }
        #expect(error.kind == .framing)
        #expect(error.message.contains("0x53 is not a packet indicator"))
        #expect(error.message.contains("Is 127.0.0.1:\(server.port) an H4 endpoint"))
        // The transport gave up on the link: the peer sees it closed.
        #expect(try await peer.readUntilClosed() == [])
    }

    @Test("a malformed packet is refused before any byte of it is sent")
    func malformedPacketIsNotSent() async throws {
        let server = try TCPLoopbackServer()
        let (transport, peer) = try await connect(to: server)
        let error = try await #require(throws: HCITransportError.self) {
            try await transport.send(HCIPacket(type: .command, body: [0x03, 0x0C, 0x05]))
        }
        #expect(error.kind == .framing)
        #expect(
            error.message.hasPrefix(
                "tcp-client:127.0.0.1:\(server.port): refusing to send a malformed command"))
        await transport.close()
        #expect(try await peer.readUntilClosed() == [])
    }

    @Test("concurrent senders never interleave the bytes of their packets")
    func concurrentSends() async throws {
        let server = try TCPLoopbackServer()
        let (transport, peer) = try await connect(to: server)
        // LE Set Advertising Data commands, 36 bytes each, every one distinct.
        let packets = (0..<64).map { index in
            HCIPacket(
                type: .command, body: [0x08, 0x20, 0x20, 0x1F] + [UInt8](repeating: UInt8(index), count: 31))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for packet in packets {
                group.addTask { try await transport.send(packet) }
            }
            try await group.waitForAll()
        }
        let bytes = try await peer.read(count: packets.count * 36)
        var parser = H4StreamParser()
        let result = parser.parse(bytes)
        #expect(result.failure == nil)
        #expect(Set(result.packets) == Set(packets))
        await transport.close()
    }

    @Test("a consumer that stops listening closes the link")
    func consumerCancellation() async throws {
        let server = try TCPLoopbackServer()
        let (transport, peer) = try await connect(to: server)
        let delivered = WatchedState(0)
        let listener = Task {
            for try await _ in transport.incoming { delivered.update { $0 += 1 } }
        }
        // The listener iterates the real socket's stream once a packet has reached it.
        try peer.write(H4Captures.rootCanalScanSession[0].h4Bytes)
        try await delivered.wait(for: "the first packet delivered") { $0 == 1 }
        listener.cancel()
        #expect(try await peer.readUntilClosed() == [])
    }

    @Test("dropping the transport without close() still closes the connection")
    func droppedTransportCloses() async throws {
        let server = try TCPLoopbackServer()
        var transport: (any HCITransport)? = try await TCPClientTransport.connect(
            host: "127.0.0.1", port: server.port)
        let peer = try await server.accept()
        #expect(transport != nil)
        transport = nil
        #expect(try await peer.readUntilClosed() == [])
    }
}
#endif
