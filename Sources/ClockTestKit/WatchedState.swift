import Synchronization

/// A value that changes on other threads (a child process's output, the commands a
/// controller received, what a scanner hears) and that a test can await: `wait(until:)`
/// resumes on the change that gives it an answer, instead of polling against a deadline
/// that a busy machine may miss.
///
/// The only deadline is a safety one, generous enough that no load reaches it: it turns a
/// real hang into a failure that says what was being waited for and what the value was.
public final class WatchedState<Value: Sendable>: Sendable {
    public static var safetyDeadline: Duration { .seconds(120) }

    private struct Waiter {
        var answer: @Sendable (Value) -> Bool
        var continuation: CheckedContinuation<Value, any Error>
    }

    private struct State {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state: Mutex<State>

    public init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    public var value: Value { state.withLock { $0.value } }

    /// Changes the value and resumes the waiters it satisfies.
    public func update(_ change: (inout Value) -> Void) {
        let satisfied = state.withLock { state -> [(CheckedContinuation<Value, any Error>, Value)] in
            change(&state.value)
            let value = state.value
            let ready = state.waiters.filter { $0.value.answer(value) }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map { ($0.continuation, value) }
        }
        for (continuation, value) in satisfied { continuation.resume(returning: value) }
    }

    /// Returns the value as soon as `condition` holds for it (at once if it already does).
    /// Throws when the task is cancelled, or after `safetyDeadline` naming `description`.
    @discardableResult
    public func wait(
        for description: String, safetyDeadline: Duration = WatchedState.safetyDeadline,
        until condition: @escaping @Sendable (Value) -> Bool
    ) async throws -> Value {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let expiry = Task { [weak self] in
            try await Task.sleep(for: safetyDeadline)
            guard let self else { return }
            fail(id, WaitTimeout(description: "\(description) did not happen within \(safetyDeadline) (a hang?); the value: \(value)"))
        }
        defer { expiry.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let ready = state.withLock { state -> Value? in
                    if condition(state.value) { return state.value }
                    state.waiters[id] = Waiter(answer: condition, continuation: continuation)
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

/// A list that grows as things happen (events reported, commands received) and that a test
/// can await, as `WatchedState` does for any value.
public final class RecordedLog<Element: Sendable>: Sendable {
    private let watched = WatchedState<[Element]>([])

    public init() {}

    public var elements: [Element] { watched.value }

    public func append(_ element: Element) {
        watched.update { $0.append(element) }
    }

    /// Returns the elements as soon as `condition` holds for them (at once if it already
    /// does); see `WatchedState.wait(for:safetyDeadline:until:)`.
    @discardableResult
    public func wait(
        for description: String, safetyDeadline: Duration = WatchedState<[Element]>.safetyDeadline,
        until condition: @escaping @Sendable ([Element]) -> Bool
    ) async throws -> [Element] {
        try await watched.wait(for: description, safetyDeadline: safetyDeadline, until: condition)
    }
}

/// A wait that reached its safety deadline: something hung.
public struct WaitTimeout: Error, CustomStringConvertible {
    public let description: String
}

/// A test's own failure, with what went wrong in words.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
