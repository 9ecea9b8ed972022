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

    public func observe(_ sighting: Sighting) {
        output.report(state.withLock { $0.session.observe(sighting) })
    }

    /// Reports what the schedule has due by `time`, then applies the exits due by then
    /// (monitoring's clock: exits happen on silence).
    public func advance(to time: Double) {
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
                    the clock jumped from \(SightingJSONLines.timeText(from)) s to \(SightingJSONLines.timeText(to)) s: \
                    \(count) periodic reports in between were left out (exits in between were reported)
                    """)
            }
        }
        output.report(exits)
    }

    /// Starts the schedule's periods at `time`.
    public func startSchedule(at time: Double) {
        state.withLock { $0.schedule.start(at: time) }
    }

    /// Every region's state, like `requestStateForRegion`.
    public func reportStates(at time: Double) {
        let reports = state.withLock { state in
            (state.session.advance(to: time), state.session.stateReports(at: time))
        }
        output.report(reports.0)
        output.report(reports.1)
    }

    /// Sightings a live run may hold unread before it drops the oldest (as verify's).
    static let liveQueueLimit = 100_000

    /// Monitors a live scan: its sightings, and the clock ticking every `liveTick` so that
    /// exits happen on silence, until `duration` seconds of the scan (if given), the end of
    /// the scan, a failed scan or cancellation (`CancellationError`). Both come through the
    /// one live loop (`LiveSightingFeed`) on the scan's own clock, the clock of its
    /// sightings' times (a test clock in tests). `drops` counts the sightings the run's queue
    /// dropped because monitoring fell behind (read it however the run ended).
    public func runLive(_ scan: LiveScan, duration: Double?, drops: DropCounter = DropCounter()) async throws {
        startSchedule(at: 0)
        let feed = LiveSightingFeed(
            scan.sightings, tick: Self.liveTick, queueLimit: Self.liveQueueLimit, drops: drops, clock: scan.session.clock,
            elapsed: { scan.elapsed() }, deadline: duration)
        defer { feed.stop() }
        // Ends early when this task is cancelled: the stream's iteration stops.
        for await input in feed.inputs {
            switch input {
            case .sighting(let sighting, let time):
                // Read late, past the end (the queue was behind): not monitored.
                if let duration, time > duration { return }
                observe(sighting)
            case .tick(let time):
                advance(to: time)
                if let duration, time >= duration { return }
            case .ended:
                return
            case .failed(let error):
                throw error
            case .health, .receiverStatus:
                // A live scan's feed carries neither.
                continue
            }
        }
        try Task.checkCancellation()
        return
    }
}
