import Synchronization

/// A clock whose time moves only when the test says so, as NIO's `EmbeddedEventLoop`
/// moves with `advanceTime(by:)`: a sleeper on it wakes when `advance(by:)` or
/// `advance(to:)` reaches its deadline, never because the machine was fast or slow.
///
/// A test hands it to the code under test as its `any Clock<Duration>`, waits until that
/// code is asleep on it (`sleepers(atLeast:)`, so that advancing never races the code's
/// own progress), advances, and checks what happened. "Nothing happened for 60 s" is then
/// a fact about 60 s of this clock, not a hope about how long the test slept.
public final class TestClock: Clock, Sendable {
    /// A point on a test clock: the time advanced since the clock was made.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        public let offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset) on the test clock" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct CountWaiter {
        var count: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var countWaiters: [UInt64: CountWaiter] = [:]
        var nextID: UInt64 = 0
        /// Sleeps that were cancelled before they had registered.
        var cancelledEarly: Set<UInt64> = []

        mutating func takeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// The count waiters that the number of sleepers now satisfies, removed.
        mutating func satisfiedCountWaiters() -> [CheckedContinuation<Void, any Error>] {
            let ready = countWaiters.filter { $0.value.count <= sleepers.count }
            for id in ready.keys { countWaiters[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }

    /// Any duration can be slept exactly: the clock has no resolution of its own.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are asleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline of the tasks asleep now, if any.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// Suspends until the clock is advanced to `deadline` (returns at once if it is there
    /// already). Throws `CancellationError` when the task is cancelled, before or during the
    /// sleep, as `Task.sleep` does.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { $0.takeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> (resume: Result<Void, any Error>?, counted: [CheckedContinuation<Void, any Error>]) in
                    if state.cancelledEarly.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, state.satisfiedCountWaiters())
                }
                for waiter in outcome.counted { waiter.resume() }
                if let resume = outcome.resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                // Not registered yet (or already woken): a later registration must not sleep.
                state.cancelledEarly.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // Woken normally: forget a cancellation that came after the wake.
        state.withLock { _ = $0.cancelledEarly.remove(id) }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline it
    /// reaches, earliest first.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `instant` (never backwards) and wakes every sleeper whose
    /// deadline it reaches, earliest first. Woken tasks run afterwards, on their own
    /// executors: wait for their effects (or for them to sleep again) before asserting.
    public func advance(to instant: Instant) {
        let woken = state.withLock { state -> [Sleeper] in
            if instant > state.now { state.now = instant }
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks are asleep on this clock (at once if they are
    /// already): the event a test waits for before it advances. Throws when the waiting task
    /// is cancelled, or after `safetyDeadline` of real time, which only a hang reaches.
    public func sleepers(
        atLeast count: Int, safetyDeadline: Duration = WatchedState<Int>.safetyDeadline
    ) async throws {
        let id = state.withLock { $0.takeID() }
        let expiry = Task { [weak self] in
            // The one real-time wait here: a safety net turning a hang into a failure.
            try await Task.sleep(for: safetyDeadline)
            guard let self else { return }
            let asleep = sleeperCount
            failCountWaiter(id, WaitTimeout(description: "\(count) sleepers on the test clock did not come within \(safetyDeadline) (a hang?); asleep: \(asleep)"))
        }
        defer { expiry.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if state.sleepers.count >= count { return .success(()) }
                    state.countWaiters[id] = CountWaiter(count: count, continuation: continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let registered = state.withLock { state -> Bool in
                if state.countWaiters[id] != nil { return true }
                state.cancelledEarly.insert(id)
                return false
            }
            if registered { failCountWaiter(id, CancellationError()) }
        }
        state.withLock { _ = $0.cancelledEarly.remove(id) }
    }

    /// Runs `operation` while time passes: each time a task is asleep on this clock, the
    /// clock moves on by `step`. For code that waits on the clock a number of times the test
    /// does not count (ticks until a beacon is missed, one timeout after another), where the
    /// result itself says when it happened. It moves the clock for whatever sleeps on it, a
    /// command's timeout included: where a command may be in flight meanwhile, advance step
    /// by step after `sleepers(atLeast:)` instead.
    public func advancing<Result>(
        by step: Duration, while operation: () async throws -> Result
    ) async throws -> Result {
        let mover = Task {
            while !Task.isCancelled {
                try await sleepers(atLeast: 1)
                advance(by: step)
                // Lets the woken tasks run before the clock moves again.
                await Task.yield()
            }
        }
        defer { mover.cancel() }
        return try await operation()
    }

    private func failCountWaiter(_ id: UInt64, _ error: any Error) {
        let waiter = state.withLock { $0.countWaiters.removeValue(forKey: id) }
        waiter?.continuation.resume(throwing: error)
    }
}
