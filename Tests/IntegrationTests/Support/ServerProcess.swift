import BeaconTestKit
import Foundation
import Glibc
import ProcessTestKit

/// A server a test starts and stops (a broker, Prometheus, Home Assistant), its end followed
/// as the kernel reports it (`ChildProcessExit`), never by Foundation's `isRunning`, which a
/// child spawned meanwhile by another test can keep true long after the server exited.
final class ServerProcess: Sendable {
    private let process: Process
    private let exit: ChildProcessExit

    /// Starts `process` with no signal blocked (ChildProcess), so that SIGTERM stops it.
    init(starting process: Process) throws {
        self.process = process
        exit = try ChildProcessExit.run(process, launch: ChildProcess.runWithDefaultSignalMask)
    }

    var processIdentifier: Int32 { process.processIdentifier }
    var isRunning: Bool { exit.status == nil }
    /// How it ended, once it has.
    var status: ChildProcessExit.Status? { exit.status }

    /// SIGTERM, and SIGKILL when it has not ended `grace` later (what it had not saved is
    /// then lost); returns once it has ended. The wait is for the kernel's report of the
    /// end, on no thread of the pool.
    func stop(grace: Duration = .seconds(10)) async {
        guard isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        if (try? await exit.wait(for: "\(process.executableURL?.lastPathComponent ?? "a server") ending after SIGTERM", deadline: grace)) != nil {
            return
        }
        kill(process.processIdentifier, SIGKILL)
        _ = try? await exit.wait(for: "\(process.executableURL?.lastPathComponent ?? "a server") ending after SIGKILL")
    }

    /// For `deinit`s: SIGKILL when it still runs, without waiting.
    func killIfRunning() {
        if isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

extension ChildProcess {
    /// Runs a helper program (`mosquitto_passwd`, `promtool`, …) to its end and returns how it
    /// ended, awaited without blocking a thread of the pool.
    static func runToEnd(_ process: Process) async throws -> ChildProcessExit.Status {
        try await ChildProcessExit.run(process).wait(for: "\(process.executableURL?.path ?? "a helper program") ending")
    }
}
