#if os(Linux)
import HCITestKit
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

    @Test("a consumer that falls behind pauses the reading: every packet arrives, none is dropped")
    func consumerFallsBehind() async throws {
        let (descriptor, peer) = try socketPair()
        let transport = try start(descriptor, incomingBufferLimit: 4)
        let report = H4Captures.rootCanalScanSession[8]
        // Far more than the inbox holds, written before anybody reads.
        try peer.write(Array(repeating: report.h4Bytes, count: 1000).flatMap { $0 })
        var received = 0
        for try await packet in transport.incoming {
            #expect(packet == report)
            received += 1
            if received == 1000 { break }
        }
        #expect(received == 1000)
        await transport.close()
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
        try fillSendBuffer(descriptor)
        // Only close() can end this send: the peer never reads and the timeout is far away.
        let transport = try start(descriptor, writeTimeout: .seconds(3600))
        let (started, starting) = AsyncStream<Void>.makeStream()
        let sender = Task { () throws(HCITransportError) -> Bool in
            starting.yield()
            try await transport.send(HCIPacket(type: .command, body: [0x03, 0x0C, 0x00]))
            return true
        }
        for await _ in started { break }
        await transport.close()
        let result = await sender.result
        #expect(throws: HCITransportError(.closed, "test-link: the transport is closed")) { try result.get() }
        peer.close()
    }

    @Test("senders waiting for a stalled peer hold no thread: other tasks keep running")
    func waitingSendersHoldNoThread() async throws {
        let (descriptor, peer) = try socketPair()
        try fillSendBuffer(descriptor)
        let transport = try start(descriptor, writeTimeout: .seconds(3600))
        // Many more senders than Swift has cooperative threads (one per core): if a send
        // blocked its thread, the later senders could not even start.
        let senders = 8 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let (started, starting) = AsyncStream<Void>.makeStream()
        let outcomes = Task {
            await withTaskGroup(of: HCITransportError?.self) { group in
                for _ in 0..<senders {
                    group.addTask {
                        starting.yield()
                        do throws(HCITransportError) {
                            try await transport.send(HCIPacket(type: .command, body: [0x03, 0x0C, 0x00]))
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                var errors: [HCITransportError?] = []
                for await outcome in group { errors.append(outcome) }
                return errors
            }
        }
        var running = 0
        for await _ in started {
            running += 1
            if running == senders { break }
        }
        #expect(await Task.detached { 42 }.value == 42)
        await transport.close()
        let closed = HCITransportError(.closed, "test-link: the transport is closed")
        #expect(await outcomes.value == Array(repeating: closed, count: senders))
        peer.close()
    }

    @Test("packets from concurrent senders arrive whole, each sender's in its order")
    func concurrentSendersKeepPacketsWhole() async throws {
        let (descriptor, peer) = try socketPair()
        var small: Int32 = 4096
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let transport = try start(descriptor)
        let senders = 4
        let perSender = 40
        // ACL packets of uneven sizes, larger than the send buffer now and then, so that
        // writes are split: the first two payload bytes say who sent it and its number.
        func packet(sender: Int, number: Int) -> HCIPacket {
            let length = 100 + (sender * 977 + number * 1_361) % 6_000
            let payload = [UInt8(sender), UInt8(number)] + [UInt8](repeating: UInt8(truncatingIfNeeded: number), count: length)
            let count = UInt16(payload.count)
            return HCIPacket(type: .acl, body: [0x40, 0x00, UInt8(count & 0xFF), UInt8(count >> 8)] + payload)
        }
        let total = (0..<senders).flatMap { sender in
            (0..<perSender).map { packet(sender: sender, number: $0).h4Bytes.count }
        }.reduce(0, +)
        async let received = peer.read(count: total, timeout: .seconds(120))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for number in 0..<perSender { try await transport.send(packet(sender: sender, number: number)) }
                }
            }
            try await group.waitForAll()
        }
        var parser = H4StreamParser(maximumPayloadLength: H4StreamParser.largestPossiblePayload)
        let parsed = try await received.withUnsafeBytes { parser.parse($0) }
        #expect(parsed.failure == nil)
        #expect(parsed.packets.count == senders * perSender)
        for sender in 0..<senders {
            let numbers = parsed.packets.filter { $0.body[4] == UInt8(sender) }.map { Int($0.body[5]) }
            #expect(numbers == Array(0..<perSender))
            for number in numbers {
                #expect(parsed.packets.contains(packet(sender: sender, number: number)))
            }
        }
        await transport.close()
        peer.close()
    }

    @Test("a send cancelled before its packet starts is withdrawn; the packet being written finishes whole")
    func cancelledSendIsWithdrawn() async throws {
        let (descriptor, peer) = try socketPair()
        var small: Int32 = 4096
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let transport = try start(descriptor, writeTimeout: .seconds(3600))
        // Far larger than the socket buffers: its write goes on until the peer reads.
        let large = HCIPacket(
            type: .acl, body: [0x40, 0x00, 0x60, 0xEA] + [UInt8](repeating: 0x3C, count: 60_000))
        let first = Task { () throws(HCITransportError) -> Bool in
            try await transport.send(large)
            return true
        }
        // The first byte arriving shows the link has started the large packet.
        let head = try await peer.read(count: 1, timeout: .seconds(120))

        let (started, starting) = AsyncStream<Void>.makeStream()
        let second = Task { () throws(HCITransportError) -> Bool in
            starting.yield()
            try await transport.send(HCIPacket(type: .command, body: [0x03, 0x0C, 0x00]))
            return true
        }
        for await _ in started { break }
        second.cancel()
        let withdrawn = await second.result
        #expect(
            throws: HCITransportError(
                .ioFailure,
                "test-link: the send was cancelled before its packet went out; none of it was written")
        ) { try withdrawn.get() }

        let rest = try await peer.read(count: large.h4Bytes.count - 1, timeout: .seconds(120))
        #expect(head + rest == large.h4Bytes)
        #expect(try await first.value)
        await transport.close()
        // Nothing of the withdrawn packet followed the large one.
        #expect(try await peer.readUntilClosed(timeout: .seconds(120)) == [])
    }

    /// Fills the send buffer of `descriptor` (non-blocking) with bytes the peer never reads,
    /// so that every later write waits for room.
    private func fillSendBuffer(_ descriptor: Int32) throws {
        let filler = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = filler.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return }
            throw POSIXCallError.lastError(of: "send")
        }
    }
}
#endif
