import BeaconCore
import HCI

/// An LE central on beaconctl's own host stack: connects to peripherals by address over any
/// controller it has to itself (USER channel, TCP to RootCanal, serial, the virtual radio),
/// carries L2CAP over the controller's ACL buffers, and gives each connection an ATT client.
///
/// - ACL flow control (Core v5.4 Vol 4 Part E 4.1.1): never more ACL packets in flight
///   than the controller's buffer count (LE Read Buffer Size, or Read Buffer Size when that
///   answers zeros); Number Of Completed Packets returns them, and a disconnection returns
///   those of its handle.
/// - L2CAP: frames cut to the controller's ACL length; incoming fragments reassembled by
///   each frame's own length, up to `maximumFrameLength`; the LE signalling channel and the
///   Security Manager answered (see `LESignallingAnswer`, `SecurityManagerAnswer`).
/// - One connection attempt at a time (the controller allows no more); each has a deadline
///   and observes cancellation, cancelling the attempt on the controller.
///
/// Call `start()` once before connecting.
public actor Central {
    public nonisolated let host: HostController
    public nonisolated let configuration: LECentralConfiguration
    private let clock: any Clock<Duration>

    private var started = false
    private var usesExtendedFamily = false
    /// The controller's LE ACL data packet length and count.
    public private(set) var aclPacketLength = 0
    public private(set) var aclPacketCount = 0
    private var freeBuffers = 0
    private var inFlight: [UInt16: Int] = [:]
    private var outbox: [ACLDataPacket] = []
    private var pumping = false

    private var links: [UInt16: Link] = [:]
    /// Connections adopted when their completion event arrived, until `connect` takes them.
    private var adopted: [UInt16: LEConnection] = [:]
    private var attempt: Attempt?
    private var ended: LECentralError?
    private var tasks: [Task<Void, Never>] = []
    /// L2CAP frames lost to reassembly failures, over all links.
    public private(set) var droppedFrames = 0

    private struct Link {
        let context: String
        let record: LinkRecord
        var reassembler: L2CAPReassembler
        let att: AsyncThrowingStream<[UInt8], any Error>.Continuation
    }

    private struct Attempt {
        let peer: BluetoothAddress
        var continuation: CheckedContinuation<AttemptOutcome, Never>?
        var arrived: LEConnectionComplete?
    }

    private enum AttemptOutcome {
        case completed(LEConnectionComplete)
        case deadline
        case cancelled
        case ended(LECentralError)
    }

    public init(host: HostController, configuration: LECentralConfiguration = LECentralConfiguration(), clock: any Clock<Duration> = ContinuousClock()) {
        self.host = host
        self.configuration = configuration
        self.clock = clock
    }

    deinit {
        for task in tasks { task.cancel() }
    }

    // MARK: Preparing the controller

    /// Listens to the controller, prepares it (Reset and event masks when
    /// `configuration.resetsController`), reads its LE features (the connection command's
    /// family follows extended advertising support, as the scanner's and the kernel's do)
    /// and its ACL buffers.
    public func start() async throws(LECentralError) {
        guard !started else { return }
        // One ordered stream: a peripheral's first PDU may follow its completion event at once.
        let traffic = await host.traffic(bufferSize: 4096)
        tasks.append(Task { [weak self] in
            for await element in traffic {
                guard let self else { return }
                await self.handle(element)
            }
        })
        if configuration.resetsController {
            try await command(Reset(), timeout: max(await host.defaultTimeout, .seconds(5)))
            try await command(SetEventMask(mask: HCIEventMask.beaconHost.union([.disconnectionComplete, .numberOfCompletedPackets])))
            try await command(LESetEventMask(mask: LEEventMask.beaconHost.union(.central)))
        }
        let features = try await command(LEReadLocalSupportedFeatures())
        usesExtendedFamily = features.contains(.extendedAdvertising)
        let le = try await command(LEReadBufferSize())
        var length = Int(le.aclDataPacketLength)
        var count = Int(le.totalACLDataPackets)
        if length == 0 || count == 0 {
            // Zeros: LE shares the BR/EDR buffers (Core v5.4 Vol 4 Part E 7.8.2).
            let shared = try await command(ReadBufferSize())
            length = Int(shared.aclDataPacketLength)
            count = Int(shared.totalACLDataPackets)
        }
        guard length > 0, count > 0 else {
            throw LECentralError(
                context: host.name,
                kind: .invalidRequest("the controller reports no ACL buffers (length \(length), count \(count)): it cannot carry connections"))
        }
        aclPacketLength = length
        aclPacketCount = count
        freeBuffers = count
        started = true
    }

    /// Whether connections are made with LE Extended Create Connection (else LE Create Connection).
    public var connectsWithExtendedCommand: Bool { usesExtendedFamily }

    // MARK: Connecting

    /// Connects to the peripheral at `address` within `timeout`. On the deadline, or when
    /// the calling task is cancelled, the attempt is cancelled on the controller.
    public func connect(
        to address: BluetoothAddress, type: PeerAddressType, timeout: Duration
    ) async throws(LECentralError) -> LEConnection {
        let context = "\(host.name): peripheral \(address)"
        guard started else {
            throw LECentralError(context: context, kind: .invalidRequest("the central was not started (call start() first)"))
        }
        if let ended { throw LECentralError(context: context, kind: ended.kind) }
        guard attempt == nil else {
            throw LECentralError(context: context, kind: .invalidRequest("another connection attempt is in progress on this controller"))
        }
        guard !Task.isCancelled else { throw LECentralError(context: context, kind: .cancelled) }
        attempt = Attempt(peer: address)
        defer { attempt = nil }
        var stopped: LECentralError.Kind?
        do throws(HCIError) {
            if usesExtendedFamily {
                try await host.send(try Self.parameterChecked(context) { () throws(HCIParameterError) in
                    try LEExtendedCreateConnection(
                        scanInterval: configuration.scanInterval, scanWindow: configuration.scanWindow, peerAddressType: type,
                        peerAddress: address, ownAddressType: configuration.ownAddressType, connection: configuration.connection)
                })
            } else {
                try await host.send(try Self.parameterChecked(context) { () throws(HCIParameterError) in
                    try LECreateConnection(
                        scanInterval: configuration.scanInterval, scanWindow: configuration.scanWindow, peerAddressType: type,
                        peerAddress: address, ownAddressType: configuration.ownAddressType, connection: configuration.connection)
                })
            }
        } catch {
            // Cancelled or timed out while the controller had the command: it may be
            // connecting all the same, so the attempt is cancelled there too.
            switch error.kind {
            case .cancelled: stopped = .cancelled
            case .timeout: stopped = .controller(error)
            default: throw LECentralError(context: context, kind: .controller(error))
            }
        }

        var outcome: AttemptOutcome = .cancelled
        if stopped == nil {
            outcome = await awaitAttempt(timeout: timeout)
            switch outcome {
            case .deadline: stopped = .connectionTimeout(timeout)
            case .cancelled: stopped = .cancelled
            default: break
            }
        }
        if let stopped {
            // 7.8.13: Command Disallowed when no attempt is pending any more (the completion
            // is on its way); either way the completion event follows. Sent from a task of
            // its own: the caller's may be cancelled, and the controller must hear it anyway.
            let host = host
            await Task { _ = try? await host.send(LECreateConnectionCancel()) }.value
            outcome = await awaitAttempt(timeout: configuration.disconnectTimeout, ignoringCancellation: true)
            if case .completed(let complete) = outcome, complete.status == .success {
                // Connected just as the attempt was given up: hang up at once.
                adopted[complete.connectionHandle] = nil
                let handle = complete.connectionHandle
                await Task { _ = try? await self.disconnect(handle: handle) }.value
            }
            throw LECentralError(context: context, kind: stopped)
        }
        switch outcome {
        case .completed(let complete):
            guard complete.status == .success, let connection = adopted.removeValue(forKey: complete.connectionHandle) else {
                throw LECentralError(context: context, kind: .connectionFailed(complete.status))
            }
            return connection
        case .ended(let error):
            throw LECentralError(context: context, kind: error.kind)
        case .deadline, .cancelled:
            throw LECentralError(context: context, kind: .cancelled)
        }
    }

    /// The command `build` makes, its parameter error as the controller-side error the
    /// caller reports for a command.
    private static func parameterChecked<Command: HCICommand>(
        _ context: String, _ build: () throws(HCIParameterError) -> Command
    ) throws(HCIError) -> Command {
        do {
            return try build()
        } catch {
            throw HCIError(controller: context, opcode: Command.opcode, kind: .invalidCommand(error))
        }
    }

    private func awaitAttempt(timeout: Duration, ignoringCancellation: Bool = false) async -> AttemptOutcome {
        if let arrived = attempt?.arrived {
            attempt?.arrived = nil
            return .completed(arrived)
        }
        if let ended { return .ended(ended) }
        let timer = clock.timer(after: timeout) { [weak self] in await self?.settleAttempt(.deadline) }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<AttemptOutcome, Never>) in
                if !ignoringCancellation, Task.isCancelled {
                    continuation.resume(returning: .cancelled)
                    return
                }
                attempt?.continuation = continuation
            }
        } onCancel: {
            if !ignoringCancellation {
                Task { await self.settleAttempt(.cancelled) }
            }
        }
    }

    private func settleAttempt(_ outcome: AttemptOutcome) {
        guard let continuation = attempt?.continuation else {
            if case .completed(let complete) = outcome { attempt?.arrived = complete }
            return
        }
        attempt?.continuation = nil
        continuation.resume(returning: outcome)
    }

    @discardableResult
    private func adopt(_ complete: LEConnectionComplete, context: String) -> LEConnection {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(256))
        let record = LinkRecord()
        links[complete.connectionHandle] = Link(
            context: context, record: record, reassembler: L2CAPReassembler(maximumFrameLength: configuration.maximumFrameLength),
            att: continuation)
        inFlight[complete.connectionHandle] = 0
        let bearer = ACLATTBearer(central: self, handle: complete.connectionHandle, record: record, context: context, incoming: stream)
        let att = ATTClient(bearer: bearer, clock: clock, transactionTimeout: configuration.transactionTimeout)
        let connection = LEConnection(central: self, established: complete, context: context, att: att, record: record)
        return connection
    }

    // MARK: Disconnecting

    /// Disconnects `handle` (reason Remote User Terminated Connection) and waits for
    /// Disconnection Complete. Returns the reason the link ended with; when it had already
    /// ended, the reason it ended with then.
    func disconnect(handle: UInt16) async throws(LECentralError) -> HCIStatus {
        guard let link = links[handle] else {
            return LinkRecord.reasonOrUnknown(nil)
        }
        do {
            try await host.send(Disconnect(connectionHandle: handle))
        } catch {
            if error.status != .unknownConnectionIdentifier {
                throw LECentralError(context: link.context, kind: .controller(error))
            }
        }
        let reason = await link.record.waitForEnd(clock: clock, timeout: configuration.disconnectTimeout)
        if reason == nil, let ended {
            // The link to the controller ended under the wait.
            throw LECentralError(context: link.context, kind: ended.kind)
        }
        guard let reason else {
            // No Disconnection Complete: the link is given up here so that nothing waits on it.
            end(handle, reason: .connectionTerminatedByLocalHost)
            throw LECentralError(
                context: link.context,
                kind: .controller(HCIError(controller: host.name, opcode: .disconnect, kind: .timeout(configuration.disconnectTimeout, waitingForCredit: false))))
        }
        return reason
    }

    // MARK: Sending

    /// Queues one L2CAP frame for `handle`, cut to the controller's ACL length; the
    /// fragments go out as buffers free up, frames in the order queued.
    /// With `record`, only on that link: a request made as its link ended (the link's stream
    /// not yet finished for its client) fails with the link's reason, and never goes out on
    /// a later link the controller gave the same handle.
    func send(_ payload: [UInt8], channel: UInt16, on handle: UInt16, of record: LinkRecord? = nil) throws(LECentralError) {
        guard let link = links[handle], record.map({ $0 === link.record }) ?? true else {
            throw LECentralError(
                context: "\(host.name): connection \(HexText.code(handle, digits: 3))", kind: .disconnected(reason: record?.reason))
        }
        guard let fragments = L2CAPFrame(channel: channel, payload: payload).fragments(handle: handle, fragmentLength: aclPacketLength) else {
            throw LECentralError(context: link.context, kind: .invalidRequest("an L2CAP frame of \(payload.count) bytes is too long"))
        }
        outbox += fragments
        pump()
    }

    private func pump() {
        guard !pumping, freeBuffers > 0, !outbox.isEmpty else { return }
        pumping = true
        Task { await self.drain() }
    }

    private func drain() async {
        while freeBuffers > 0, !outbox.isEmpty {
            let packet = outbox.removeFirst()
            guard links[packet.handle] != nil else { continue }
            freeBuffers -= 1
            inFlight[packet.handle, default: 0] += 1
            do {
                try await host.send(packet)
            } catch {
                // Never reached the controller: the buffer is still free. The link itself
                // ends when the transport's end reaches the event stream.
                freeBuffers += 1
                inFlight[packet.handle, default: 1] -= 1
            }
        }
        pumping = false
    }

    /// ACL packets handed to the controller and not yet reported sent, for `handle`.
    public func packetsInFlight(on handle: UInt16) -> Int { inFlight[handle] ?? 0 }
    /// ACL fragments waiting for a free controller buffer, over all links.
    public var queuedFragmentCount: Int { outbox.count }

    // MARK: Receiving

    private func handle(_ element: HostTraffic) {
        switch element {
        case .acl(let packet):
            receive(packet)
        case .event(.le(.connectionComplete(let complete))):
            // A peripheral-role link is someone connecting to an advertiser here: not ours.
            if complete.status == .success, complete.role != .central { return }
            guard attempt != nil else {
                if complete.status == .success {
                    // A link completed after its attempt was given up: hang up at once.
                    let host = host
                    Task { _ = try? await host.send(Disconnect(connectionHandle: complete.connectionHandle)) }
                }
                return
            }
            if complete.status == .success {
                // Adopted at once, so that the peripheral's first PDUs find their link.
                adopted[complete.connectionHandle] = adopt(complete, context: "\(host.name): peripheral \(complete.peerAddress)")
            }
            settleAttempt(.completed(complete))
        case .event(.disconnectionComplete(let event)):
            guard event.status == .success else { return }
            end(event.connectionHandle, reason: event.reason)
        case .event(.numberOfCompletedPackets(let event)):
            for entry in event.entries {
                guard let outstanding = inFlight[entry.connectionHandle] else { continue }
                let returned = min(outstanding, Int(entry.completedPackets))
                inFlight[entry.connectionHandle] = outstanding - returned
                freeBuffers = min(aclPacketCount, freeBuffers + returned)
            }
            pump()
        case .transportEnded(let error):
            let failure = LECentralError(
                context: host.name,
                kind: error.map { .transport($0) } ?? .transport(HCITransportError(.closed, "\(host.name): the controller was closed")))
            ended = failure
            settleAttempt(.ended(failure))
            for handle in Array(links.keys) { end(handle, reason: nil) }
        default:
            break
        }
    }

    /// Forgets a link: its ATT bearer ends, its queued fragments are dropped and its
    /// buffers in the controller count as free again (Vol 4 Part E 4.3).
    private func end(_ handle: UInt16, reason: HCIStatus?) {
        guard let link = links.removeValue(forKey: handle) else { return }
        freeBuffers = min(aclPacketCount, freeBuffers + (inFlight.removeValue(forKey: handle) ?? 0))
        outbox.removeAll { $0.handle == handle }
        adopted[handle] = nil
        link.att.finish(throwing: LECentralError(context: link.context, kind: .disconnected(reason: reason)))
        link.record.end(reason: reason)
        pump()
    }

    private func receive(_ packet: ACLDataPacket) {
        guard var link = links[packet.handle] else { return }
        let step = link.reassembler.receive(packet)
        links[packet.handle] = link
        if step.failure != nil { droppedFrames += 1 }
        guard let frame = step.frame else { return }
        switch frame.channel {
        case L2CAPChannel.attribute:
            link.att.yield(frame.payload)
        case L2CAPChannel.leSignalling:
            let answer = LESignallingAnswer.answering(frame.payload)
            if let reply = answer.reply {
                try? send(reply.payload, channel: L2CAPChannel.leSignalling, on: packet.handle)
            }
            if let parameters = answer.connectionUpdate {
                let host = host
                Task { _ = try? await host.send(LEConnectionUpdate(connectionHandle: packet.handle, connection: parameters)) }
            }
        case L2CAPChannel.securityManager:
            link.record.noteSecurityRequest()
            if let reply = SecurityManagerAnswer.answering(frame.payload) {
                try? send(reply, channel: L2CAPChannel.securityManager, on: packet.handle)
            }
        default:
            break  // Vol 3 Part A 4: frames on channels not in use are discarded.
        }
    }

    @discardableResult
    private func command<Command: HCICommand>(_ command: Command, timeout: Duration? = nil) async throws(LECentralError) -> Command.ReturnParameters {
        do {
            return try await host.send(command, timeout: timeout)
        } catch {
            throw LECentralError(context: host.name, kind: .controller(error))
        }
    }
}
