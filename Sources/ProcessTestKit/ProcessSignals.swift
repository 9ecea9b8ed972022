#if os(Linux)
import Foundation

/// Signals and child processes in tests.
public enum ProcessSignals {
    /// Waits for the event "process `pid` catches all of `signals`", read from the `SigCgt`
    /// mask of /proc/PID/status: a signal sent before its handler is installed would kill the
    /// child instead of testing how it handles the signal. Polls every 10 ms; the caller's
    /// time limit is the safety net.
    public static func waitUntilCatching(_ signals: [Int32], pid: Int32) async throws {
        let mask = signals.reduce(UInt64(0)) { $0 | (UInt64(1) << UInt64($1 - 1)) }
        while true {
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
               let caught = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16),
               caught & mask == mask {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
#endif
