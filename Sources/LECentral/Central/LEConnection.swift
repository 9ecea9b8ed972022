import BeaconCore
import HCI
import Synchronization

/// One LE connection made by a `Central`: its ATT client and GATT procedures, how it ended.
public final class LEConnection: Sendable {
    public let established: LEConnectionComplete
    /// `tcp-client:127.0.0.1:6402: peripheral F0:11:22:33:44:55`, for messages.
    public let context: String
    public let att: ATTClient
    private let central: Central
    let record: LinkRecord

    init(central: Central, established: LEConnectionComplete, context: String, att: ATTClient, record: LinkRecord) {
        self.central = central
        self.established = established
        self.context = context
        self.att = att
        self.record = record
    }

    public var peer: BluetoothAddress { established.peerAddress }
    public var handle: UInt16 { established.connectionHandle }
    public var gatt: GATTClient { GATTClient(att: att) }

    /// Disconnects and waits for the controller to confirm; returns the reason the link
    /// ended with (Connection Terminated By Local Host when this call ended it, or the
    /// earlier reason when it had ended already).
    @discardableResult
    public func disconnect() async throws(LECentralError) -> HCIStatus {
        if let reason = record.reason { return reason }
        return try await central.disconnect(handle: handle)
    }

    /// Why the link ended, `nil` while it is up.
    public var disconnectionReason: HCIStatus? { record.reason }

    /// Waits until the link ends (the peripheral hangs up, the link is lost, or
    /// `disconnect()`); returns the reason, `nil` when the controller's link ended instead.
    public func waitForDisconnection() async -> HCIStatus? {
        await record.waitForEnd()
    }

    /// Whether the peripheral asked for security (an SMP Security Request), which this
    /// central refused: attributes that need encryption will be refused too.
    public var peripheralAskedForSecurity: Bool { record.securityRequested }
}

/// What a link's owner and its connection object share: how it ended, and whether the
/// peripheral asked for security. Locked, because the connection reads it from any task.
final class LinkRecord: Sendable {
    private struct State {
        var ended = false
        var reason: HCIStatus?
        var securityRequested = false
        var waiters: [UInt64: CheckedContinuation<HCIStatus?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    var reason: HCIStatus? { state.withLock { $0.reason } }
    var securityRequested: Bool { state.withLock { $0.securityRequested } }

    static func reasonOrUnknown(_ reason: HCIStatus?) -> HCIStatus {
        reason ?? .connectionTerminatedByLocalHost
    }

    func noteSecurityRequest() {
        state.withLock { $0.securityRequested = true }
    }

    func end(reason: HCIStatus?) {
        let waiters = state.withLock { state -> [CheckedContinuation<HCIStatus?, Never>] in
            guard !state.ended else { return [] }
            state.ended = true
            state.reason = reason
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: reason) }
    }

    /// Waits for the end without a deadline (the caller's task may be cancelled: then
    /// returns `nil` at once).
    func waitForEnd() async -> HCIStatus? {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HCIStatus?, Never>) in
                let done = state.withLock { state -> (Bool, HCIStatus?) in
                    if state.ended { return (true, state.reason) }
                    state.waiters[id] = continuation
                    return (false, nil)
                }
                if done.0 { continuation.resume(returning: done.1) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }

    /// Waits for the end up to `timeout` on `clock`; `nil` when it did not come.
    func waitForEnd(clock: any Clock<Duration>, timeout: Duration) async -> HCIStatus? {
        await withTaskGroup(of: HCIStatus??.self) { group in
            group.addTask { .some(await self.waitForEnd()) }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return .none
            }
            let first = await group.next() ?? .none
            group.cancelAll()
            return first ?? nil
        }
    }
}

/// The ATT bearer of a link on this host stack: L2CAP fixed channel 0x0004.
struct ACLATTBearer: ATTBearer {
    let central: Central
    let handle: UInt16
    /// This link's record: once it ended, its handle may be another link's.
    let record: LinkRecord
    let context: String
    let incoming: AsyncThrowingStream<[UInt8], any Error>

    func send(_ pdu: [UInt8]) async throws(LECentralError) {
        try await central.send(pdu, channel: L2CAPChannel.attribute, on: handle, of: record)
    }
}
