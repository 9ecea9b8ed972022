import BeaconCore
import Logging

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
    public let session: @Sendable (PassTime) -> MonitorSession
    public let schedule: MonitorSchedule
    /// Seconds of the clock from the first sighting after which monitoring ends.
    public let duration: Duration?
    public let output: any MonitorReportSink
    public let logger: Logger

    public init(
        session: @escaping @Sendable (PassTime) -> MonitorSession, schedule: MonitorSchedule, duration: Duration?,
        output: any MonitorReportSink, logger: Logger
    ) {
        self.session = session
        self.schedule = schedule
        self.duration = duration
        self.output = output
        self.logger = logger
    }

    /// Monitors `recording` (or a broker's stream) until it ends, `duration` has passed or
    /// the task is cancelled, its warnings naming it `name`. Following the wall clock, the
    /// clock is moved every `tick` of `clock` to `wallClock`'s time (since the Unix epoch); both are
    /// injected so that tests move them by hand. Returns whether any sighting was monitored.
    public func run(
        _ recording: SightingRecording, named name: String, followsWallClock: Bool, tick: Duration = MonitorRun.liveTick,
        clock: any Clock<Duration> = ContinuousClock(), wallClock: @escaping @Sendable () -> Duration? = { WallClock.sinceUnixEpoch() }
    ) async throws -> Bool {
        var monitoring = Monitoring(replay: self)
        _ = try await recording.pass(
            &monitoring, clocking: clocking(followsWallClock: followsWallClock, tick: tick, clock: clock, wallClock: wallClock),
            named: name, logger: logger)
        return monitoring.run != nil
    }

    /// `run(_:named:followsWallClock:tick:clock:wallClock:)` over any sequence of sightings.
    public func run<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, followsWallClock: Bool, tick: Duration = MonitorRun.liveTick,
        clock: any Clock<Duration> = ContinuousClock(), wallClock: @escaping @Sendable () -> Duration? = { WallClock.sinceUnixEpoch() }
    ) async throws -> Bool {
        var monitoring = Monitoring(replay: self)
        _ = try await SightingPass(
            sightings, clocking: clocking(followsWallClock: followsWallClock, tick: tick, clock: clock, wallClock: wallClock)
        ).run(&monitoring)
        return monitoring.run != nil
    }

    private func clocking(
        followsWallClock: Bool, tick: Duration, clock: any Clock<Duration>, wallClock: @escaping @Sendable () -> Duration?
    ) -> PassClocking {
        // Nothing heard yet: the duration still ends a silent stream.
        followsWallClock
            ? .followingWallClock(tick: tick, clock: clock, wallClock: wallClock, silentStreamEnds: duration)
            : .replay(origin: .firstSighting)
    }

    /// The monitoring run as a reducer of the pass: the first placed sighting starts it, each
    /// sighting is observed where the clock stands (never back in time), keeping its
    /// receiver's own time, a tick (the wall clock followed) moves it on, and the duration
    /// from the first sighting ends it. The run takes the pass's times as they are.
    private struct Monitoring: PassReducer {
        let replay: MonitorReplay
        private(set) var run: MonitorRun?
        private var end: PassTime?

        init(replay: MonitorReplay) {
            self.replay = replay
        }

        mutating func take(_ input: PassInput) -> PassStep {
            switch input {
            case .sighting(let placed):
                // A receiver beyond those whose clocks are told apart is heard at the clock's
                // time, once the clock has started.
                guard placed.time != nil || run != nil else { return .more }
                let time = placed.clock
                let current = run ?? MonitorRun(
                    session: replay.session(time), schedule: replay.schedule, output: replay.output, logger: replay.logger)
                if run == nil {
                    run = current
                    current.startSchedule(at: time)
                    end = replay.duration.map { time + $0 }
                }
                if let end, time > end { return .done }
                // Never back in time: a late arrival counts at the clock's time.
                current.advance(to: time)
                current.observe(placed.sighting, at: time)
            case .tick(let time):
                guard let run else { return .more }
                if let end, time > end {
                    run.advance(to: end)
                    return .done
                }
                run.advance(to: time)
            case .telemetry, .health, .receiverStatus, .notice, .ended:
                break
            }
            return .more
        }
    }
}
