import Synchronization

/// The host side of one controller: sends commands and matches their answers, and fans the
/// controller's events out to any number of subscribers.
///
/// - Flow control (Core v5.4 Vol 4 Part E 4.4): at most `Num_HCI_Command_Packets` commands
///   are outstanding. The host starts with one credit; every Command Complete and Command
///   Status sets the count, including the NOP (opcode 0x0000) a controller sends on its own.
/// - Answers are matched by opcode, oldest outstanding command first.
/// - Every command has a timeout, covering both the wait for a credit and the wait for the
///   answer. When a sent command times out its answer is presumed lost and one credit is
///   restored, so that a controller that swallowed a command does not block the host forever.
/// - One task reads `transport.incoming`. Malformed packets are reported to subscribers and
///   skipped. ACL data goes to the subscribers of `traffic()` (an LE central above this
///   layer), in order with the events; SCO and ISO packets are ignored.
public actor HostController {
    /// The transport spec of the controller, used to prefix every error message.
    public nonisolated let name: String
    public nonisolated let transport: any HCITransport
    /// Applies to every command sent without its own timeout.
    public let defaultTimeout: Duration
    /// The clock command timeouts run on: `ContinuousClock` in the tool, a clock that the
    /// test advances by hand in tests.
    public nonisolated let clock: any Clock<Duration>

    private var credits = 1
    private var isWriting = false
    private var nextRequestID: UInt64 = 0
    private var requests: [UInt64: PendingCommand] = [:]
    /// Requests waiting for a credit, oldest first.
    private var creditQueue: [UInt64] = []
    /// Requests written (or being written) to the transport, oldest first.
    private var inFlight: [UInt64] = []

    private var nextSubscriberID: UInt64 = 0
    private var subscribers: [UInt64: Subscriber] = [:]

    private struct Subscriber {
        var continuation: AsyncStream<HostControllerEvent>.Continuation
        var drops: DropCounter?
    }
    private var droppedEvents = 0
    private var trafficSubscribers: [UInt64: AsyncStream<HostTraffic>.Continuation] = [:]
    private var droppedTraffic = 0

    /// Set once the link ended: every later command fails with it.
    private var termination: Termination?
    private let readerTask = Mutex<Task<Void, Never>?>(nil)

    private enum Termination {
        case closed
        case transportEnded(HCITransportError)
    }

    private struct PendingCommand {
        let opcode: HCIOpcode
        let packet: HCIPacket
        let timeout: Duration
        let continuation: CheckedContinuation<Result<HCICommandAnswer, HCIError>, Never>
        var timeoutTask: Task<Void, Never>?
    }

    /// Starts reading `transport.incoming` at once; the transport must not be read by
    /// anyone else.
    public init(transport: any HCITransport, defaultTimeout: Duration = .seconds(2), clock: any Clock<Duration> = ContinuousClock()) {
        self.name = transport.name
        self.transport = transport
        self.defaultTimeout = defaultTimeout
        self.clock = clock
        let incoming = transport.incoming
        let task = Task { [weak self] in
            do {
                for try await packet in incoming {
                    guard let self else { return }
                    await self.receive(packet)
                }
                await self?.transportEnded(error: nil)
            } catch {
                await self?.transportEnded(error: error)
            }
        }
        readerTask.withLock { $0 = task }
    }

    deinit {
        readerTask.withLock { $0?.cancel() }
    }

    // MARK: Sending commands

    /// Sends `command` and returns its return parameters once the controller answered
    /// with success.
    ///
    /// Throws `HCIError` with `.commandFailed` when the controller answers with another
    /// status, and the other kinds when no usable answer arrives. Commands answered by
    /// Command Status have no return parameters (`ReturnParameters == Void`).
    public func send<Command: HCICommand>(_ command: Command, timeout: Duration? = nil) async throws(HCIError) -> Command.ReturnParameters {
        let packet: HCICommandPacket
        do {
            packet = try HCICommandPacket(command)
        } catch {
            throw HCIError(controller: name, opcode: Command.opcode, kind: .invalidCommand(error))
        }
        let answer = try await send(packet, timeout: timeout)
        switch answer {
        case .complete(let returnParameters):
            guard let statusByte = returnParameters.first else {
                throw failure(Command.opcode, .malformedAnswer(.truncated(
                    structure: "\(Command.name) return parameters", offset: 0, needed: 1, available: 0)))
            }
            let status = HCIStatus(rawValue: statusByte)
            guard status == .success else { throw failure(Command.opcode, .commandFailed(status)) }
            do {
                return try Command.decodeReturnParameters(returnParameters.dropFirst())
            } catch {
                throw failure(Command.opcode, .malformedAnswer(error))
            }
        case .status(let status):
            guard status == .success else { throw failure(Command.opcode, .commandFailed(status)) }
            // Success in Command Status only fits commands whose result comes later.
            guard Command.completion == .commandStatus, let none = () as? Command.ReturnParameters else {
                throw failure(Command.opcode, .unexpectedAnswer("Command Status success, but the result of this command comes in Command Complete"))
            }
            return none
        }
    }

    /// Sends a raw command and returns the answer as it came, without judging its status:
    /// for commands this package has no type for, and for tools that show answers verbatim.
    /// Throws only when no answer arrives (timeout, transport, reset, hardware error).
    public func send(_ command: HCICommandPacket, timeout: Duration? = nil) async throws(HCIError) -> HCICommandAnswer {
        let opcode = command.opcode
        if let termination { throw failure(opcode, kind(for: termination)) }
        guard !Task.isCancelled else { throw failure(opcode, .cancelled) }
        let id = nextRequestID
        nextRequestID += 1
        let timeout = timeout ?? defaultTimeout
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HCICommandAnswer, HCIError>, Never>) in
                requests[id] = PendingCommand(opcode: opcode, packet: command.packet, timeout: timeout, continuation: continuation)
                creditQueue.append(id)
                requests[id]?.timeoutTask = clock.timer(after: timeout) { [weak self] in await self?.expire(id) }
                scheduleWrites()
            }
        } onCancel: {
            Task { [weak self] in await self?.cancelRequest(id) }
        }
        return try result.get()
    }

    /// Starts a writer when a credit and a queued command are both available.
    private func scheduleWrites() {
        guard !isWriting, credits > 0, !creditQueue.isEmpty else { return }
        isWriting = true
        Task { await self.writeQueuedCommands() }
    }

    /// Writes queued commands in order while credits last. Only one writer runs at a time
    /// (`isWriting`), so commands reach the transport in the order they were sent.
    private func writeQueuedCommands() async {
        while credits > 0, !creditQueue.isEmpty {
            let id = creditQueue.removeFirst()
            guard let request = requests[id] else { continue }
            credits -= 1
            // In flight before the write: the answer may arrive before `send` returns.
            inFlight.append(id)
            do {
                try await transport.send(request.packet)
            } catch {
                // The command never reached the controller: its credit is still ours.
                credits += 1
                finish(id, .failure(failure(request.opcode, .transport(error))))
            }
        }
        isWriting = false
    }

    private func expire(_ id: UInt64) {
        guard let request = requests[id] else { return }
        let wasWaitingForCredit = creditQueue.contains(id)
        finish(id, .failure(failure(request.opcode, .timeout(request.timeout, waitingForCredit: wasWaitingForCredit))))
        if !wasWaitingForCredit {
            // The answer is presumed lost; without this a silent controller blocks the host.
            credits = max(credits, 1)
        }
        scheduleWrites()
    }

    private func cancelRequest(_ id: UInt64) {
        guard let request = requests[id] else { return }
        finish(id, .failure(failure(request.opcode, .cancelled)))
    }

    /// Resolves a request exactly once and forgets it.
    private func finish(_ id: UInt64, _ result: Result<HCICommandAnswer, HCIError>) {
        guard let request = requests.removeValue(forKey: id) else { return }
        creditQueue.removeAll { $0 == id }
        inFlight.removeAll { $0 == id }
        request.timeoutTask?.cancel()
        request.continuation.resume(returning: result)
    }

    private func failure(_ opcode: HCIOpcode, _ kind: HCIError.Kind) -> HCIError {
        HCIError(controller: name, opcode: opcode, kind: kind)
    }

    // MARK: Receiving

    private func receive(_ packet: HCIPacket) {
        if packet.type == .acl {
            receiveACL(packet)
            return
        }
        guard packet.type == .event else { return }
        let event: HCIEvent
        do {
            event = try HCIEvent(packet: packet)
        } catch {
            broadcast(.malformedPacket(packet, error))
            return
        }
        var notice: HostControllerEvent?
        switch event {
        case .commandComplete(let complete):
            credits = Int(complete.numHCICommandPackets)
            if complete.opcode != .nop {
                let matched = resolveOldest(opcode: complete.opcode, with: .complete(returnParameters: complete.returnParameters))
                if complete.opcode == .reset {
                    // A Reset clears every command the controller was still working on.
                    failInFlight(.controllerReset)
                    if !matched { notice = .unsolicitedReset }
                }
            }
        case .commandStatus(let status):
            credits = Int(status.numHCICommandPackets)
            if status.opcode != .nop {
                resolveOldest(opcode: status.opcode, with: .status(status.status))
            }
        case .hardwareError(let code):
            failInFlight(.hardwareError(code: code))
        default:
            break
        }
        broadcast(.event(event))
        yieldTraffic(.event(event))
        if let notice { broadcast(notice) }
        scheduleWrites()
    }

    /// Answers the oldest in-flight request with `opcode`. Returns false when none matches:
    /// on a shared kernel socket that is another program's command.
    @discardableResult
    private func resolveOldest(opcode: HCIOpcode, with answer: HCICommandAnswer) -> Bool {
        guard let id = inFlight.first(where: { requests[$0]?.opcode == opcode }) else { return false }
        finish(id, .success(answer))
        return true
    }

    /// Fails every written command: the controller will not answer them any more.
    private func failInFlight(_ kind: HCIError.Kind) {
        guard !inFlight.isEmpty else { return }
        for id in inFlight {
            if let request = requests[id] {
                finish(id, .failure(failure(request.opcode, kind)))
            }
        }
        // Their credits are not coming back in answers; keep at least one to send Reset.
        credits = max(credits, 1)
    }

    private func transportEnded(error: (any Error)?) {
        guard termination == nil else { return }
        let transportError: HCITransportError
        switch error {
        case nil:
            transportError = HCITransportError(.closed, "\(name): the controller closed the connection")
        case let error as HCITransportError:
            transportError = error
        case let error?:
            transportError = HCITransportError(.ioFailure, "\(name): reading from the controller failed: \(error)")
        }
        terminate(.transportEnded(transportError), notice: .transportEnded(transportError))
    }

    private func terminate(_ reason: Termination, notice: HostControllerEvent) {
        termination = reason
        let kind = kind(for: reason)
        for id in requests.keys.sorted() {
            if let request = requests[id] {
                finish(id, .failure(failure(request.opcode, kind)))
            }
        }
        broadcast(notice)
        for subscriber in subscribers.values {
            subscriber.continuation.finish()
        }
        subscribers.removeAll()
        for continuation in trafficSubscribers.values {
            continuation.yield(.transportEnded(notice.endedTransportError))
            continuation.finish()
        }
        trafficSubscribers.removeAll()
    }

    private func kind(for termination: Termination) -> HCIError.Kind {
        switch termination {
        case .closed: return .closed
        case .transportEnded(let error): return .transport(error)
        }
    }

    // MARK: Subscribers

    /// A new stream of everything the controller sends from now on, and the notices of
    /// `HostControllerEvent`. Any number of subscribers may listen; each has its own buffer
    /// of the newest `bufferSize` elements: a subscriber that falls further behind loses the
    /// oldest ones rather than slowing the controller down. Every loss is counted: in
    /// `droppedEventCount`, and in `drops` for this subscriber, so that what it reports can
    /// say it may be incomplete. The stream finishes after `.transportEnded`.
    public func events(bufferSize: Int = 1024, drops: DropCounter? = nil) -> AsyncStream<HostControllerEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: HostControllerEvent.self, bufferingPolicy: .bufferingNewest(max(1, bufferSize)))
        admit(continuation, ending: HostControllerEvent.transportEnded) { id in
            subscribers[id] = Subscriber(continuation: continuation, drops: drops)
        }
        return stream
    }

    /// Gives a new subscriber's stream its place: when the link has already ended, that end
    /// (worded by `ending`) and nothing more; otherwise an id, which `register` files the
    /// stream under and which the stream's termination removes again.
    private func admit<Element>(
        _ continuation: AsyncStream<Element>.Continuation, ending: (HCITransportError?) -> Element,
        register: (UInt64) -> Void
    ) {
        if let termination {
            switch termination {
            case .closed: continuation.yield(ending(nil))
            case .transportEnded(let error): continuation.yield(ending(error))
            }
            continuation.finish()
            return
        }
        let id = nextSubscriberID
        nextSubscriberID += 1
        register(id)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
    }

    /// Ids are unique over both kinds of subscriber: the one the id names is removed.
    private func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
        trafficSubscribers[id] = nil
    }

    private func broadcast(_ element: HostControllerEvent) {
        for subscriber in subscribers.values {
            if case .dropped = subscriber.continuation.yield(element) {
                droppedEvents += 1
                subscriber.drops?.add(1)
            }
        }
    }

    // MARK: ACL data

    /// A new stream of the events and ACL data packets from the controller, from now on, in
    /// the order they arrived: what a connection's owner needs, since a peripheral's first
    /// PDU may follow its link's completion event at once. Each subscriber buffers up to
    /// `bufferSize` elements; one that falls further behind loses the newest, counted in
    /// `droppedTrafficCount` (a lost fragment breaks its L2CAP frame, which the reassembler
    /// above notices). Ends with `.transportEnded` when the link to the controller does.
    public func traffic(bufferSize: Int = 4096) -> AsyncStream<HostTraffic> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: HostTraffic.self, bufferingPolicy: .bufferingOldest(max(1, bufferSize)))
        admit(continuation, ending: HostTraffic.transportEnded) { id in trafficSubscribers[id] = continuation }
        return stream
    }

    /// Sends one ACL data packet. ACL flow control (the controller's buffer count, Number Of
    /// Completed Packets) is the caller's: this only checks the packet and writes it.
    public func send(_ acl: ACLDataPacket) async throws(HCITransportError) {
        if let termination {
            switch termination {
            case .closed: throw HCITransportError(.closed, "\(name): the host controller was closed")
            case .transportEnded(let error): throw error
            }
        }
        let packet: HCIPacket
        do {
            packet = try acl.packet()
        } catch {
            throw HCITransportError(.framing, "\(name): \(error.message)")
        }
        try await transport.send(packet)
    }

    /// Traffic elements lost because a subscriber's buffer was full, over all subscribers.
    public var droppedTrafficCount: Int { droppedTraffic }

    private func yieldTraffic(_ element: HostTraffic) {
        for continuation in trafficSubscribers.values {
            if case .dropped = continuation.yield(element) {
                droppedTraffic += 1
            }
        }
    }

    private func receiveACL(_ packet: HCIPacket) {
        let acl: ACLDataPacket
        do {
            acl = try ACLDataPacket(packet: packet)
        } catch {
            broadcast(.malformedPacket(packet, error))
            return
        }
        yieldTraffic(.acl(acl))
    }

    // MARK: State and shutdown

    /// Commands the host may send now without waiting.
    public var commandCredits: Int { credits }
    /// Commands sent or queued whose answer has not arrived.
    public var pendingCommandCount: Int { requests.count }
    /// Elements dropped because a subscriber's buffer was full, over all subscribers.
    public var droppedEventCount: Int { droppedEvents }
    public var subscriberCount: Int { subscribers.count }

    /// Fails pending commands with `.closed`, ends every subscriber's stream with
    /// `.transportEnded(nil)` and closes the transport. Idempotent.
    public func close() async {
        if termination == nil {
            terminate(.closed, notice: .transportEnded(nil))
        }
        await transport.close()
        readerTask.withLock { $0?.cancel() }
    }
}
