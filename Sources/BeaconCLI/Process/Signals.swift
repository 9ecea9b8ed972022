#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT (Ctrl-C) and SIGTERM (systemd, `kill`) into the cancellation of one task,
/// so that a long-running command stops the way it stops on any other path: cleanly, with
/// its beacons taken off the air.
///
/// The signals are watched by one set of dispatch sources for the whole process, made at
/// the first scope and kept: libdispatch installs its signal handler once per signal and
/// process, so a disposition reset after one scope (to let the default action run again)
/// removed it for good, and a command with two scopes (open a pipe, then read it; a walk's
/// spots) ignored the second Ctrl-C. Scopes register with the watcher; a signal cancels every scope open at that
/// moment. Between scopes, a signal ends the process at once with the shell's status for
/// it (128 + the signal), as the default action would.
enum TerminationSignals {
    static let handled: [Int32] = [SIGINT, SIGTERM]

    private static let stopReceived = Atomic<Bool>(false)

    /// Whether SIGINT or SIGTERM has reached this process: what is left to do on the way out
    /// (waiting for --exec programs) is then bounded.
    static var stopRequested: Bool { stopReceived.load(ordering: .relaxed) }

    /// Runs `operation`, cancelling it when SIGINT or SIGTERM arrives. Returns its result and
    /// the signal that stopped it, if one did. `onSignal` runs (once) before the
    /// cancellation, so that the stop can be reported with its cause.
    static func cancellingOnSignal<Result: Sendable>(
        onSignal: @escaping @Sendable (Int32) -> Void = { _ in },
        _ operation: @escaping @Sendable () async -> Result
    ) async -> (result: Result, signal: Int32?) {
        let received = Mutex<Int32?>(nil)
        let started = Mutex<Task<Result, Never>?>(nil)
        // The scope is open before the operation starts: whatever the operation does (and
        // says) happens while a signal stops it cleanly.
        let scope = SignalWatcher.shared.open(for: handled) { signalNumber in
            stopReceived.store(true, ordering: .relaxed)
            let isFirst = received.withLock { first in
                guard first == nil else { return false }
                first = signalNumber
                return true
            }
            if isFirst { onSignal(signalNumber) }
            started.withLock { $0 }?.cancel()
        }
        let task = Task { await operation() }
        started.withLock { $0 = task }
        // A signal between opening the scope and storing the task found nothing to cancel.
        if received.withLock({ $0 }) != nil { task.cancel() }
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        SignalWatcher.shared.close(scope)
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

/// The process's one watcher of signals (SIGINT and SIGTERM for every command, SIGUSR1 for
/// `monitor`'s state requests), and the scopes waiting for them. Every signal the process
/// handles goes through here, for the reason above: a source made and cancelled per use would
/// leave the signal unhandled after its first scope.
final class SignalWatcher: Sendable {
    static let shared = SignalWatcher()

    private struct Scope {
        var signals: Set<Int32>
        var handler: @Sendable (Int32) -> Void
    }

    private struct State {
        var sources: [Int32: any DispatchSourceSignal] = [:]
        var scopes: [UInt64: Scope] = [:]
        var nextScope: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Registers `handler` for `signals` until `close`; a signal's first scope starts
    /// watching it, for good.
    func open(for signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) -> UInt64 {
        state.withLock { state in
            for signalNumber in signals where state.sources[signalNumber] == nil {
                // Ignored until the source is in place, so that the default action (ending
                // the process at once) cannot run in between; libdispatch then installs its
                // own handler, which stays (programs started later get the default
                // actions, as for any caught signal).
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { [weak self] in self?.deliver(signalNumber) }
                source.resume()
                state.sources[signalNumber] = source
            }
            state.nextScope += 1
            state.scopes[state.nextScope] = Scope(signals: Set(signals), handler: handler)
            return state.nextScope
        }
    }

    func close(_ scope: UInt64) {
        _ = state.withLock { $0.scopes.removeValue(forKey: scope) }
    }

    private func deliver(_ signalNumber: Int32) {
        let handlers = state.withLock { state in
            state.scopes.values.filter { $0.signals.contains(signalNumber) }.map(\.handler)
        }
        guard !handlers.isEmpty else {
            // No scope waiting for it: end as the default action (of each signal handled
            // here) would have.
            _exit(128 + signalNumber)
        }
        for handler in handlers { handler(signalNumber) }
    }
}

/// The last resort of a service told to stop: when the command has not ended `limit` after
/// SIGINT/SIGTERM (a connection that will not close, a stop that waits on something that
/// never comes), it says so on standard error and ends with exit status 3, rather than hang
/// until systemd's SIGKILL with nothing said. Armed once per process, at the first signal.
enum StopDeadline {
    /// For `verify --watch`: it stops in hundredths of a second, whatever its backlog
    /// (the flood lane measures it); ten seconds is a hang.
    static let watchLimit = 10.0

    private static let armed = Atomic<Bool>(false)

    static func arm(after limit: Double, signal signalNumber: Int32) {
        guard !armed.exchange(true, ordering: .relaxed) else { return }
        let name = TerminationSignals.name(of: signalNumber)
        // On a thread of its own: if the pool were what hangs, a task would never run.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: limit)
            let message = "beaconctl: error: still stopping \(Int(limit)) s after \(name) (a connection or controller did not close): "
                + "exiting without the final report\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            _exit(3)
        }
    }
}
