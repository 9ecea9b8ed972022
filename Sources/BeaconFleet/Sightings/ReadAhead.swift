import Synchronization

/// Reads an asynchronous sequence ahead on a task of its own, in batches, at most `depth`
/// batches ahead of the reader: a recording's sightings are decoded on one core while the
/// audit judges the previous ones on another, instead of each waiting for the other.
/// Bounded: the reading task waits while `depth` batches are unread.
///
/// One reader. Call `stop()` when done (also when stopping early): the reading task is
/// cancelled and a wait on either side ends.
final class ReadAhead<Element: Sendable>: Sendable {
    private let channel: BatchChannel<Element>
    private let task = Mutex<Task<Void, Never>?>(nil)

    init<Base: AsyncSequence<Element, any Error> & Sendable>(_ base: Base, batchSize: Int = 4096, depth: Int = 4) {
        let channel = BatchChannel<Element>(producers: 1, depth: depth)
        self.channel = channel
        let size = max(1, batchSize)
        let reading = Task {
            var batch: [Element] = []
            batch.reserveCapacity(size)
            do {
                for try await element in base {
                    batch.append(element)
                    if batch.count == size {
                        guard await channel.push(batch) else { return }
                        batch = []
                        batch.reserveCapacity(size)
                    }
                }
                _ = await channel.push(batch)
                channel.finish()
            } catch {
                channel.finish(failure: error)
            }
        }
        task.withLock { $0 = reading }
    }

    /// The next batch in order; `nil` at the end (or once stopped); the source's error at
    /// its place.
    func next() async throws -> [Element]? {
        try await channel.next()
    }

    /// Stops reading: the reading task is cancelled, and `next()` returns `nil`.
    func stop() {
        channel.stop()
        task.withLock { $0?.cancel() }
    }
}
