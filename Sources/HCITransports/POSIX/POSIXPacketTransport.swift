#if os(Linux)
import Glibc
import Synchronization

/// An ``HCITransport`` over one open descriptor: a TCP socket, a tty or a kernel HCI socket.
///
/// A dedicated thread parks in `poll` on the descriptor and on a wake-up socket, frames what
/// it reads into packets and yields them to `incoming`. Sends write whole packets under a
/// lock, so concurrent senders never interleave bytes. `close()` (or dropping the transport)
/// signals the wake-up socket; the reader then closes the descriptor, once no send is using
/// it, and ends the stream. Whatever stops the reader (close, a dropped peer, garbage on the
/// line) follows that one path, so the descriptor is closed exactly once.
package final class POSIXPacketTransport: HCITransport {
    package let name: String
    package let incoming: AsyncThrowingStream<HCIPacket, any Error>
    private let link: PacketLink

    private init(name: String, incoming: AsyncThrowingStream<HCIPacket, any Error>, link: PacketLink) {
        self.name = name
        self.incoming = incoming
        self.link = link
    }

    /// Takes ownership of `descriptor` (closed on every path, including a throw) and starts
    /// its reader thread. The descriptor should be non-blocking: the reader only reads after
    /// `poll` reports data, and a send waits in `poll` rather than in `write`.
    package static func start(
        descriptor: Int32, io: any PacketDescriptorIO, configuration: PacketLinkConfiguration
    ) throws(HCITransportError) -> POSIXPacketTransport {
        let wakeup: WakeupChannel
        do {
            wakeup = try WakeupChannel()
        } catch {
            io.close(descriptor)
            throw HCITransportError(
                .ioFailure, "\(configuration.name): cannot create the reader's wake-up socket: \(error)")
        }
        let (stream, continuation) = AsyncThrowingStream<HCIPacket, any Error>.makeStream(
            bufferingPolicy: .bufferingOldest(configuration.incomingBufferLimit))
        let link = PacketLink(
            descriptor: descriptor, io: io, configuration: configuration, wakeup: wakeup,
            continuation: continuation)
        // A consumer that stops listening leaves nobody to read the controller: stop the link.
        continuation.onTermination = { [weak link] termination in
            if case .cancelled = termination { link?.requestClose() }
        }
        do {
            try POSIXThread.detach { link.runReader() }
        } catch {
            io.close(descriptor)
            continuation.finish()
            throw HCITransportError(
                .ioFailure, "\(configuration.name): cannot start the reader thread: \(error)")
        }
        return POSIXPacketTransport(name: configuration.name, incoming: stream, link: link)
    }

    /// Writes the whole packet or fails. HCI packets are small and the descriptor normally
    /// takes them at once; only when its send buffer is full does the caller wait, in
    /// `poll`, for at most the configured write timeout.
    package func send(_ packet: HCIPacket) async throws(HCITransportError) {
        do {
            try H4PacketLayout.validate(packet)
        } catch {
            throw HCITransportError(error.kind, "\(name): \(error.message)")
        }
        try link.write(packet.h4Bytes)
    }

    package func close() async {
        await link.close()
    }

    deinit {
        link.requestClose()
    }
}

/// The state shared by the transport, its reader thread and its senders.
private final class PacketLink: Sendable {
    private struct WriterState {
        var isOpen = true
        /// Why the link ended; what later sends report.
        var endError: HCITransportError?
    }

    private struct Lifecycle {
        var readerFinished = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private enum ReaderOutcome {
        case closedByHost
        case failed(HCITransportError)
    }

    private let descriptor: Int32
    private let io: any PacketDescriptorIO
    private let configuration: PacketLinkConfiguration
    private let wakeup: WakeupChannel
    private let continuation: AsyncThrowingStream<HCIPacket, any Error>.Continuation
    /// Held for the whole of a packet's write, and by the reader while it closes the descriptor.
    private let writer = Mutex(WriterState())
    private let lifecycle = Mutex(Lifecycle())

    init(
        descriptor: Int32, io: any PacketDescriptorIO, configuration: PacketLinkConfiguration,
        wakeup: WakeupChannel, continuation: AsyncThrowingStream<HCIPacket, any Error>.Continuation
    ) {
        self.descriptor = descriptor
        self.io = io
        self.configuration = configuration
        self.wakeup = wakeup
        self.continuation = continuation
    }

    private var closedError: HCITransportError {
        HCITransportError(.closed, "\(configuration.name): the transport is closed")
    }

    func requestClose() {
        wakeup.signal()
    }

    func close() async {
        requestClose()
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let alreadyFinished = lifecycle.withLock { state in
                if state.readerFinished { return true }
                state.closeWaiters.append(waiter)
                return false
            }
            if alreadyFinished { waiter.resume() }
        }
    }

    // MARK: Reading (on the reader thread)

    func runReader() {
        let outcome = pumpUntilStopped()
        // Release any sender parked in poll before taking the writer lock it holds.
        wakeup.signal()
        writer.withLock { state in
            state.isOpen = false
            if case .failed(let error) = outcome { state.endError = error }
            io.close(descriptor)
        }
        switch outcome {
        case .closedByHost: continuation.finish()
        case .failed(let error): continuation.finish(throwing: error)
        }
        let waiters = lifecycle.withLock { state in
            state.readerFinished = true
            defer { state.closeWaiters = [] }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func pumpUntilStopped() -> ReaderOutcome {
        var framer = PacketFramer(configuration.framing)
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: framer.readCapacity, alignment: MemoryLayout<UInt8>.alignment)
        defer { buffer.deallocate() }
        while true {
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeup.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            do {
                _ = try io.poll(&descriptors, timeoutMilliseconds: -1)
            } catch where error.code == EINTR {
                continue
            } catch {
                return .failed(configuration.explain(.readFailed(error)))
            }
            // Closing wins over data still queued: the host asked to stop listening.
            if descriptors[1].revents != 0 { return .closedByHost }
            if descriptors[0].revents == 0 { continue }

            let count: Int
            do {
                count = try io.read(descriptor, into: buffer)
            } catch where error.code == EINTR || error.code == EAGAIN || error.code == EWOULDBLOCK {
                continue
            } catch {
                return .failed(configuration.explain(.readFailed(error)))
            }
            guard count > 0 else {
                let unfinished = framer.unfinishedPacketBytes
                return .failed(configuration.explain(.endOfStream(unfinishedPacketBytes: unfinished)))
            }

            let result = framer.packets(from: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            for packet in result.packets {
                switch continuation.yield(packet) {
                case .enqueued:
                    continue
                case .dropped:
                    let limit = configuration.incomingBufferLimit
                    return .failed(configuration.explain(.consumerFellBehind(unreadPackets: limit)))
                case .terminated:
                    return .closedByHost
                @unknown default:
                    return .closedByHost
                }
            }
            if let failure = result.failure {
                return .failed(configuration.explain(.framing(failure)))
            }
        }
    }

    // MARK: Writing (on the sender's thread)

    func write(_ bytes: [UInt8]) throws(HCITransportError) {
        try writer.withLock { (state) throws(HCITransportError) -> Void in
            guard state.isOpen else { throw state.endError ?? closedError }
            try writeAll(bytes)
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws(HCITransportError) {
        let deadline = ContinuousClock.now + configuration.writeTimeout
        var written = 0
        while written < bytes.count {
            let attempt = bytes.withUnsafeBytes { raw in
                Result { () throws(POSIXCallError) -> Int in
                    try io.write(descriptor, from: UnsafeRawBufferPointer(rebasing: raw[written...]))
                }
            }
            switch attempt {
            case .success(let count) where count > 0:
                written += count
            case .success:
                try waitUntilWritable(before: deadline)
            case .failure(let error) where error.code == EINTR:
                continue
            case .failure(let error) where error.code == EAGAIN || error.code == EWOULDBLOCK:
                try waitUntilWritable(before: deadline)
            case .failure(let error):
                throw configuration.explain(.writeFailed(error))
            }
        }
    }

    private func waitUntilWritable(before deadline: ContinuousClock.Instant) throws(HCITransportError) {
        let remaining = ContinuousClock.now.duration(to: deadline)
        let stalled = LinkFailure.writeStalled(configuration.writeTimeout)
        guard remaining > .zero else { throw configuration.explain(stalled) }
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: wakeup.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        let ready: Int32
        do {
            ready = try io.poll(&descriptors, timeoutMilliseconds: remaining.pollTimeoutMilliseconds)
        } catch where error.code == EINTR {
            return
        } catch {
            throw configuration.explain(.writeFailed(error))
        }
        if descriptors[1].revents != 0 { throw closedError }
        if ready == 0 { throw configuration.explain(stalled) }
    }
}

/// A socket pair whose only job is to wake `poll`: once signalled it stays readable (it is
/// never drained), so every later `poll` on it, by the reader or a sender, returns at once.
private final class WakeupChannel: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(POSIXCallError) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw POSIXCallError.lastError(of: "socketpair")
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    func signal() {
        // EAGAIN means the buffer already holds signals: the channel is readable either way.
        var byte: UInt8 = 1
        _ = Glibc.send(writeEnd, &byte, 1, Int32(MSG_NOSIGNAL))
    }

    deinit {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}
#endif
import HCI
