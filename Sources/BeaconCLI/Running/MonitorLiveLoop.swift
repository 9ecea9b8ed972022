import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconFleet

/// The live side of `monitor` on the command line: the library's live run, plus SIGUSR1
/// asking for every region's state.
enum MonitorLiveLoop {
    static func run(_ session: LiveScan, monitor: MonitorRun, duration: Double?) async throws {
        signal(SIGUSR1, SIG_IGN)
        let stateRequests = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: DispatchQueue(label: "beaconctl.monitor-state"))
        stateRequests.setEventHandler { monitor.reportStates(at: session.elapsed()) }
        stateRequests.resume()
        defer {
            stateRequests.cancel()
            signal(SIGUSR1, SIG_DFL)
        }
        try await monitor.runLive(session, duration: duration)
    }
}
