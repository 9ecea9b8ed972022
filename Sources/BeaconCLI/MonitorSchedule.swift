import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconFleet

/// When periodic state and ranging reports fall due, on monitoring's clock.
struct MonitorSchedule: Sendable {
    let stateEvery: Double?
    let rangeEvery: Double?
    private var nextState: Double?
    private var nextRange: Double?

    init(stateEvery: Double?, rangeEvery: Double?) {
        self.stateEvery = stateEvery
        self.rangeEvery = rangeEvery
    }

    mutating func start(at time: Double) {
        nextState = stateEvery.map { time + $0 }
        nextRange = rangeEvery.map { time + $0 }
    }

    /// Reports everything due up to `time`, each at its own time, in time order.
    mutating func fire(until time: Double, run: MonitorRun) {
        while true {
            let dueState = nextState.flatMap { $0 <= time ? $0 : nil }
            let dueRange = nextRange.flatMap { $0 <= time ? $0 : nil }
            if let dueState, dueState <= (dueRange ?? .infinity), let stateEvery {
                run.reportStates(at: dueState)
                nextState = dueState + stateEvery
            } else if let dueRange, let rangeEvery {
                run.advance(to: dueRange)
                run.reportRanging(at: dueRange)
                nextRange = dueRange + rangeEvery
            } else {
                return
            }
        }
    }
}

/// The live side of `monitor`: sightings from a scan session, the clock ticking four
/// times a second so that exits happen on silence, periodic reports, and SIGUSR1 asking
/// for every region's state.
enum MonitorLiveLoop {
    /// How often the clock moves when no sighting carries time: exits are reported at
    /// most this late.
    static let tick: Duration = .milliseconds(250)

    static func run(
        _ session: ScanSession, monitor: MonitorRun, stateEvery: Double?, rangeEvery: Double?, duration: Double?
    ) async throws {
        signal(SIGUSR1, SIG_IGN)
        let stateRequests = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: DispatchQueue(label: "beaconctl.monitor-state"))
        stateRequests.setEventHandler { monitor.reportStates(at: session.elapsed()) }
        stateRequests.resume()
        defer {
            stateRequests.cancel()
            signal(SIGUSR1, SIG_DFL)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await sighting in session.sightings { monitor.observe(sighting) }
            }
            group.addTask {
                var schedule = MonitorSchedule(stateEvery: stateEvery, rangeEvery: rangeEvery)
                schedule.start(at: 0)
                while !Task.isCancelled {
                    try await Task.sleep(for: tick)
                    let now = session.elapsed()
                    schedule.fire(until: now, run: monitor)
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
