import BeaconCore

/// How a pass's clock runs, and so how its sightings are placed on it (`SightingPass`).
public enum PassClocking: Sendable {
    /// A recording read as fast as it decodes: its sightings' own times are the clock, each
    /// receiver joining where the clock stands at its first sighting (`SightingTimeline`).
    /// Nothing ticks: the sightings move the clock.
    case replay(origin: PassOrigin)
    /// Sightings arriving from receivers with clocks of their own (a pipe, a broker): the
    /// clock counts seconds of `clock` from the pass's start and ticks every `tick`; each
    /// receiver is tied to it when its first sighting arrives.
    case live(tick: Duration, clock: any Clock<Duration>)
    /// As `live`, for a pass that answers for each receiver's clock (the watch): the pass's
    /// clock is tied to Unix time at its start (`PassNotice.unixTimeKnown`); each sighting is
    /// placed no later than its arrival (never later than a tick after the last one: those
    /// read after a stall cannot move the clock across it before the stall is known); and a
    /// receiver on Unix time whose clock stands further than `arrivalTolerance` from the
    /// arrivals is told (`PassNotice.receiverClock`) and placed on its arrivals
    /// (`SightingTimeline.place(_:arrival:)`).
    case liveCheckingArrivals(tick: Duration, clock: any Clock<Duration>, arrivalTolerance: Duration)
    /// This machine's own scan: its sightings are stamped on the scan's clock (`elapsed`),
    /// which is the pass's (`elapsed` reads it: the time since the scan started on `clock`);
    /// ticks every `tick` of `clock`, and, with `deadline` (a time of that clock), a last tick
    /// at the deadline itself, where the pass ends.
    case scan(tick: Duration, clock: any Clock<Duration>, elapsed: @Sendable () -> Duration, deadline: Duration?)
    /// A stream read by its sightings' own times (as `replay`), whose clock also follows the
    /// wall clock between them: every `tick` of `clock`, once the timeline knows where Unix
    /// time falls on it, it moves to `wallClock()` (the time since the Unix epoch; `nil`: it
    /// cannot be told, and the tick leaves the clock where it is), so that silence after the
    /// last sighting passes as it does for the receivers. With `silentStreamEnds`, a stream
    /// that delivered nothing ends once the wall clock has run that long.
    case followingWallClock(
        tick: Duration, clock: any Clock<Duration>, wallClock: @Sendable () -> Duration?, silentStreamEnds: Duration?)

    var isReplay: Bool {
        if case .replay = self { return true }
        return false
    }
}

/// Where a replay's clock starts.
public enum PassOrigin: Sendable {
    /// At 0, where the first sighting is placed (a verification pass, whose report counts
    /// seconds from its start).
    case zero
    /// At the first sighting's own time (a monitor or a scan, whose reports carry the
    /// recording's own times).
    case firstSighting
}

/// How a pass ended.
public enum PassEnd: Sendable, Equatable {
    /// The reducer said it was done.
    case reducerDone
    /// The input ended.
    case inputEnded
    /// The pass's deadline came (`PassClocking.scan`), or a silent stream's limit.
    case deadline
    /// The calling task was cancelled: what was read was taken.
    case interrupted
}

/// What a pass ended with, and where its clock stood then (`nil`: it never started).
public struct PassOutcome: Sendable {
    public var end: PassEnd
    public var clock: PassTime?
}
