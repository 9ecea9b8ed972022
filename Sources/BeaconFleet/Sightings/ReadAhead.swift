import Synchronization

/// Reads an asynchronous sequence ahead on a task of its own, in batches, at most `depth`
/// batches ahead of the reader: a recording's sightings are decoded on one core while the
/// audit judges the previous ones on another, instead of each waiting for the other.
/// Bounded: the reading task waits while `depth` batches are unread.
///
/// One reader. Call `stop()` when done (also when stopping early): the reading task is
/// cancelled and a wait on either side ends.
final class ReadAhead<Element: Sendable>: Sendable {
    private struct State {
        var batches: [[Element]] = []
        var ended = false
        var failure: (any Error)?
        var stopped = false
        var reader: CheckedContinuation<Void, Never>?
        var writer: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let depth: Int
    private let task = Mutex<Task<Void, Never>?>(nil)

    init<Base: AsyncSequence<Element, any Error> & Sendable>(_ base: Base, batchSize: Int = 4096, depth: Int = 4) {
        self.depth = max(1, depth)
        let size = max(1, batchSize)
        let reading = Task { [self] in
            var batch: [Element] = []
            batch.reserveCapacity(size)
            do {
                for try await element in base {
                    batch.append(element)
                    if batch.count == size {
                        guard await push(batch) else { return }
                        batch = []
                        batch.reserveCapacity(size)
                    }
                }
                if !batch.isEmpty { _ = await push(batch) }
                end(nil)
            } catch {
                end(error)
            }
        }
        task.withLock { $0 = reading }
    }

    /// The next batch in order; `nil` at the end (or once stopped); the source's error at
    /// its place.
    func next() async throws -> [Element]? {
        while true {
            let taken = state.withLock { state -> Result<[Element]?, any Error>? in
                if !state.batches.isEmpty {
                    let batch = state.batches.removeFirst()
                    state.writer?.resume()
                    state.writer = nil
                    return .success(batch)
                }
                if state.stopped { return .success(nil) }
                if state.ended { return state.failure.map { .failure($0) } ?? .success(nil) }
                return nil
            }
            if let taken { return try taken.get() }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let waiting = state.withLock { state -> Bool in
                        guard state.batches.isEmpty, !state.ended, !state.stopped else { return false }
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

    /// Stops reading: the reading task is cancelled, and `next()` returns `nil`.
    func stop() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.stopped = true
            defer {
                state.reader = nil
                state.writer = nil
            }
            return [state.reader, state.writer].compactMap { $0 }
        }
        for continuation in waiting { continuation.resume() }
        task.withLock { $0?.cancel() }
    }

    /// Hands a batch to the reader, waiting while `depth` are unread; `false` once stopped.
    private func push(_ batch: [Element]) async -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.batches.append(batch)
            state.reader?.resume()
            state.reader = nil
            return true
        }
        guard accepted else { return false }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state -> Bool in
                guard state.batches.count >= depth, !state.stopped else { return false }
                state.writer = continuation
                return true
            }
            if !waiting { continuation.resume() }
        }
        return state.withLock { !$0.stopped }
    }

    private func end(_ failure: (any Error)?) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.ended = true
            state.failure = failure
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }
}
