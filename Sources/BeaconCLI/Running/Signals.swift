#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Turns SIGINT (Ctrl-C) and SIGTERM (systemd, `kill`) into the cancellation of one task,
/// so that a long-running command stops the way it stops on any other path: cleanly, with
/// its beacons taken off the air.
enum TerminationSignals {
    static let handled: [Int32] = [SIGINT, SIGTERM]

    /// Runs `operation`, cancelling it when SIGINT or SIGTERM arrives. Returns its result and
    /// the signal that stopped it, if one did. The default dispositions are restored after.
    /// `onSignal` runs (once) before the cancellation, so that the stop can be reported with its cause.
    static func cancellingOnSignal<Result: Sendable>(
        onSignal: @escaping @Sendable (Int32) -> Void = { _ in },
        _ operation: @escaping @Sendable () async -> Result
    ) async -> (result: Result, signal: Int32?) {
        let received = Mutex<Int32?>(nil)
        let task = Task { await operation() }
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in handled {
            // Ignored first, so that the default action (ending the process at once) never
            // runs; the dispatch source still sees every delivery.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                let isFirst = received.withLock { first in
                    guard first == nil else { return false }
                    first = signalNumber
                    return true
                }
                if isFirst { onSignal(signalNumber) }
                task.cancel()
            }
            source.resume()
            sources.append(source)
        }
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        for source in sources { source.cancel() }
        for signalNumber in handled { signal(signalNumber, SIG_DFL) }
        return (result, received.withLock { $0 })
    }

    /// Runs a throwing `operation`, cancelling it on SIGINT or SIGTERM, and returns its value
    /// or rethrows its error. When a signal arrived, it throws `Interrupted` whatever the
    /// operation returned: a cancelled operation often ends as if its input had ended (a
    /// stream finishes on cancellation), and what it returns then is partial. Callers for
    /// which a signal is a normal end catch `Interrupted`.
    static func cancellingOnInterrupt<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let (outcome, signal) = await cancellingOnSignal { () -> Swift.Result<Value, any Error> in
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        if let signal { throw Interrupted(signal: signal) }
        return try outcome.get()
    }

    /// A run that SIGINT or SIGTERM cut short: what it gathered is incomplete.
    struct Interrupted: Error, CustomStringConvertible {
        var signal: Int32
        var description: String { "interrupted by \(TerminationSignals.name(of: signal))" }
    }

    /// `SIGINT`, `SIGTERM`.
    static func name(of signalNumber: Int32) -> String {
        switch signalNumber {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(signalNumber)"
        }
    }
}
