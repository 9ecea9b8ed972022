#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconFleet
import HCI
import Logging

/// The live side of `monitor` on the command line: the library's live run, plus SIGUSR1
/// asking for every region's state.
enum MonitorLiveLoop {
    /// `drops` counts the sightings monitoring dropped because it fell behind.
    static func run(_ session: LiveScan, monitor: MonitorRun, duration: Double?, drops: DropCounter, logger: Logger) async throws {
        // Through the process's one signal watcher: a source of its own, cancelled at the end,
        // would leave SIGUSR1 unhandled for a later monitor run in the same process.
        let scope = SignalWatcher.shared.open(for: [SIGUSR1]) { _ in monitor.reportStates(at: session.elapsed()) }
        defer { SignalWatcher.shared.close(scope) }
        logger.info("kill -USR1 \(getpid()) reports every region's state")
        try await monitor.runLive(session, duration: duration, drops: drops)
    }
}
