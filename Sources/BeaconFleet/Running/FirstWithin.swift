/// How waiting for something within a deadline ended (`firstWithin`).
enum FirstWithin<Value: Sendable>: Sendable {
    case value(Value)
    /// The deadline came first.
    case deadline
    /// The user stopped the wait, or `operation` ended without a value.
    case stopped
}

/// Runs `operation` until it gives a value, `limit` of `clock` passes (never, when `nil`), or
/// the user stops it (`stops`), whichever comes first; the others are cancelled. `operation`
/// returns `nil` when it has nothing to give (cancelled, or its input ended).
func firstWithin<Value: Sendable>(
    _ limit: Duration?, of clock: any Clock<Duration>, stops: any StopRequests,
    _ operation: @escaping @Sendable () async -> Value?
) async -> FirstWithin<Value> {
    let (outcome, stop) = await stops.stoppable { () -> FirstWithin<Value> in
        await withTaskGroup(of: FirstWithin<Value>?.self) { group in
            group.addTask { await operation().map { .value($0) } }
            if let limit {
                group.addTask {
                    try? await clock.sleep(for: limit)
                    return Task.isCancelled ? nil : .deadline
                }
            }
            for await outcome in group {
                if let outcome {
                    group.cancelAll()
                    return outcome
                }
            }
            return .stopped
        }
    }
    return stop == nil ? outcome : .stopped
}
