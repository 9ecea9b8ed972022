import Foundation
import Synchronization

/// One line from standard input, read on a thread of its own (a blocking read has no place
/// on Swift's cooperative pool); `nil` at the end of input or when the task is cancelled
/// (SIGINT while the question waits: the answer counts as no).
enum TerminalLine {
    /// The waiting continuation, resumed once: by the line or by cancellation, whichever first.
    private final class Waiter: Sendable {
        let continuation = Mutex<CheckedContinuation<String?, Never>?>(nil)
        func resume(_ line: String?) { continuation.withLock { $0.take() }?.resume(returning: line) }
    }

    static func read() async -> String? {
        let waiter = Waiter()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.continuation.withLock { $0 = continuation }
                if Task.isCancelled {
                    waiter.resume(nil)
                    return
                }
                Thread.detachNewThread { waiter.resume(readLine()) }
            }
        } onCancel: {
            waiter.resume(nil)
        }
    }
}
