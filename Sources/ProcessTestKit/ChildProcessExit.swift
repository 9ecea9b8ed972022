import ClockTestKit
import Foundation
import Glibc

/// The end of a child process that a test started with Foundation's `Process`, learnt from
/// the kernel as soon as it happens.
///
/// Foundation on Linux learns of a child's exit from the end of a socket that the child
/// inherits, and closes the other descriptors of each child it spawns by a list read just
/// before spawning: a child that another test spawns at that moment (a broker, a controller)
/// can inherit the socket too. `terminationHandler`, `isRunning` and `waitUntilExit` then
/// wait for that second child as well, which for a broker kept for a whole suite means a
/// test that sees its child "hang" long after it exited. `waitid` with `WNOWAIT` tells the
/// exit at once and leaves the child for Foundation to reap. Foundation's handler stays
/// attached: when Foundation reaps the child first (a child that ends before the watching
/// thread starts), its report is the one recorded.
public final class ChildProcessExit: Sendable {
    /// How the child ended: its exit status, or the signal that ended it.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The exit status, or the number of the signal that ended the process.
        public var value: Int32
        public var bySignal: Bool

        public init(value: Int32, bySignal: Bool) {
            self.value = value
            self.bySignal = bySignal
        }

        public static func exited(_ status: Int32) -> Status { Status(value: status, bySignal: false) }
        public static func signalled(_ signalNumber: Int32) -> Status { Status(value: signalNumber, bySignal: true) }

        /// The exit status when the process exited, `nil` when a signal ended it.
        public var exitStatus: Int32? { bySignal ? nil : value }

        public var description: String { bySignal ? "ended by signal \(value)" : "exited with status \(value)" }
    }

    private let watched = WatchedState<Status?>(nil)
    private let onExit: @Sendable (Status) -> Void

    private init(onExit: @escaping @Sendable (Status) -> Void) {
        self.onExit = onExit
    }

    /// Starts `process` with `launch` (its `run()` unless told otherwise) and follows its
    /// end. `onExit` runs once, on another thread, when the end is known. The process's
    /// `terminationHandler` is taken for this.
    public static func run(
        _ process: Process,
        launch: (Process) throws -> Void = { try $0.run() },
        onExit: @escaping @Sendable (Status) -> Void = { _ in }
    ) throws -> ChildProcessExit {
        let exit = ChildProcessExit(onExit: onExit)
        process.terminationHandler = { process in
            exit.record(process.terminationReason == .uncaughtSignal
                ? .signalled(process.terminationStatus) : .exited(process.terminationStatus))
        }
        try launch(process)
        let identifier = id_t(bitPattern: process.processIdentifier)
        // A thread of its own: `waitid` blocks until the child ends, which must never hold
        // one of the few threads Swift's concurrency runtime runs tests on.
        Thread.detachNewThread {
            var information = siginfo_t()
            while waitid(P_PID, identifier, &information, WEXITED | WNOWAIT) != 0 {
                // ECHILD: Foundation reaped it first, and its handler reports the end.
                guard errno == EINTR else { return }
            }
            let status = information._sifields._sigchld.si_status
            exit.record(information.si_code == Int32(CLD_EXITED) ? .exited(status) : .signalled(status))
        }
        return exit
    }

    /// How the child ended, once known.
    public var status: Status? { watched.value }

    /// Resumes when the child has ended. Throws after `deadline` (by default the safety
    /// deadline: a child that does not end) or when the task is cancelled.
    @discardableResult
    public func wait(
        for description: String = "the child process ending", deadline: Duration = WatchedState<Status?>.safetyDeadline
    ) async throws -> Status {
        let status = try await watched.wait(for: description, safetyDeadline: deadline) { $0 != nil }
        // The condition above holds only for a known status.
        return status ?? .exited(-1)
    }

    private func record(_ status: Status) {
        var isFirst = false
        watched.update { known in
            guard known == nil else { return }
            known = status
            isFirst = true
        }
        if isFirst { onExit(status) }
    }
}
