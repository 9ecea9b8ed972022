import HCI

/// The client side of one ATT bearer (Core v5.4 Vol 3 Part F 3.3):
/// - one request outstanding at a time: later requests wait their turn, in order;
/// - a transaction not answered within `transactionTimeout` (30 s, 3.3.3) ends the bearer:
///   no further request is sent on it, as the spec requires;
/// - notifications and indications go to `handleValues()`; indications are confirmed;
/// - requests from the server (this host offers no attributes) are answered with an Error
///   Response, and its Exchange MTU Request with this client's MTU.
public actor ATTClient {
    public static let defaultMTU = 23
    /// The largest ATT_MTU this client asks for: 247 bytes fill one 251-byte LE data PDU.
    public static let preferredMTU = 247
    public static let defaultTransactionTimeout: Duration = .seconds(30)

    public nonisolated let context: String
    private let bearer: any ATTBearer
    private let clock: any Clock<Duration>
    public let transactionTimeout: Duration

    /// ATT_MTU in force: 23 until an exchange agreed on more.
    public private(set) var mtu = ATTClient.defaultMTU
    private var exchangedMTU = false
    /// Set once the bearer cannot be used: disconnected or timed out.
    private var ended: LECentralError?

    private var busy = false
    private var turnWaiters: [CheckedContinuation<Void, Never>] = []
    private var nextID: UInt64 = 0
    private var pending: Pending?
    private var readerTask: Task<Void, Never>?

    private var subscribers: [UInt64: AsyncStream<ATTHandleValue>.Continuation] = [:]
    /// Notifications and indications lost because a subscriber fell behind.
    public private(set) var droppedHandleValues = 0

    private struct Pending {
        let id: UInt64
        let request: UInt8
        let response: UInt8
        var continuation: CheckedContinuation<Result<ATTPDU, LECentralError>, Never>?
        var timeout: Task<Void, Never>?
    }

    public init(bearer: any ATTBearer, clock: any Clock<Duration> = ContinuousClock(), transactionTimeout: Duration = ATTClient.defaultTransactionTimeout) {
        self.context = bearer.context
        self.bearer = bearer
        self.clock = clock
        self.transactionTimeout = transactionTimeout
        let incoming = bearer.incoming
        let task = Task { [weak self] in
            do {
                for try await pdu in incoming {
                    guard let self else { return }
                    await self.receive(pdu)
                }
                await self?.end(LECentralError(context: bearer.context, kind: .disconnected(reason: nil)))
            } catch let error as LECentralError {
                await self?.end(error)
            } catch {
                await self?.end(LECentralError(context: bearer.context, kind: .malformedResponse("\(error)")))
            }
        }
        Task { await self.keep(task) }
    }

    private func keep(_ task: Task<Void, Never>) {
        readerTask = task
    }

    deinit {
        readerTask?.cancel()
    }

    // MARK: Requests

    /// Sends `request` and returns the server's response. An Error Response becomes
    /// `.attribute`; a response of another kind, `.malformedResponse`.
    public func request(_ request: ATTPDU) async throws(LECentralError) -> ATTPDU {
        guard let responseOpcode = ATTOpcode.response(to: request.opcode) else {
            throw failure(.invalidRequest("\(ATTOpcode.name(request.opcode)) is not a request"))
        }
        let bytes = request.bytes
        guard bytes.count <= mtu else {
            throw failure(.invalidRequest("\(ATTOpcode.name(request.opcode)) of \(bytes.count) bytes exceeds the ATT MTU of \(mtu)"))
        }
        await takeTurn()
        defer { passTurn() }
        if let ended { throw ended }
        guard !Task.isCancelled else { throw failure(.cancelled) }
        let id = nextID
        nextID += 1
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ATTPDU, LECentralError>, Never>) in
                pending = Pending(id: id, request: request.opcode, response: responseOpcode, continuation: continuation)
                pending?.timeout = clock.timer(after: transactionTimeout) { [weak self] in await self?.expire(id) }
                Task { await self.write(bytes, for: id) }
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
        // A request abandoned by cancellation keeps its turn until its answer (or timeout)
        // comes, so that the next request is not matched to the old answer.
        if case .failure(let error) = result, error.kind == .cancelled, pending?.id == id {
            await waitForPendingToSettle(id)
        }
        return try result.get()
    }

    /// Exchanges MTUs once (3.4.2): asks for `preferred` (no more than the bearer's
    /// `largestPDU`), keeps the smaller of the two, and never less than 23. Returns the MTU in force.
    @discardableResult
    public func exchangeMTU(preferred: Int = ATTClient.preferredMTU) async throws(LECentralError) -> Int {
        guard !exchangedMTU else { return mtu }
        let asked = UInt16(clamping: max(Self.defaultMTU, min(preferred, bearer.largestPDU ?? preferred)))
        let response = try await self.request(.exchangeMTURequest(clientMTU: asked))
        guard case .exchangeMTUResponse(let serverMTU) = response else {
            throw failure(.malformedResponse("Exchange MTU was answered with \(ATTOpcode.name(response.opcode))"))
        }
        exchangedMTU = true
        mtu = max(Self.defaultMTU, min(Int(asked), Int(serverMTU)))
        return mtu
    }

    /// Sends a command (Write Command): no response, no transaction.
    public func command(_ pdu: ATTPDU) async throws(LECentralError) {
        if let ended { throw ended }
        let bytes = pdu.bytes
        guard bytes.count <= mtu else {
            throw failure(.invalidRequest("\(ATTOpcode.name(pdu.opcode)) of \(bytes.count) bytes exceeds the ATT MTU of \(mtu)"))
        }
        try await bearer.send(bytes)
    }

    /// Notifications and indications from now on; each subscriber buffers the newest 256.
    public func handleValues() -> AsyncStream<ATTHandleValue> {
        let (stream, continuation) = AsyncStream.makeStream(of: ATTHandleValue.self, bufferingPolicy: .bufferingNewest(256))
        guard ended == nil else {
            continuation.finish()
            return stream
        }
        let id = nextID
        nextID += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    /// Why the bearer can no longer be used, or `nil` while it can.
    public var endReason: LECentralError? { ended }

    // MARK: Internals

    private func takeTurn() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { turnWaiters.append($0) }
    }

    private func passTurn() {
        if turnWaiters.isEmpty {
            busy = false
        } else {
            turnWaiters.removeFirst().resume()
        }
    }

    private func write(_ bytes: [UInt8], for id: UInt64) async {
        do {
            try await bearer.send(bytes)
        } catch {
            resolve(id, .failure(error))
        }
    }

    private func expire(_ id: UInt64) {
        guard let pending, pending.id == id else { return }
        let error = failure(.transactionTimeout(transactionTimeout))
        end(error)
    }

    private func abandon(_ id: UInt64) {
        guard let continuation = pending?.continuation, pending?.id == id else { return }
        pending?.continuation = nil
        continuation.resume(returning: .failure(failure(.cancelled)))
    }

    private func waitForPendingToSettle(_ id: UInt64) async {
        while let pending, pending.id == id {
            await withCheckedContinuation { settleWaiters.append($0) }
        }
    }

    private var settleWaiters: [CheckedContinuation<Void, Never>] = []

    private func resolve(_ id: UInt64, _ result: Result<ATTPDU, LECentralError>) {
        guard let current = pending, current.id == id else { return }
        pending = nil
        current.timeout?.cancel()
        current.continuation?.resume(returning: result)
        let waiters = settleWaiters
        settleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    private func receive(_ bytes: [UInt8]) async {
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(bytes: bytes)
        } catch {
            if let pending, let opcode = bytes.first, opcode == pending.response || opcode == ATTOpcode.errorResponse {
                resolve(pending.id, .failure(failure(.malformedResponse("\(error)"))))
            }
            return
        }
        switch pdu {
        case .handleValueNotification(let handle, let value):
            deliver(ATTHandleValue(handle: handle, value: value, isIndication: false))
        case .handleValueIndication(let handle, let value):
            deliver(ATTHandleValue(handle: handle, value: value, isIndication: true))
            // 3.4.7.2: the client confirms every indication it received.
            try? await bearer.send(ATTPDU.handleValueConfirmation.bytes)
        case .errorResponse(let request, let handle, let error):
            guard let pending, pending.request == request else { return }
            resolve(pending.id, .failure(failure(.attribute(request: request, handle: handle, error: error))))
        case .exchangeMTURequest(let clientMTU):
            // The server asks too (3.4.2.1): answer with what we can receive, use the smaller.
            let ours = UInt16(clamping: max(Self.defaultMTU, min(Self.preferredMTU, bearer.largestPDU ?? Self.preferredMTU)))
            try? await bearer.send(ATTPDU.exchangeMTUResponse(serverMTU: ours).bytes)
            mtu = max(Self.defaultMTU, min(Int(ours), Int(clientMTU)))
        default:
            if let pending, pdu.opcode == pending.response {
                resolve(pending.id, .success(pdu))
            } else if ATTOpcode.response(to: pdu.opcode) != nil || Self.isUnknownRequest(pdu.opcode) {
                // A request to a server this host does not run (3.4.1.1).
                let discovery = [ATTOpcode.readByGroupTypeRequest, ATTOpcode.readByTypeRequest, ATTOpcode.findInformationRequest, ATTOpcode.findByTypeValueRequest]
                let error: ATTErrorCode = discovery.contains(pdu.opcode) ? .attributeNotFound : .requestNotSupported
                try? await bearer.send(ATTPDU.errorResponse(request: pdu.opcode, handle: 0, error: error).bytes)
            }
        }
    }

    /// An opcode this codec does not know that is neither a command (bit 6) nor a response
    /// to anything this client sent: a request, which must be answered (3.4.1.1).
    private static func isUnknownRequest(_ opcode: UInt8) -> Bool {
        guard opcode & 0x40 == 0 else { return false }
        return ATTOpcode.name(opcode).hasPrefix("opcode")
    }

    private func deliver(_ value: ATTHandleValue) {
        for continuation in subscribers.values {
            if case .dropped = continuation.yield(value) { droppedHandleValues += 1 }
        }
    }

    private func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
    }

    /// Ends the bearer: the pending request fails with `error`, later ones at once.
    private func end(_ error: LECentralError) {
        guard ended == nil else { return }
        ended = error
        if let pending { resolve(pending.id, .failure(error)) }
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    private func failure(_ kind: LECentralError.Kind) -> LECentralError {
        LECentralError(context: context, kind: kind)
    }
}
