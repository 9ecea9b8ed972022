import Synchronization

/// A bounded queue of batches between tasks that produce them and the one task that reads
/// them: a producer that adds a batch waits while `depth` or more are unread. Backpressure
/// reaches each producer's own source (a recording's reads, a broker client's buffer), so
/// memory stays bounded whatever arrives.
///
/// The channel ends once every producer has ended (`finish(failure:)`, one call per
/// producer), or at once when `stop()` is called (also what cancelling the reader does).
final class BatchChannel<Element: Sendable>: Sendable {
    private struct State {
        var batches: [[Element]] = []
        var openProducers: Int
        var failure: (any Error)?
        var stopped = false
        var reader: CheckedContinuation<Void, Never>?
        var writers: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    private let depth: Int

    init(producers: Int, depth: Int) {
        self.depth = max(1, depth)
        state = Mutex(State(openProducers: max(1, producers)))
    }

    /// The next batch in order; `nil` at the end (or once stopped); a producer's error once
    /// every batch before it was read.
    func next() async throws -> [Element]? {
        while true {
            let taken = state.withLock { state -> Result<[Element]?, any Error>? in
                if !state.batches.isEmpty {
                    let batch = state.batches.removeFirst()
                    // Room for one more: every waiting producer tries again.
                    for writer in state.writers { writer.resume() }
                    state.writers.removeAll()
                    return .success(batch)
                }
                if state.stopped { return .success(nil) }
                if state.openProducers == 0 { return state.failure.map { .failure($0) } ?? .success(nil) }
                return nil
            }
            if let taken { return try taken.get() }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let waiting = state.withLock { state -> Bool in
                        guard state.batches.isEmpty, state.openProducers > 0, !state.stopped else { return false }
                        state.reader = continuation
                        return true
                    }
                    if !waiting { continuation.resume() }
                }
            } onCancel: {
                stop()
            }
        }
    }

    /// Adds a batch, then waits while `depth` are unread (so each producer is at most one
    /// batch beyond the bound); `false` once the channel is stopped (the producer should
    /// end). An empty batch is not added.
    func push(_ batch: [Element]) async -> Bool {
        guard !batch.isEmpty else { return !isStopped }
        let added = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.batches.append(batch)
            state.reader?.resume()
            state.reader = nil
            return true
        }
        guard added else { return false }
        while true {
            let full = state.withLock { state in !state.stopped && state.batches.count >= depth }
            guard full else { return !isStopped }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = state.withLock { state -> Bool in
                    guard state.batches.count >= depth, !state.stopped else { return false }
                    state.writers.append(continuation)
                    return true
                }
                if !waiting { continuation.resume() }
            }
        }
    }

    /// One producer has ended, with `failure` when it failed (the first failure is kept).
    func finish(failure: (any Error)? = nil) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.openProducers = max(0, state.openProducers - 1)
            if state.failure == nil { state.failure = failure }
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    /// Ends the channel now: `next()` returns `nil`, `push` returns `false`, and every wait
    /// on either side ends.
    func stop() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.stopped = true
            defer {
                state.reader = nil
                state.writers.removeAll()
            }
            return state.writers + [state.reader].compactMap { $0 }
        }
        for continuation in waiting { continuation.resume() }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }
}
