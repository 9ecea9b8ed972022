import BeaconCore

/// One clock for the sightings of many receivers: the clock a verification pass, a
/// continuous audit, a monitor or a scan runs on, whether it replays a recording or listens
/// live. Every use case places its sightings through this one type, and moves its clock
/// with `advance(to:)` (a live tick, the wall clock followed, a replay's own sightings).
///
/// A sighting's clock is what it says it is (`Sighting.clock`), never guessed from its
/// time. Receivers stamping Unix time share one base: the first of them fixes where Unix
/// time stands on this clock, and every later one keeps its own Unix time against it, so
/// that boxes publishing to one broker stay in step. A receiver on its own elapsed clock (a
/// scan's, a capture's) has a base of its own, fixed where this clock stands at its first
/// sighting, so that receivers that started at different moments never make each other's
/// beacons look silent or early. A receiver keeps the base its first sighting gave it: a
/// jump in its own clock stays a jump, and gaps between its sightings stay exactly as it
/// measured them.
///
/// The clock starts at the first time it is given (`now` is `nil` before), and never moves
/// back: a sighting placed before `now` (a source that reordered, a receiver whose clock
/// lags) keeps its placed time, which the caller may use for gaps, but leaves `now` alone.
///
/// Its times are `PassTime`s and its offsets `Duration`s, in whole nanoseconds: times and
/// gaps compare exactly. A sighting's own time is read at the boundary (`ReceiverTime`); one
/// that cannot be (NaN, infinite, beyond `PassTime.acceptedSeconds`: the readers refuse such
/// times where they enter) cannot be placed, and its receiver does not join.
public struct SightingTimeline: Sendable {
    /// Where the clock stands: the latest time given, `nil` before the first.
    public private(set) var now: PassTime?
    /// What to add to a Unix time to place it on this clock, fixed by the first receiver on
    /// Unix time.
    private var unixPlacement: Duration?
    /// What to add to a time on this clock to tell it as Unix time, when the run said
    /// (`tieToUnixTime`).
    private var unixTie: Duration?
    private var elapsedOffsets: [String: Duration] = [:]
    private let maximumReceivers: Int
    /// Receivers on Unix time whose clock disagrees with the run's (`arrivalTolerance`), and
    /// the offset each was placed with since: its arrival when it was found out.
    private var rebasedUnixReceivers: [String: Duration] = [:]
    /// Receivers on Unix time whose sightings have all stood behind their arrival by more than
    /// the tolerance since this arrival: behind for good once that lasts a tolerance.
    private var behindSince: [String: PassTime] = [:]
    /// How far a sighting's placed time may stand from its arrival before its receiver's clock
    /// is taken as wrong (a live run that says when each sighting arrived: `place(_:arrival:)`);
    /// `nil`: no such check (a replay, whose only clock is its sightings').
    private let arrivalTolerance: Duration?
    /// Receivers whose clock was found to disagree with the run's, or to agree again, not yet
    /// taken (`takeClockNotices`).
    public private(set) var clockNotices: [ReceiverClockNotice] = []
    /// The receiver of the previous sighting, its clock and its offset: a recording of one
    /// receiver (the common case, millions of sightings) then costs a string comparison,
    /// not a hash.
    private var lastReceiver: (name: String, clock: SightingClock, offset: Duration)?

    /// Receivers on elapsed clocks that a replay or an audit tells apart: far more than a
    /// chain's stores (a receiver costs one dictionary entry, its name and an offset, about
    /// 100 bytes: 6.5 MB at the bound; docs/operations.md, "Bounds").
    public static let standardMaximumReceivers = 65_536

    /// Beyond `maximumReceivers` receivers on elapsed clocks, their sightings cannot be
    /// placed (`place` returns `nil`); sightings on Unix time always can. With
    /// `arrivalTolerance` (a live watch: its silence), a receiver on Unix time whose
    /// sightings would be placed further than that from their arrival is told
    /// (`clockNotices`) and placed on arrival instead (`place(_:arrival:)`).
    public init(maximumReceivers: Int = standardMaximumReceivers, arrivalTolerance: Duration? = nil) {
        self.maximumReceivers = maximumReceivers
        self.arrivalTolerance = arrivalTolerance
    }

    /// Receivers on elapsed clocks told apart so far.
    public var receivers: Int { elapsedOffsets.count }

    /// A sighting's place on the clock, and what placing it did to the clock.
    public struct Placement: Sendable {
        /// The sighting's time on this clock; before `now` when it came late.
        public var time: PassTime
        public var advance: Advance
    }

    /// What moving the clock did.
    public enum Advance: Sendable {
        /// The clock's first time.
        case started
        case moved
        /// The time was not later: nothing changed.
        case unchanged

        /// Moves `clock` (`nil`: not started) to `time` when later, and says what that did: how
        /// every clock of a pass moves (this timeline's, a reducer's own, `ContinuousAudit`'s),
        /// never back.
        @inline(__always)
        public static func moving(_ clock: inout PassTime?, to time: PassTime) -> Advance {
            guard let current = clock else {
                clock = time
                return .started
            }
            guard time > current else { return .unchanged }
            clock = time
            return .moved
        }
    }

    /// Places the sighting on this clock, moving the clock on to it when later. A receiver
    /// seen for the first time joins where the clock stands: `now`, or, when `joining` is
    /// given, the time it reads (a live run reads its monotonic clock then, and only then).
    /// The first sighting of all starts the clock at its own time. `nil` for a receiver on
    /// an elapsed clock beyond `maximumReceivers`: that sighting cannot be placed.
    @inline(__always)
    public mutating func place(_ sighting: Sighting, joining: (() -> PassTime)? = nil) -> Placement? {
        guard let time = ownTime(of: sighting, joining: joining) else { return nil }
        return moveClock(to: time)
    }

    /// Places a sighting that arrived at `arrival` on this clock (a live run reads its clock
    /// as each sighting arrives): as `place(_:joining:)`, joining a new receiver there, and
    /// never later than `arrival`: no receiver's clock can move this one past the run's own.
    /// With `arrivalTolerance`, a receiver on Unix time whose sighting would stand further
    /// from its arrival than that has a clock that stepped, or never was set (a box at 1970
    /// before NTP): it is told (`clockNotices`) and placed on its arrival from then, its own
    /// gaps kept, until its clock agrees with the others' again.
    public mutating func place(_ sighting: Sighting, arrival: PassTime) -> Placement? {
        let time: PassTime
        if sighting.clock == .unix, let tolerance = arrivalTolerance {
            guard let own = ReceiverTime(of: sighting) else { return nil }
            time = checkedUnixTime(of: own, receiver: sighting.receiver, arrival: arrival, tolerance: tolerance)
        } else {
            guard let own = ownTime(of: sighting, joining: { arrival }) else { return nil }
            time = own
        }
        // The run's clock starts at the arrival of its first sighting, whatever that one's
        // own clock says (a box at 1970 heard first must not start it decades back).
        return moveClock(to: now == nil ? arrival : min(time, arrival))
    }

    /// Takes the receivers' clock notices so far, in order.
    public mutating func takeClockNotices() -> [ReceiverClockNotice] {
        defer { clockNotices = [] }
        return clockNotices
    }

    /// The sighting's time on this clock by its receiver's offset, joining a new receiver;
    /// `nil` beyond `maximumReceivers` receivers on elapsed clocks.
    @inline(__always)
    private mutating func ownTime(of sighting: Sighting, joining: (() -> PassTime)?) -> PassTime? {
        guard let own = ReceiverTime(of: sighting) else { return nil }
        if let last = lastReceiver, last.clock == sighting.clock, last.name == sighting.receiver {
            return PassTime(sinceOrigin: own.sinceOrigin + last.offset)
        }
        guard let offset = offset(joining: own, receiver: sighting.receiver, at: joining) else { return nil }
        lastReceiver = (sighting.receiver, sighting.clock, offset)
        return PassTime(sinceOrigin: own.sinceOrigin + offset)
    }

    /// Moves the clock to a placed time when later, and says what that did.
    @inline(__always)
    private mutating func moveClock(to time: PassTime) -> Placement {
        Placement(time: time, advance: .moving(&now, to: time))
    }

    /// A Unix-time sighting's time on this clock, its receiver's clock checked against the
    /// arrival: placed with the shared offset while it agrees within `tolerance`, on its own
    /// offset (fixed at the arrival that showed the disagreement) while it does not.
    ///
    /// A sighting ahead of its arrival by more than `tolerance` shows a clock ahead: no delay
    /// can do that. One behind may only have waited (a broker's queue, a backlog read after
    /// the run stalled), so a receiver is taken as behind only when every one of its
    /// sightings for `tolerance` of arrivals was: a backlog drains faster than that, a wrong
    /// clock does not.
    private mutating func checkedUnixTime(of own: ReceiverTime, receiver: String, arrival: PassTime, tolerance: Duration) -> PassTime {
        let shared = sharedUnixPlacement(joiningAt: arrival.sinceOrigin - own.sinceOrigin, tolerance: tolerance)
        let agreeing = PassTime(sinceOrigin: own.sinceOrigin + shared)
        let rebased = rebasedUnixReceivers.isEmpty ? nil : rebasedUnixReceivers[receiver]
        if rebased != nil, magnitude(agreeing - arrival) <= tolerance {
            // Its clock agrees with the others' again (NTP caught up).
            rebasedUnixReceivers[receiver] = nil
            behindSince[receiver] = nil
            clockNotices.append(ReceiverClockNotice(receiver: receiver, skew: agreeing - arrival, agrees: true, at: arrival))
            return agreeing
        }
        let placed = PassTime(sinceOrigin: own.sinceOrigin + (rebased ?? shared))
        if placed - arrival > tolerance {
            return rebase(receiver, time: own, skew: agreeing - arrival, at: arrival)
        }
        guard arrival - placed > tolerance else {
            if !behindSince.isEmpty { behindSince[receiver] = nil }
            return placed
        }
        guard let since = behindSince[receiver] else {
            // Bounded like the receivers on elapsed clocks: beyond, a receiver behind is taken
            // as delayed (placed by its own time, which only ages what it heard, never later
            // than its arrival).
            if behindSince.count < maximumReceivers { behindSince[receiver] = arrival }
            return placed
        }
        guard arrival - since >= tolerance else { return placed }
        return rebase(receiver, time: own, skew: agreeing - arrival, at: arrival)
    }

    /// Places `receiver`'s sightings on their arrival from now (its clock is `skew` off the
    /// others'), and says so the first time: a clock that keeps stepping (or stands
    /// still) is placed again at each step, but said once until it agrees again. Returns the
    /// sighting's time so placed.
    private mutating func rebase(_ receiver: String, time: ReceiverTime, skew: Duration, at arrival: PassTime) -> PassTime {
        // Bounded: beyond `maximumReceivers` receivers with clocks of their own, one more is
        // placed on its arrival this once and not remembered (no box can grow this table).
        guard rebasedUnixReceivers[receiver] != nil || rebasedUnixReceivers.count < maximumReceivers else {
            behindSince[receiver] = nil
            return arrival
        }
        let known = rebasedUnixReceivers.updateValue(arrival.sinceOrigin - time.sinceOrigin, forKey: receiver) != nil
        behindSince[receiver] = nil
        if !known {
            clockNotices.append(ReceiverClockNotice(receiver: receiver, skew: skew, agrees: false, at: arrival))
        }
        return arrival
    }

    /// Where Unix time stands on this clock for receivers whose clock agrees with the run's:
    /// fixed by the first sighting on Unix time whose clock agrees with the run's tie to Unix
    /// time (`tieToUnixTime`) within `tolerance`, joining at its arrival so that a broker's
    /// delay is not taken for silence; while none has, the tie itself. Without a tie, the
    /// first sighting's, as `place(_:joining:)` does.
    private mutating func sharedUnixPlacement(joiningAt offset: Duration, tolerance: Duration) -> Duration {
        if let unixPlacement { return unixPlacement }
        if let unixTie, magnitude(offset + unixTie) > tolerance { return .zero - unixTie }
        unixPlacement = offset
        return offset
    }

    /// Moves the clock to `time` when later (a tick, the wall clock followed, the end of an
    /// input).
    @discardableResult
    public mutating func advance(to time: PassTime) -> Advance {
        .moving(&now, to: time)
    }

    /// Says what to add to this clock's times to get Unix time: a live run, whose clock is
    /// its own monotonic clock, says so at its start (`WallClock.unixOffset(elapsed:)`), so
    /// that its times can be told as dates. Sightings on Unix time still join at their first
    /// arrival: a broker's delay must not look like a beacon's silence. The first tie holds.
    public mutating func tieToUnixTime(offset: Duration) {
        if unixTie == nil { unixTie = offset }
    }

    /// Whether the clock's times can be told as Unix time (`unixTime(at:)`).
    public var knowsUnixTime: Bool { unixTie != nil || unixPlacement != nil }

    /// The Unix time of `time` on this clock: by the run's tie, or else by the first
    /// receiver on Unix time; `nil` while neither is known (a recording of elapsed clocks).
    public func unixTime(at time: PassTime) -> Duration? {
        if let unixTie { return time.sinceOrigin + unixTie }
        return unixPlacement.map { time.sinceOrigin - $0 }
    }

    /// Where `unixTime` falls on this clock, once known: what a run following the wall
    /// clock between sightings moves to.
    public func time(atUnixTime unixTime: Duration) -> PassTime? {
        if let unixPlacement { return PassTime(sinceOrigin: unixTime + unixPlacement) }
        return unixTie.map { PassTime(sinceOrigin: unixTime - $0) }
    }

    /// Where a time on a receiver's clock falls on this clock, when that receiver's place is
    /// already known (its sightings placed it; Unix time once any receiver on it was): what
    /// the audit places a beacon's telemetry with, which comes from the same receivers as its
    /// sightings. `nil` for a receiver not placed yet. Places nothing and never moves the clock.
    public func knownTime(of time: ReceiverTime, receiver: String) -> PassTime? {
        switch time.clock {
        case .unix:
            // A receiver whose clock was found wrong is placed on arrival, which only its
            // sightings know: the caller places the reading where the clock stands.
            guard let unixPlacement, rebasedUnixReceivers[receiver] == nil else { return nil }
            return PassTime(sinceOrigin: time.sinceOrigin + unixPlacement)
        case .elapsed:
            return elapsedOffsets[receiver].map { PassTime(sinceOrigin: time.sinceOrigin + $0) }
        }
    }

    private mutating func offset(joining time: ReceiverTime, receiver: String, at joining: (() -> PassTime)?) -> Duration? {
        switch time.clock {
        case .unix:
            if let unixPlacement { return unixPlacement }
            let offset = joinOffset(time, joining)
            unixPlacement = offset
            return offset
        case .elapsed:
            if let known = elapsedOffsets[receiver] { return known }
            guard elapsedOffsets.count < maximumReceivers else { return nil }
            let offset = joinOffset(time, joining)
            elapsedOffsets[receiver] = offset
            return offset
        }
    }

    /// The offset that puts `time` where the clock stands (or at the time `joining` reads);
    /// before the clock's start, none: the sighting starts it at its own time.
    private func joinOffset(_ time: ReceiverTime, _ joining: (() -> PassTime)?) -> Duration {
        let read = joining.map { $0() }
        let moment: Duration
        switch (read, now) {
        case (let read?, let now?): moment = max(read, now).sinceOrigin
        case (let read?, nil): moment = read.sinceOrigin
        case (nil, let now?): moment = now.sinceOrigin
        case (nil, nil): moment = time.sinceOrigin
        }
        return moment - time.sinceOrigin
    }
}

/// How long a duration is, whichever its sign.
private func magnitude(_ duration: Duration) -> Duration {
    duration < .zero ? .zero - duration : duration
}

/// A receiver on Unix time whose clock was found to disagree with the run's by more than the
/// tolerance (it stepped, or was never set), or to agree again: the watch's `receiver-clock`
/// event.
public struct ReceiverClockNotice: Hashable, Sendable {
    public var receiver: String
    /// How far its clock stands ahead of the run's (behind: negative), as the sighting that
    /// showed it says.
    public var skew: Duration
    /// `true`: it agrees again, and its sightings are placed by their own times once more.
    public var agrees: Bool
    /// The arrival that showed it, on the run's clock.
    public var at: PassTime
}
