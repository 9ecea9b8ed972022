import HCI
import Synchronization

/// The live loop's queue (`LiveSightingFeed`): its inputs in the order they came, read by
/// one task, holding at most `limit` sightings and ticks. When a reader falls behind (a
/// flood through a broker), the oldest sighting or tick is dropped to make room (a sighting
/// counted in `drops`, so that the judgement knows sightings may be missing; another tick
/// follows). A change of the input's health, a receiver's status, the end and a failure are
/// never dropped, and keep their place: an `input-lost` dropped unread would have the watch
/// judge while blind, and a receiver's `offline` read after sightings that came later would
/// be undone by them. Such inputs are few (a broker's connection and its receivers' status
/// topics), so they may take the queue a little past `limit`.
///
/// Dropped inputs leave a hole that the reader skips; holes are cleared away once they are
/// as many as the inputs held, so memory stays bounded by `limit` whatever the reader does.
final class LiveInputQueue: AsyncSequence, Sendable {
    typealias Element = LiveSightingFeed.Input
    typealias Failure = Never

    private struct State {
        /// The inputs from `head` on, in order; `nil` where one was dropped.
        var storage: [Element?] = []
        var head = 0
        /// Inputs held (not holes) from `head` on.
        var held = 0
        /// Sightings and ticks held: what `limit` bounds.
        var droppableHeld = 0
        var holes = 0
        /// Where the search for the oldest droppable input starts: before it (from `head`)
        /// lie only holes and inputs that are never dropped.
        var dropFrom = 0
        var finished = false
        var reader: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let limit: Int
    private let drops: DropCounter

    init(limit: Int, drops: DropCounter) {
        self.limit = Swift.max(1, limit)
        self.drops = drops
    }

    /// Adds `input` at the newest end (nothing once the queue is finished).
    func push(_ input: Element) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.storage.append(input)
            state.held += 1
            if Self.isDroppable(input) {
                state.droppableHeld += 1
                if state.droppableHeld > limit { dropOldest(&state) }
            }
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    /// Ends the queue: what it holds is still read, then `nil`.
    func finish() {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    /// The oldest input; `nil` once finished and read out, or when the reading task is
    /// cancelled (as an `AsyncStream` ends for a cancelled reader).
    func next() async -> Element? {
        while true {
            if Task.isCancelled {
                finish()
                return nil
            }
            let taken = state.withLock { state -> Element?? in
                while state.head < state.storage.count {
                    let input = state.storage[state.head]
                    state.head += 1
                    guard let input else {
                        state.holes -= 1
                        continue
                    }
                    state.held -= 1
                    if Self.isDroppable(input) { state.droppableHeld -= 1 }
                    Self.compactIfWorthIt(&state)
                    return .some(input)
                }
                return state.finished ? .some(nil) : nil
            }
            if let taken { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let waiting = state.withLock { state -> Bool in
                        guard state.head >= state.storage.count, !state.finished else { return false }
                        state.reader = continuation
                        return true
                    }
                    if !waiting { continuation.resume() }
                }
            } onCancel: {
                finish()
            }
        }
    }

    struct Iterator: AsyncIteratorProtocol {
        let queue: LiveInputQueue
        mutating func next() async -> Element? { await queue.next() }
    }

    func makeAsyncIterator() -> Iterator { Iterator(queue: self) }

    private static func isDroppable(_ input: Element) -> Bool {
        switch input {
        case .sighting, .tick: return true
        case .ended, .failed, .health, .receiverStatus: return false
        }
    }

    /// Drops the oldest sighting or tick.
    private func dropOldest(_ state: inout State) {
        var index = Swift.max(state.dropFrom, state.head)
        while index < state.storage.count {
            if let input = state.storage[index], Self.isDroppable(input) {
                if case .sighting = input { drops.add(1) }
                state.storage[index] = nil
                state.held -= 1
                state.droppableHeld -= 1
                state.holes += 1
                state.dropFrom = index + 1
                Self.compactIfWorthIt(&state)
                return
            }
            index += 1
        }
    }

    /// Clears what was read and the holes once they outnumber what is held: each input is
    /// moved a bounded number of times, and the storage stays within a small multiple of
    /// what is held.
    private static func compactIfWorthIt(_ state: inout State) {
        let waste = state.head + state.holes
        guard waste >= 1024, waste > state.held else { return }
        var kept: [Element?] = []
        kept.reserveCapacity(state.held)
        var dropFrom = 0
        var sawDroppable = false
        for index in state.head..<state.storage.count {
            guard let input = state.storage[index] else { continue }
            // The search for the oldest droppable input starts at the first one kept.
            if !sawDroppable && isDroppable(input) {
                sawDroppable = true
                dropFrom = kept.count
            }
            kept.append(input)
        }
        state.storage = kept
        state.head = 0
        state.holes = 0
        state.dropFrom = sawDroppable ? dropFrom : kept.count
    }
}
