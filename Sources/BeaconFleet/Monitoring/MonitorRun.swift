import BeaconCore
import HCI
import Logging
import Synchronization

/// Where a monitoring run's reports go: the front end renders them.
public protocol MonitorReportSink: Sendable {
    func report(_ events: [RegionEvent])
    func report(_ rangings: [RegionRanging])
}

/// One monitoring run: the session and its report schedule, shared by the task reading
/// sightings, the clock tick and state requests (SIGUSR1 on the command line); every report
/// goes to the sink.
public final class MonitorRun: Sendable {
    public let output: any MonitorReportSink
    private let logger: Logger
    private let state: Mutex<(session: MonitorSession, schedule: MonitorSchedule)>

    /// How often the clock moves in a live run when no sighting carries time: exits are
    /// reported at most this late.
    public static let liveTick: Duration = .milliseconds(250)

    public init(session: MonitorSession, schedule: MonitorSchedule, output: any MonitorReportSink, logger: Logger) {
        state = Mutex((session, schedule))
        self.output = output
        self.logger = logger
    }

    /// Monitors one sighting at its own time (`MonitorSession.observe(_:)`).
    public func observe(_ sighting: Sighting) {
        output.report(state.withLock { $0.session.observe(sighting) })
    }

    /// Monitors one sighting at `time` on the run's clock rather than its own (a replay's
    /// placed time: the sighting keeps its receiver's time).
    public func observe(_ sighting: Sighting, at time: PassTime) {
        output.report(state.withLock { $0.session.observe(sighting, at: time) })
    }

    /// Reports what the schedule has due by `time`, then applies the exits due by then
    /// (monitoring's clock: exits happen on silence).
    public func advance(to time: PassTime) {
        let (due, exits) = state.withLock { state in
            let due = state.schedule.fire(until: time, session: &state.session)
            return (due, state.session.advance(to: time))
        }
        for report in due {
            switch report {
            case .events(let events): output.report(events)
            case .ranging(let rangings): output.report(rangings)
            case .skipped(let count, let from, let to):
                logger.warning("""
                    the clock jumped from \(SightingJSONLines.timeText(from.seconds)) s to \(SightingJSONLines.timeText(to.seconds)) s: \
                    \(count) periodic reports in between were left out (exits in between were reported)
                    """)
            }
        }
        output.report(exits)
    }

    /// Starts the schedule's periods at `time`.
    public func startSchedule(at time: PassTime) {
        state.withLock { $0.schedule.start(at: time) }
    }

    /// Every region's state, like `requestStateForRegion`.
    public func reportStates(at time: PassTime) {
        let reports = state.withLock { state in
            (state.session.advance(to: time), state.session.stateReports(at: time))
        }
        output.report(reports.0)
        output.report(reports.1)
    }

    /// Monitors a live scan: its sightings, and the clock ticking every `liveTick` so that
    /// exits happen on silence, until `duration` seconds of the scan (if given), the end of
    /// the scan, a failed scan or cancellation (`CancellationError`), read through the one
    /// live loop (`LiveScan.read`) on the scan's own clock, the clock of its sightings' times
    /// (a test clock in tests). `drops` counts the sightings monitoring dropped because it
    /// fell behind (read it however the run ended).
    public func runLive(_ scan: LiveScan, duration: Duration?, drops: DropCounter = DropCounter()) async throws {
        startSchedule(at: .origin)
        try await scan.read(until: duration, every: Self.liveTick, drops: drops) { sighting, _ in
            observe(sighting)
        } tick: { now in
            advance(to: now)
        }
    }
}
