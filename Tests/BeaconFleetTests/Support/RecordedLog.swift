import Synchronization

/// A list that grows as things happen (events reported, commands received) and that a test
/// can await: `wait(until:)` resumes the moment an append makes its condition hold, instead
/// of polling against a deadline that a busy machine may miss.
///
/// The only deadline is a safety one, generous enough that no amount of load reaches it:
/// it exists to turn a real hang into a failure that shows what was recorded.
final class RecordedLog<Element: Sendable>: Sendable {
    static var safetyDeadline: Duration { .seconds(120) }

    private struct Waiter {
        var condition: @Sendable ([Element]) -> Bool
        var continuation: CheckedContinuation<[Element], any Error>
    }

    private struct State {
        var elements: [Element] = []
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    var elements: [Element] { state.withLock { $0.elements } }

    func append(_ element: Element) {
        let satisfied = state.withLock { state -> [(CheckedContinuation<[Element], any Error>, [Element])] in
            state.elements.append(element)
            let elements = state.elements
            let ready = state.waiters.filter { $0.value.condition(elements) }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map { ($0.continuation, elements) }
        }
        for (continuation, elements) in satisfied { continuation.resume(returning: elements) }
    }

    /// Returns the elements as soon as `condition` holds for them (at once if it already
    /// does). Throws when the task is cancelled, or after `safetyDeadline` with what was
    /// recorded, described as waiting for `description`.
    @discardableResult
    func wait(
        for description: String, safetyDeadline: Duration = RecordedLog.safetyDeadline,
        until condition: @escaping @Sendable ([Element]) -> Bool
    ) async throws -> [Element] {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let expiry = Task { [weak self] in
            try await Task.sleep(for: safetyDeadline)
            self?.fail(id, TestFailure("\(description) did not happen within \(safetyDeadline) (a hang?); recorded: \(self?.elements ?? [])"))
        }
        defer { expiry.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Element], any Error>) in
                let ready = state.withLock { state -> [Element]? in
                    if condition(state.elements) { return state.elements }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            fail(id, CancellationError())
        }
    }

    private func fail(_ id: UInt64, _ error: any Error) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(throwing: error)
    }
}
