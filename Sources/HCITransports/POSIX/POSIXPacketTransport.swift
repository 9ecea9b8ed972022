#if os(Linux)
import Glibc
import Synchronization

/// An ``HCITransport`` over one open descriptor: a TCP socket, a tty or a kernel HCI socket.
///
/// One dedicated thread owns the descriptor. It parks in `poll` on the descriptor, on a
/// doorbell rung by senders and on a closing socket; it frames what it reads into packets
/// for `incoming` and writes queued packets whole, in the order they were sent. When the
/// consumer of `incoming` falls `incomingBufferLimit` packets behind, the thread stops
/// reading until it catches up: the bytes wait in the descriptor (and the peer is slowed
/// down by its flow control), so nothing is dropped here. Loss, if any, happens where it is
/// counted: in the host's subscriptions (`HostController.events(bufferSize:drops:)`). A `send`
/// only queues its packet and suspends until the thread has written it (or failed to), so
/// no caller ever blocks one of Swift's cooperative threads, however slow the peer.
/// `close()` (or dropping the transport) signals the closing socket; the thread then fails
/// what is still queued, closes the descriptor and ends the stream. Whatever stops it
/// (close, a dropped peer, garbage on the line) follows that one path, so the descriptor is
/// closed exactly once.
package final class POSIXPacketTransport: HCITransport {
    package let name: String
    package let incoming: AsyncThrowingStream<HCIPacket, any Error>
    private let link: PacketLink

    private init(name: String, incoming: AsyncThrowingStream<HCIPacket, any Error>, link: PacketLink) {
        self.name = name
        self.incoming = incoming
        self.link = link
    }

    /// Takes ownership of `descriptor` (closed on every path, including a throw), makes it
    /// non-blocking (the link thread may wait in `poll` only, where closing can wake it) and
    /// starts the link thread.
    package static func start(
        descriptor: Int32, io: any PacketDescriptorIO, configuration: PacketLinkConfiguration
    ) throws(HCITransportError) -> POSIXPacketTransport {
        let closing: SignalChannel
        let doorbell: SignalChannel
        do {
            closing = try SignalChannel()
            doorbell = try SignalChannel()
        } catch {
            io.close(descriptor)
            throw HCITransportError(
                .ioFailure, "\(configuration.name): cannot create the link thread's wake-up sockets: \(error)")
        }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, flags & O_NONBLOCK != 0 || fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            let error = POSIXCallError.lastError(of: "fcntl(O_NONBLOCK)")
            io.close(descriptor)
            throw HCITransportError(
                .ioFailure, "\(configuration.name): cannot make the descriptor non-blocking: \(error)")
        }
        let room: SignalChannel
        do {
            room = try SignalChannel()
        } catch {
            io.close(descriptor)
            throw HCITransportError(
                .ioFailure, "\(configuration.name): cannot create the link thread's wake-up sockets: \(error)")
        }
        let inbox = PacketInbox(capacity: max(1, configuration.incomingBufferLimit), room: room)
        // Pulled by the consumer: each `next()` takes a packet the link thread has framed.
        let stream = AsyncThrowingStream<HCIPacket, any Error>(unfolding: { try await inbox.next() })
        let link = PacketLink(
            descriptor: descriptor, io: io, configuration: configuration, closing: closing,
            doorbell: doorbell, inbox: inbox)
        // A consumer cancelled while waiting leaves nobody to read the controller: stop the link.
        inbox.onConsumerCancelled = { [weak link] in link?.requestClose() }
        do {
            try POSIXThread.detach { link.run() }
        } catch {
            io.close(descriptor)
            inbox.finish(throwing: nil)
            throw HCITransportError(
                .ioFailure, "\(configuration.name): cannot start the link thread: \(error)")
        }
        return POSIXPacketTransport(name: configuration.name, incoming: stream, link: link)
    }

    /// Writes the whole packet or fails; packets go out in the order of the calls. The link
    /// thread writes it: this call suspends without blocking its thread. A packet that the
    /// descriptor does not take within the configured write timeout fails the send; a send
    /// cancelled before its packet was started is withdrawn (nothing of it is written), one
    /// cancelled later waits for its packet to go out whole, so that the stream stays framed.
    package func send(_ packet: HCIPacket) async throws(HCITransportError) {
        do {
            try H4PacketLayout.validate(packet)
        } catch {
            throw HCITransportError(error.kind, "\(name): \(error.message)")
        }
        try await link.write(packet.h4Bytes)
    }

    package func close() async {
        await link.close()
    }

    deinit {
        link.requestClose()
    }
}

/// The state shared by the transport, its link thread and its senders.
private final class PacketLink: Sendable {
    /// One packet waiting for the link thread, and the sender suspended until it is written.
    private struct QueuedWrite {
        var id: UInt64
        var bytes: [UInt8]
        var sender: CheckedContinuation<Result<Void, HCITransportError>, Never>
    }

    /// The packet the link thread is writing: how far it got, and until when it may wait.
    private struct CurrentWrite {
        var queued: QueuedWrite
        var written = 0
        var deadline: ContinuousClock.Instant
    }

    private struct WriterState {
        var isOpen = true
        /// Why the link ended; what later sends report.
        var endError: HCITransportError?
        var queue: [QueuedWrite] = []
        var nextID: UInt64 = 0
    }

    private struct Lifecycle {
        var finished = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private enum LinkOutcome {
        case closedByHost
        case failed(HCITransportError)
    }

    private enum WriteProgress {
        case finished
        case waitingForRoom
        case failed(HCITransportError)
    }

    private let descriptor: Int32
    private let io: any PacketDescriptorIO
    private let configuration: PacketLinkConfiguration
    /// Signalled once, never drained: the link is to stop.
    private let closing: SignalChannel
    /// Rung by each send and drained by the link thread: the queue has a new packet.
    private let doorbell: SignalChannel
    private let inbox: PacketInbox
    private let writer = Mutex(WriterState())
    private let lifecycle = Mutex(Lifecycle())

    init(
        descriptor: Int32, io: any PacketDescriptorIO, configuration: PacketLinkConfiguration,
        closing: SignalChannel, doorbell: SignalChannel, inbox: PacketInbox
    ) {
        self.descriptor = descriptor
        self.io = io
        self.configuration = configuration
        self.closing = closing
        self.doorbell = doorbell
        self.inbox = inbox
    }

    private var closedError: HCITransportError {
        HCITransportError(.closed, "\(configuration.name): the transport is closed")
    }

    private var cancelledError: HCITransportError {
        HCITransportError(
            .ioFailure, "\(configuration.name): the send was cancelled before its packet went out; none of it was written")
    }

    func requestClose() {
        closing.signal()
    }

    func close() async {
        requestClose()
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let alreadyFinished = lifecycle.withLock { state in
                if state.finished { return true }
                state.closeWaiters.append(waiter)
                return false
            }
            if alreadyFinished { waiter.resume() }
        }
    }

    // MARK: Sending (on the caller's task)

    func write(_ bytes: [UInt8]) async throws(HCITransportError) {
        let id = writer.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (sender: CheckedContinuation<Result<Void, HCITransportError>, Never>) in
                let refusal = writer.withLock { state -> HCITransportError? in
                    guard state.isOpen else { return state.endError ?? closedError }
                    guard !Task.isCancelled else { return cancelledError }
                    state.queue.append(QueuedWrite(id: id, bytes: bytes, sender: sender))
                    return nil
                }
                if let refusal {
                    sender.resume(returning: .failure(refusal))
                } else {
                    doorbell.signal()
                }
            }
        } onCancel: {
            withdraw(id)
        }
        try result.get()
    }

    /// Takes a packet the link thread has not started back out of the queue.
    private func withdraw(_ id: UInt64) {
        let withdrawn = writer.withLock { state -> QueuedWrite? in
            guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
            return state.queue.remove(at: index)
        }
        withdrawn?.sender.resume(returning: .failure(cancelledError))
    }

    // MARK: The link thread

    func run() {
        var current: CurrentWrite?
        let outcome = pumpUntilStopped(current: &current)
        let endError: HCITransportError?
        switch outcome {
        case .closedByHost: endError = nil
        case .failed(let error): endError = error
        }
        // From here on, sends are refused with the reason; those still queued get it too.
        let abandoned = writer.withLock { state in
            state.isOpen = false
            state.endError = endError
            defer { state.queue = [] }
            return state.queue
        }
        let reason = endError ?? closedError
        current?.queued.sender.resume(returning: .failure(reason))
        for queued in abandoned { queued.sender.resume(returning: .failure(reason)) }
        io.close(descriptor)
        inbox.finish(throwing: endError)
        let waiters = lifecycle.withLock { state in
            state.finished = true
            defer { state.closeWaiters = [] }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func pumpUntilStopped(current: inout CurrentWrite?) -> LinkOutcome {
        var framer = PacketFramer(configuration.framing)
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: framer.readCapacity, alignment: MemoryLayout<UInt8>.alignment)
        defer { buffer.deallocate() }
        while true {
            // Write what the descriptor takes now; a packet it cannot take waits for POLLOUT.
            while true {
                if current == nil {
                    guard let next = takeQueuedWrite() else { break }
                    current = CurrentWrite(queued: next, deadline: .now + configuration.writeTimeout)
                }
                guard var writing = current else { break }
                let progress = advance(&writing)
                current = writing
                if case .waitingForRoom = progress, writing.deadline > .now { break }
                current = nil
                switch progress {
                case .finished:
                    writing.queued.sender.resume(returning: .success(()))
                case .failed(let error):
                    writing.queued.sender.resume(returning: .failure(error))
                case .waitingForRoom:
                    let stalled = configuration.explain(.writeStalled(configuration.writeTimeout))
                    writing.queued.sender.resume(returning: .failure(stalled))
                }
            }

            let wantsRoom = current != nil
            // Reading pauses while the consumer is a full inbox behind; `room` wakes it.
            let reading = !inbox.isFull
            let wantedEvents = (reading ? Int16(POLLIN) : 0) | (wantsRoom ? Int16(POLLOUT) : 0)
            var descriptors = [
                pollfd(fd: descriptor, events: wantedEvents, revents: 0),
                pollfd(fd: closing.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: doorbell.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: inbox.room.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            let timeout = current.map { ContinuousClock.now.duration(to: $0.deadline).pollTimeoutMilliseconds } ?? -1
            do {
                _ = try io.poll(&descriptors, timeoutMilliseconds: timeout)
            } catch where error.code == EINTR {
                continue
            } catch {
                return .failed(configuration.explain(.readFailed(error)))
            }
            // Closing wins over data still queued: the host asked to stop listening.
            if descriptors[1].revents != 0 { return .closedByHost }
            if descriptors[2].revents != 0 { doorbell.drain() }
            if descriptors[3].revents != 0 { inbox.room.drain() }
            // POLLOUT alone is handled by the writing above; anything else means a read
            // has something to say (data, end of stream or the descriptor's error).
            guard reading, descriptors[0].revents & ~Int16(POLLOUT) != 0 else { continue }

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
            inbox.deliver(result.packets)
            if let failure = result.failure {
                return .failed(configuration.explain(.framing(failure)))
            }
        }
    }

    private func takeQueuedWrite() -> QueuedWrite? {
        writer.withLock { state in
            state.queue.isEmpty ? nil : state.queue.removeFirst()
        }
    }

    /// Writes as much of the current packet as the descriptor takes without waiting.
    private func advance(_ writing: inout CurrentWrite) -> WriteProgress {
        let bytes = writing.queued.bytes
        while writing.written < bytes.count {
            let start = writing.written
            let attempt = bytes.withUnsafeBytes { raw in
                Result { () throws(POSIXCallError) -> Int in
                    try io.write(descriptor, from: UnsafeRawBufferPointer(rebasing: raw[start...]))
                }
            }
            switch attempt {
            case .success(let count) where count > 0:
                writing.written += count
            case .success:
                return .waitingForRoom
            case .failure(let error) where error.code == EINTR:
                continue
            case .failure(let error) where error.code == EAGAIN || error.code == EWOULDBLOCK:
                return .waitingForRoom
            case .failure(let error):
                return .failed(configuration.explain(.writeFailed(error)))
            }
        }
        return .finished
    }
}

/// The packets the link thread has framed and the consumer of `incoming` has not taken yet.
///
/// Bounded by pausing the producer, not by dropping: the link thread stops reading while
/// `isFull`, and `next()` rings `room` once the consumer has taken half of them, so the
/// thread reads again. (One read may overshoot the capacity by the packets of one chunk.)
private final class PacketInbox: Sendable {
    private struct State {
        var packets: [HCIPacket] = []
        var head = 0
        /// Set once: `nil` inside means a clean end.
        var ending: HCITransportError?? = nil
        var waiter: CheckedContinuation<HCIPacket?, any Error>?
        var readerPaused = false
        var onConsumerCancelled: (@Sendable () -> Void)?

        var count: Int { packets.count - head }
    }

    let capacity: Int
    let room: SignalChannel
    private let state = Mutex(State())

    init(capacity: Int, room: SignalChannel) {
        self.capacity = capacity
        self.room = room
    }

    var onConsumerCancelled: (@Sendable () -> Void)? {
        get { state.withLock { $0.onConsumerCancelled } }
        set { state.withLock { $0.onConsumerCancelled = newValue } }
    }

    /// Whether the link thread should stop reading; noted, so that `next()` wakes it.
    var isFull: Bool {
        state.withLock { state in
            state.readerPaused = state.count >= capacity
            return state.readerPaused
        }
    }

    /// Hands packets to the consumer: to one waiting at once, the rest into the queue.
    func deliver(_ packets: [HCIPacket]) {
        guard !packets.isEmpty else { return }
        let handOff = state.withLock { state -> (CheckedContinuation<HCIPacket?, any Error>, HCIPacket)? in
            state.packets.append(contentsOf: packets)
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, takeFirst(&state))
        }
        if let (waiter, packet) = handOff { waiter.resume(returning: packet) }
    }

    /// Ends the stream once the queued packets are taken: cleanly, or with `error`.
    func finish(throwing error: HCITransportError?) {
        let waiter = state.withLock { state -> CheckedContinuation<HCIPacket?, any Error>? in
            guard state.ending == nil else { return nil }
            state.ending = .some(error)
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// The next packet; `nil` at a clean end. Suspends while none is queued.
    func next() async throws -> HCIPacket? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HCIPacket?, any Error>) in
                enum Answer {
                    case packet(HCIPacket, wakeReader: Bool)
                    case end(HCITransportError?)
                    case cancelled
                    case wait
                }
                let answer = state.withLock { state -> Answer in
                    if state.count > 0 {
                        let packet = takeFirst(&state)
                        let wake = state.readerPaused && state.count <= capacity / 2
                        if wake { state.readerPaused = false }
                        return .packet(packet, wakeReader: wake)
                    }
                    if let ending = state.ending { return .end(ending) }
                    if Task.isCancelled { return .cancelled }
                    state.waiter = continuation
                    return .wait
                }
                switch answer {
                case .packet(let packet, let wake):
                    if wake { room.signal() }
                    continuation.resume(returning: packet)
                case .end(let error?):
                    continuation.resume(throwing: error)
                case .end(nil), .cancelled:
                    continuation.resume(returning: nil)
                case .wait:
                    break
                }
            }
        } onCancel: {
            let (waiter, cancelled) = state.withLock { state in
                defer { state.waiter = nil }
                return (state.waiter, state.onConsumerCancelled)
            }
            waiter?.resume(returning: nil)
            cancelled?()
        }
    }

    private func takeFirst(_ state: inout State) -> HCIPacket {
        let packet = state.packets[state.head]
        state.head += 1
        // Compact now and then, so the array does not grow with everything ever read.
        if state.head >= 1024 && state.head * 2 >= state.packets.count {
            state.packets.removeFirst(state.head)
            state.head = 0
        }
        return packet
    }
}
#endif
import HCI
