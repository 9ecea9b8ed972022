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
public struct SightingTimeline: Sendable {
    /// Where the clock stands: the latest time given, `nil` before the first.
    public private(set) var now: Double?
    /// What to add to a Unix time to place it on this clock, fixed by the first receiver on
    /// Unix time.
    private var unixPlacement: Double?
    /// What to add to a time on this clock to tell it as Unix time, when the run said
    /// (`tieToUnixTime`).
    private var unixTie: Double?
    private var elapsedOffsets: [String: Double] = [:]
    private let maximumReceivers: Int
    /// The receiver of the previous sighting, its clock and its offset: a recording of one
    /// receiver (the common case, millions of sightings) then costs a string comparison,
    /// not a hash.
    private var lastReceiver: (name: String, clock: SightingClock, offset: Double)?

    /// Receivers that a replay or an audit tells apart: far more than one chain's.
    public static let standardMaximumReceivers = 1024

    /// Beyond `maximumReceivers` receivers on elapsed clocks, their sightings cannot be
    /// placed (`place` returns `nil`); sightings on Unix time always can.
    public init(maximumReceivers: Int = standardMaximumReceivers) {
        self.maximumReceivers = maximumReceivers
    }

    /// Receivers on elapsed clocks told apart so far.
    public var receivers: Int { elapsedOffsets.count }

    /// A sighting's place on the clock, and what placing it did to the clock.
    public struct Placement: Sendable {
        /// The sighting's time on this clock; before `now` when it came late.
        public var time: Double
        public var advance: Advance
    }

    /// What moving the clock did.
    public enum Advance: Sendable {
        /// The clock's first time.
        case started
        case moved
        /// The time was not later (or not finite): nothing changed.
        case unchanged
    }

    /// Places the sighting on this clock, moving the clock on to it when later. A receiver
    /// seen for the first time joins where the clock stands: `now`, or, when `joining` is
    /// given, the time it reads (a live run reads its monotonic clock then, and only then).
    /// The first sighting of all starts the clock at its own time. `nil` for a receiver on
    /// an elapsed clock beyond `maximumReceivers`: that sighting cannot be placed.
    @inline(__always)
    public mutating func place(_ sighting: Sighting, joining: (() -> Double)? = nil) -> Placement? {
        let before = now
        let time: Double
        if let last = lastReceiver, last.clock == sighting.clock, last.name == sighting.receiver {
            time = sighting.time + last.offset
        } else if let offset = offset(joining: sighting, at: joining) {
            lastReceiver = (sighting.receiver, sighting.clock, offset)
            time = sighting.time + offset
        } else {
            return nil
        }
        if time.isFinite, time > now ?? -.infinity { now = time }
        guard let before else { return Placement(time: time, advance: now == nil ? .unchanged : .started) }
        return Placement(time: time, advance: now! > before ? .moved : .unchanged)
    }

    /// Moves the clock to `time` when later (a tick, the wall clock followed, the end of an
    /// input).
    @discardableResult
    public mutating func advance(to time: Double) -> Advance {
        guard time.isFinite else { return .unchanged }
        guard let current = now else {
            now = time
            return .started
        }
        guard time > current else { return .unchanged }
        now = time
        return .moved
    }

    /// Says what to add to this clock's times to get Unix time: a live run, whose clock is
    /// its own monotonic clock, says so at its start (`WallClock.unixOffset(elapsed:)`), so
    /// that its times can be told as dates. Sightings on Unix time still join at their first
    /// arrival: a broker's delay must not look like a beacon's silence. The first tie holds.
    public mutating func tieToUnixTime(offset: Double) {
        if unixTie == nil { unixTie = offset }
    }

    /// Whether the clock's times can be told as Unix time (`unixTime(at:)`).
    public var knowsUnixTime: Bool { unixTie != nil || unixPlacement != nil }

    /// The Unix time of `time` on this clock: by the run's tie, or else by the first
    /// receiver on Unix time; `nil` while neither is known (a recording of elapsed clocks).
    public func unixTime(at time: Double) -> Double? {
        if let unixTie { return time + unixTie }
        return unixPlacement.map { time - $0 }
    }

    /// Where `unixTime` falls on this clock, once known: what a run following the wall
    /// clock between sightings moves to.
    public func time(atUnixTime unixTime: Double) -> Double? {
        if let unixPlacement { return unixTime + unixPlacement }
        return unixTie.map { unixTime - $0 }
    }

    private mutating func offset(joining sighting: Sighting, at joining: (() -> Double)?) -> Double? {
        switch sighting.clock {
        case .unix:
            if let unixPlacement { return unixPlacement }
            let offset = joinOffset(sighting.time, joining)
            unixPlacement = offset
            return offset
        case .elapsed:
            if let known = elapsedOffsets[sighting.receiver] { return known }
            guard elapsedOffsets.count < maximumReceivers else { return nil }
            let offset = joinOffset(sighting.time, joining)
            elapsedOffsets[sighting.receiver] = offset
            return offset
        }
    }

    /// The offset that puts `time` where the clock stands (or at the time `joining` reads);
    /// before the clock's start, none: the sighting starts it at its own time.
    private func joinOffset(_ time: Double, _ joining: (() -> Double)?) -> Double {
        let moment = joining.map { max($0(), now ?? -.infinity) } ?? now ?? time
        return moment - time
    }
}
