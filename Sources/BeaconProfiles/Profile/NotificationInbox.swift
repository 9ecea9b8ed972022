import HCI
import LECentral

/// The notifications of one characteristic, kept in order until a profile takes them, each
/// wait bounded by a deadline on an injected clock and ended by cancellation or by the link
/// ending. At most `capacity` values wait; beyond that the oldest are dropped and counted
/// (a beacon cannot grow our memory by notifying faster than we read).
actor NotificationInbox {
    enum Arrival: Equatable, Sendable {
        case value([UInt8])
        case timedOut
        /// The link ended (the central's reason when it gave one).
        case ended(LECentralError?)
        case cancelled
    }

    static let capacity = 64

    private let clock: any Clock<Duration>
    private var buffer: [[UInt8]] = []
    private var ended = false
    private var endReason: LECentralError?
    private var waiter: (id: UInt64, continuation: CheckedContinuation<Arrival, Never>, timer: Task<Void, Never>)?
    private var nextID: UInt64 = 0
    private var reader: Task<Void, Never>?
    private(set) var dropped = 0

    /// Collects the values notified for `handle` from `values` (subscribe to the ATT
    /// client's stream before enabling notifications, so that none is missed).
    init(values: AsyncStream<ATTHandleValue>, handle: UInt16, att: ATTClient, clock: any Clock<Duration>) {
        self.clock = clock
        let task = Task { [weak self] in
            for await value in values where value.handle == handle {
                await self?.receive(value.value)
            }
            let reason = await att.endReason
            await self?.finish(reason)
        }
        Task { await self.keep(task) }
    }

    deinit {
        reader?.cancel()
    }

    private func keep(_ task: Task<Void, Never>) {
        reader = task
    }

    /// The next value, or why none came within `timeout`.
    func next(timeout: Duration) async -> Arrival {
        if !buffer.isEmpty { return .value(buffer.removeFirst()) }
        if ended { return .ended(endReason) }
        nextID += 1
        let id = nextID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Arrival, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: .cancelled)
                    return
                }
                let timer = clock.timer(after: timeout) { [weak self] in await self?.resolve(id, .timedOut) }
                waiter = (id, continuation, timer)
            }
        } onCancel: {
            Task { await self.resolve(id, .cancelled) }
        }
    }

    /// Takes one notified value (the reader task calls it; tests may too).
    func receive(_ value: [UInt8]) {
        if let waiter {
            resolve(waiter.id, .value(value))
            return
        }
        if buffer.count >= Self.capacity {
            buffer.removeFirst()
            dropped += 1
        }
        buffer.append(value)
    }

    private func finish(_ reason: LECentralError?) {
        ended = true
        endReason = reason
        if let waiter { resolve(waiter.id, .ended(reason)) }
    }

    private func resolve(_ id: UInt64, _ arrival: Arrival) {
        guard let current = waiter, current.id == id else { return }
        waiter = nil
        current.timer.cancel()
        current.continuation.resume(returning: arrival)
    }
}
