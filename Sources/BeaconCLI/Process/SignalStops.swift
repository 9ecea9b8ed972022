import BeaconFleet
import Logging

/// The command line's stop requests: SIGINT (Ctrl-C) and SIGTERM cancel the stoppable part of
/// a use case (`TerminationSignals.cancellingOnSignal`); with `logger`, the stop is logged
/// with its signal as it arrives ("stopping on SIGINT"); with `stopWithin`, `StopDeadline`
/// ends the process when the run takes longer than that many seconds to end after the signal
/// (the watch, a service).
struct SignalStops: StopRequests {
    var logger: Logger?
    var stopWithin: Double?

    func stoppable<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) async -> (value: Value, stop: UserStop?) {
        let (value, signal) = await TerminationSignals.cancellingOnSignal(onSignal: { [logger, stopWithin] signal in
            logger?.info("stopping on \(TerminationSignals.name(of: signal))")
            if let stopWithin { StopDeadline.arm(after: stopWithin, signal: signal) }
        }, operation)
        return (value, signal.map { UserStop(TerminationSignals.Interrupted(signal: $0).description) })
    }
}
