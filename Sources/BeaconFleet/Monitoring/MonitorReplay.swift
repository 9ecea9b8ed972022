import BeaconCore
import Logging
import Synchronization

/// The use case behind `monitor --input`: region monitoring over a recording, or over a
/// broker's stream, on one clock (`SightingTimeline`). The first sighting starts monitoring,
/// state and ranging reports fall at their times between sightings, and the input's end (a
/// recording's last sighting) ends it: silence after a recording is not part of it.
///
/// Each receiver joins the clock at its first sighting. A broker's stream is live
/// (`followsWallClock`): once a receiver on Unix time has been placed, the clock also follows
/// the wall clock between sightings, so that a region is left after its exit period of
/// silence even when nothing more arrives, and `duration` counts wall-clock seconds.
public struct MonitorReplay: Sendable {
    public let session: @Sendable (Double) -> MonitorSession
    public let schedule: MonitorSchedule
    /// Seconds of the clock from the first sighting after which monitoring ends.
    public let duration: Double?
    public let output: any MonitorReportSink
    public let logger: Logger

    public init(
        session: @escaping @Sendable (Double) -> MonitorSession, schedule: MonitorSchedule, duration: Double?,
        output: any MonitorReportSink, logger: Logger
    ) {
        self.session = session
        self.schedule = schedule
        self.duration = duration
        self.output = output
        self.logger = logger
    }

    /// Monitors what `read` hands over (it calls its argument with each sighting in order
    /// until the input ends or the argument returns `false`), until the input ends,
    /// `duration` has passed or the task is cancelled. Following the wall clock, the clock
    /// is moved every `tick` of `clock` to `wallClock`'s time (Unix seconds); both are
    /// injected so that tests move them by hand. Returns whether any sighting was monitored.
    public func run(
        reading read: @escaping @Sendable (_ take: (Sighting) -> Bool) async throws -> Void,
        followsWallClock: Bool, tick: Duration = MonitorRun.liveTick, clock: any Clock<Duration> = ContinuousClock(),
        wallClock: @escaping @Sendable () -> Double = { WallClock.unixTime() }
    ) async throws -> Bool {
        let shared = Shared(State(replay: self))
        let duration = self.duration
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await read { sighting in shared.state.withLock { $0.take(sighting) } }
            }
            if followsWallClock {
                group.addTask {
                    let started = wallClock()
                    while true {
                        try await clock.sleep(for: tick)
                        let now = wallClock()
                        // Nothing heard yet: the duration still ends a silent stream.
                        if let duration, now - started >= duration, shared.state.withLock({ $0.run == nil }) { return }
                        if !shared.state.withLock({ $0.advance(toWallClock: now) }) { return }
                    }
                }
            }
            // The end of the input, the end of the duration, or an error.
            try await group.next()
            group.cancelAll()
        }
        return shared.state.withLock { $0.run != nil }
    }

    /// The state, for the tasks of one run.
    private final class Shared: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }
    }

    /// The run and its clock, shared by the task reading the input and the one following
    /// the wall clock.
    private struct State: Sendable {
        let replay: MonitorReplay
        private(set) var run: MonitorRun?
        private var timeline = SightingTimeline()
        private var end: Double?

        init(replay: MonitorReplay) {
            self.replay = replay
        }

        /// Monitors one sighting; false once the duration has passed.
        mutating func take(_ sighting: Sighting) -> Bool {
            let previous = timeline.now
            // A receiver beyond those whose clocks are told apart is heard at the clock's time.
            guard timeline.place(sighting) != nil || previous != nil, let time = timeline.now else { return true }
            let current = run ?? MonitorRun(session: replay.session(time), schedule: replay.schedule, output: replay.output, logger: replay.logger)
            if run == nil {
                run = current
                current.startSchedule(at: time)
                end = replay.duration.map { time + $0 }
            }
            if let end, time > end { return false }
            // Never back in time: a late arrival counts at the clock's time.
            var moved = sighting
            moved.time = time
            current.advance(to: time)
            current.observe(moved)
            return true
        }

        /// Moves the clock to where the wall clock's `unixTime` falls on it, once it knows
        /// Unix time; false once the duration has passed.
        mutating func advance(toWallClock unixTime: Double) -> Bool {
            guard let run, let target = timeline.time(atUnixTime: unixTime), target > timeline.now ?? -.infinity else { return true }
            if let end, target > end {
                run.advance(to: end)
                return false
            }
            timeline.advance(to: target)
            run.advance(to: target)
            return true
        }
    }
}
