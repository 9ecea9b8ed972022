import BeaconTestKit
import Foundation
import Glibc
import ProcessTestKit

/// How a RootCanal process ended.
struct RootCanalTermination: Sendable, Equatable, CustomStringConvertible {
    enum Cause: Sendable, Equatable {
        case exited(status: Int32)
        case signalled(Int32)
    }

    let cause: Cause

    init(cause: Cause) {
        self.cause = cause
    }

    init(of status: ChildProcessExit.Status) {
        cause = status.bySignal ? .signalled(status.value) : .exited(status: status.value)
    }

    /// Whether this is how RootCanal ends when the harness stops it: SIGTERM, the SIGKILL
    /// that follows a grace period, or a clean exit. Anything else (SIGABRT on a command it
    /// cannot parse, a crash, an error status) is a death the test must hear about.
    var isOrderlyStop: Bool {
        switch cause {
        case .exited(let status): status == 0
        case .signalled(let signal): signal == SIGTERM || signal == SIGKILL
        }
    }

    var description: String {
        switch cause {
        case .exited(let status):
            "exited with status \(status)"
        case .signalled(let signal):
            "killed by signal \(signal) (\(strsignal(signal).map { String(cString: $0) } ?? "unknown"))"
        }
    }
}
