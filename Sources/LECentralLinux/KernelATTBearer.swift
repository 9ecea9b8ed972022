#if os(Linux)
import BeaconCore
import Glibc
import HCITransports
import LECentral
import Synchronization

/// An ATT bearer over a connected kernel L2CAP socket on the ATT channel: each `recv` is one
/// PDU from the server, each `send` one PDU to it. The kernel owns the LE link beneath;
/// ``close()`` (or the last reference going) closes the socket and the kernel disconnects
/// once no one else uses the link.
///
/// One thread of its own reads the socket, parked in `poll` on it and on a stop channel;
/// sends are non-blocking `send`s (and, when the kernel's buffer is full, a wait in `poll` on
/// a thread of its own), so nothing blocks Swift's cooperative threads. The link's end
/// finishes `incoming` with an `LECentralError` that says why, in words.
public final class KernelATTBearer: ATTBearer, Sendable {
    public let context: String
    public let incoming: AsyncThrowingStream<[UInt8], any Error>
    public let largestPDU: Int?
    /// The peripheral at the other end.
    public let peer: BluetoothAddress
    /// How long a send may wait for a socket that accepts nothing before it fails.
    static let sendTimeout: Duration = .seconds(5)
    /// PDUs held for a slow client before newer ones are dropped, as the host stack's bearer
    /// does (`Central`): an ATT client reads them as they come.
    static let incomingLimit = 256

    private let link: KernelATTSocketLink

    /// Takes over a connected `socket` and starts its reader; the socket is closed when this
    /// throws.
    init(
        socket: Int32, peer: BluetoothAddress, context: String, mtu: KernelL2CAPMTU?, syscalls: any KernelL2CAPSyscalls
    ) throws(POSIXCallError) {
        self.peer = peer
        self.context = context
        self.largestPDU = mtu?.largestATTPDU
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: [UInt8].self, bufferingPolicy: .bufferingOldest(Self.incomingLimit))
        incoming = stream
        let stop: SignalChannel
        do {
            stop = try SignalChannel()
        } catch {
            syscalls.close(socket)
            throw error
        }
        link = KernelATTSocketLink(socket: socket, context: context, syscalls: syscalls, stop: stop, continuation: continuation)
        let link = link
        do {
            try POSIXThread.detach { link.readUntilEnd() }
        } catch {
            syscalls.close(socket)
            throw error
        }
    }

    deinit {
        link.stop.signal()
    }

    /// Whether the link has ended (the reader stopped and the socket is closed).
    public var hasEnded: Bool { link.ending != nil }

    /// Closes the socket: the reader stops, `incoming` ends, and the kernel takes the LE link
    /// down unless another socket (bluetoothd's) uses it.
    public func close() {
        link.stop.signal()
    }

    public func send(_ pdu: [UInt8]) async throws(LECentralError) {
        let deadline = ContinuousClock.now.advanced(by: Self.sendTimeout)
        while true {
            if Task.isCancelled { throw LECentralError(context: context, kind: .cancelled) }
            switch link.trySend(pdu) {
            case .sent:
                return
            case .ended(let error):
                throw error
            case .failed(let code):
                throw LECentralError(context: context, kind: .socket("sending failed: \(KernelL2CAPErrno.words(code, while: .connected))"))
            case .wouldBlock:
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else {
                    throw LECentralError(
                        context: context,
                        kind: .socket("the kernel accepted no data for \(Self.sendTimeout.spokenForMessages): the link is stalled"))
                }
                await link.waitUntilWritable(within: remaining)
            }
        }
    }
}

/// What the bearer and its reader thread share: the socket, closed by the reader when it
/// stops (under the lock sends take, so no send reaches a closed descriptor), and why it stopped.
private final class KernelATTSocketLink: Sendable {
    /// One read's buffer: the largest L2CAP SDU a socket can hand over.
    static let receiveCapacity = 65_535

    let socket: Int32
    let context: String
    let syscalls: any KernelL2CAPSyscalls
    let stop: SignalChannel
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    /// Set when the reader stopped; the socket is closed from then on.
    private let ended = Mutex<LECentralError?>(nil)

    init(
        socket: Int32, context: String, syscalls: any KernelL2CAPSyscalls, stop: SignalChannel,
        continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    ) {
        self.socket = socket
        self.context = context
        self.syscalls = syscalls
        self.stop = stop
        self.continuation = continuation
    }

    var ending: LECentralError? { ended.withLock { $0 } }

    enum SendOutcome {
        case sent
        case wouldBlock
        case ended(LECentralError)
        case failed(Int32)
    }

    /// One non-blocking send.
    func trySend(_ pdu: [UInt8]) -> SendOutcome {
        ended.withLock { ended -> SendOutcome in
            if let ended { return .ended(ended) }
            do throws(POSIXCallError) {
                _ = try syscalls.send(socket, pdu)
                return .sent
            } catch where error.code == EAGAIN || error.code == EWOULDBLOCK || error.code == EINTR {
                return .wouldBlock
            } catch {
                return .failed(error.code)
            }
        }
    }

    /// Waits on a thread of its own until the socket takes data, the link stops or `timeout`.
    func waitUntilWritable(within timeout: Duration) async {
        _ = try? await POSIXThread.run { [self] in
            var descriptors = [
                pollfd(fd: socket, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: stop.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            _ = try? syscalls.poll(&descriptors, timeoutMilliseconds: timeout.pollTimeoutMilliseconds)
        }
    }

    /// The reader thread's body: PDUs to `incoming` until the link ends or is stopped.
    func readUntilEnd() {
        let ending = readLoop()
        ended.withLock { ended in
            ended = ending
            syscalls.close(socket)
        }
        continuation.finish(throwing: ending)
    }

    private func readLoop() -> LECentralError {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.receiveCapacity, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            var descriptors = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stop.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            do {
                _ = try syscalls.poll(&descriptors, timeoutMilliseconds: -1)
            } catch where error.code == EINTR {
                continue
            } catch {
                return failure("waiting for data failed: \(error)")
            }
            if descriptors[1].revents != 0 {
                return failure("the link was closed on this host")
            }
            let events = descriptors[0].revents
            guard events != 0 else { continue }
            let count: Int
            do {
                count = try syscalls.receive(socket, into: buffer)
            } catch where error.code == EAGAIN || error.code == EWOULDBLOCK || error.code == EINTR {
                // Readable with nothing to read: an error or hang-up the kernel reported once
                // already (a read consumed it), or a wake-up without data.
                if events & Int16(POLLERR | POLLHUP) != 0 { return linkEnded(code: syscalls.pendingError(socket)) }
                continue
            } catch {
                return linkEnded(code: error.code)
            }
            if count == 0 { return linkEnded(code: syscalls.pendingError(socket)) }
            continuation.yield(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
        }
    }

    private func linkEnded(code: Int32) -> LECentralError {
        guard code != 0 else {
            return failure("the kernel closed the ATT channel (the link ended; the kernel gave no reason)")
        }
        return failure(KernelL2CAPErrno.words(code, while: .connected))
    }

    private func failure(_ what: String) -> LECentralError {
        LECentralError(context: context, kind: .socket(what))
    }
}
#endif
