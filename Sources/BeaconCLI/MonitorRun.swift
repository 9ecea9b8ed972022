import BeaconCore
import BeaconFleet
import Synchronization

/// One `monitor` run: the session, shared by the task reading sightings, the clock tick,
/// the periodic state and ranging reports and the SIGUSR1 handler; and the output.
final class MonitorRun: Sendable {
    let output: MonitorOutput
    private let session: Mutex<MonitorSession>

    init(session: MonitorSession, output: MonitorOutput) {
        self.session = Mutex(session)
        self.output = output
    }

    func observe(_ sighting: Sighting) {
        output.report(session.withLock { $0.observe(sighting) })
    }

    /// Applies the exits due by `time` (monitoring's clock: exits happen on silence).
    func advance(to time: Double) {
        output.report(session.withLock { $0.advance(to: time) })
    }

    /// Every region's state, like `requestStateForRegion`.
    func reportStates(at time: Double) {
        let reports = session.withLock { session in
            (session.advance(to: time), session.stateReports(at: time))
        }
        output.report(reports.0)
        output.report(reports.1)
    }

    func reportRanging(at time: Double) {
        output.report(session.withLock { $0.ranging(at: time) })
    }
}
