import Foundation
import Glibc

enum ChildProcess {
    /// Starts `process` with no signal blocked.
    ///
    /// A spawned child inherits the signal mask of the thread that spawns it, and the threads
    /// Swift's concurrency runtime runs tests on block most signals, SIGTERM among them: the
    /// child (RootCanal, a broker) would then ignore the SIGTERM that stops it. The mask is
    /// cleared for the duration of the spawn only; nothing else runs on this thread in between.
    static func runWithDefaultSignalMask(_ process: Process) throws {
        var nothingBlocked = sigset_t()
        var callersMask = sigset_t()
        sigemptyset(&nothingBlocked)
        pthread_sigmask(SIG_SETMASK, &nothingBlocked, &callersMask)
        defer { pthread_sigmask(SIG_SETMASK, &callersMask, nil) }
        try process.run()
    }
}
