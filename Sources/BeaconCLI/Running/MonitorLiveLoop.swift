import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconFleet

/// The live side of `monitor`: sightings from a scan session, the clock ticking four
/// times a second so that exits happen on silence, periodic reports, and SIGUSR1 asking
/// for every region's state.
enum MonitorLiveLoop {
    /// How often the clock moves when no sighting carries time: exits are reported at
    /// most this late.
    static let tick: Duration = .milliseconds(250)

    static func run(_ session: LiveScan, monitor: MonitorRun, duration: Double?) async throws {
        signal(SIGUSR1, SIG_IGN)
        let stateRequests = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: DispatchQueue(label: "beaconctl.monitor-state"))
        stateRequests.setEventHandler { monitor.reportStates(at: session.elapsed()) }
        stateRequests.resume()
        defer {
            stateRequests.cancel()
            signal(SIGUSR1, SIG_DFL)
        }
        monitor.startSchedule(at: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await sighting in session.sightings { monitor.observe(sighting) }
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: tick)
                    let now = session.elapsed()
                    monitor.advance(to: now)
                    if let duration, now >= duration { return }
                }
            }
            // The duration, a failed stream or cancellation ends monitoring.
            try await group.next()
            group.cancelAll()
        }
    }
}
