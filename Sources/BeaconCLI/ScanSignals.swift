import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into task cancellation, so that a scan stops the way
/// it stops at the end of `--duration`: scanning disabled, the controller left clean, the
/// final table printed, exit 0.
enum ScanSignals {
    static let handled: [Int32] = [SIGINT, SIGTERM]

    /// Runs `body`; the first SIGINT or SIGTERM while it runs cancels it. The signals'
    /// default actions are restored afterwards, so a second Ctrl-C after the scan ended
    /// interrupts as usual.
    static func cancellingOnInterrupt<Value: Sendable>(
        _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let task = Task { try await body() }
        let queue = DispatchQueue(label: "beaconctl.scan-signals")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in handled {
            // The dispatch source only sees the signal once its default action is off.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { task.cancel() }
            source.resume()
            sources.append(source)
        }
        defer {
            for source in sources { source.cancel() }
            for signalNumber in handled { signal(signalNumber, SIG_DFL) }
        }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
