import BeaconCore
import BeaconFleet
import Logging
import Synchronization

/// One `monitor` run: the session and its report schedule, shared by the task reading
/// sightings, the clock tick, and the SIGUSR1 handler; and the output.
final class MonitorRun: Sendable {
    let output: MonitorOutput
    private let logger: Logger
    private let state: Mutex<(session: MonitorSession, schedule: MonitorSchedule)>

    init(session: MonitorSession, schedule: MonitorSchedule, output: MonitorOutput, logger: Logger) {
        state = Mutex((session, schedule))
        self.output = output
        self.logger = logger
    }

    func observe(_ sighting: Sighting) {
        output.report(state.withLock { $0.session.observe(sighting) })
    }

    /// Reports what the schedule has due by `time`, then applies the exits due by then
    /// (monitoring's clock: exits happen on silence).
    func advance(to time: Double) {
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
    func startSchedule(at time: Double) {
        state.withLock { $0.schedule.start(at: time) }
    }

    /// Every region's state, like `requestStateForRegion`.
    func reportStates(at time: Double) {
        let reports = state.withLock { state in
            (state.session.advance(to: time), state.session.stateReports(at: time))
        }
        output.report(reports.0)
        output.report(reports.1)
    }
}
