import Foundation

/// Runs blocking `body` (a read of standard input or of a pipe, which may wait for as long
/// as the writer takes) on a thread of its own and suspends until it returns, so that the
/// wait never occupies one of Swift's cooperative threads, of which there is one per core.
func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
