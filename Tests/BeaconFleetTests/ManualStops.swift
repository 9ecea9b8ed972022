import BeaconFleet
import Synchronization

/// Stop requests a test makes by hand: `stop()` cancels the stoppable part running then (or
/// the next one), as Ctrl-C does on the command line, and that part reports the stop.
final class ManualStops: StopRequests {
    private struct State {
        var stopped = false
        var cancel: (@Sendable () -> Void)?
        var started = 0
    }

    private let state = Mutex(State())

    /// How many stoppable parts have started.
    var started: Int { state.withLock { $0.started } }

    func stop() {
        let cancel = state.withLock { state in
            state.stopped = true
            return state.cancel
        }
        cancel?()
    }

    func stoppable<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) async -> (value: Value, stop: UserStop?) {
        let task = Task { await operation() }
        let stoppedAlready = state.withLock { state in
            state.cancel = { task.cancel() }
            state.started += 1
            return state.stopped
        }
        if stoppedAlready { task.cancel() }
        let value = await task.value
        let stopped = state.withLock { state in
            state.cancel = nil
            return state.stopped
        }
        return (value, stopped ? UserStop("stopped by the test") : nil)
    }
}
