import BeaconFleet

/// The watch's way of ending on a signal (`verify --watch`): SIGINT or SIGTERM cancel what it
/// runs, which ends with its final report; `StopDeadline` ends the process if that takes
/// longer than a service may.
enum SignalScope {
    /// Runs `operation`; SIGINT or SIGTERM cancel it, and it ends with what it has.
    /// `stopWithin`: seconds the command may take to end after the signal before
    /// `StopDeadline` ends it (the watch, a service).
    static func untilSignal<Value: Sendable>(
        stopWithin: Double? = nil, _ operation: @escaping @Sendable () async throws -> Value
    ) async -> Result<Value, any Error> {
        let (outcome, _) = await TerminationSignals.cancellingOnSignal(onSignal: { signalNumber in
            if let stopWithin { StopDeadline.arm(after: stopWithin, signal: signalNumber) }
        }) { () -> Result<Value, any Error> in
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        return outcome
    }

    /// The value, or the failure as the command's: a bad input is a usage or input error,
    /// anything else the controller's.
    static func value<Value>(of outcome: Result<Value, any Error>) throws -> Value {
        switch outcome {
        case .success(let value):
            return value
        case .failure(let error as SightingStreamError):
            throw CommandFailure(.usageOrInput, error.description)
        case .failure(let error):
            throw CommandFailure(.controller, ExitStatus.message(for: error))
        }
    }
}
