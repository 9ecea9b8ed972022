#if os(Linux)
import Glibc

/// Threads of our own for blocking work (a reader parked in `poll`, a TCP connect waiting
/// for its timeout), so that blocking calls never occupy Swift's small cooperative pool.
package enum POSIXThread {
    /// Starts `body` on a new detached thread.
    package static func detach(_ body: @escaping @Sendable () -> Void) throws(POSIXCallError) {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { context in
                guard let context else { return nil }
                Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
        guard result == 0 else {
            // The thread never started, so the retain meant for it is ours to drop.
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw POSIXCallError("pthread_create", code: result)
        }
    }

    /// Runs blocking `body` on a new thread and suspends the caller until it returns.
    package static func run<Value: Sendable>(
        _ body: @escaping @Sendable () -> Value
    ) async throws(POSIXCallError) -> Value {
        let outcome: Result<Value, POSIXCallError> = await withCheckedContinuation { continuation in
            do throws(POSIXCallError) {
                try detach { continuation.resume(returning: .success(body())) }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try outcome.get()
    }
}

/// Carries a closure through `pthread_create`'s untyped context pointer.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
#endif
import HCI
