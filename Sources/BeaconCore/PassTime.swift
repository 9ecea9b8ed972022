// Typed time, the one home of it: instants on a clock (`PassTime`, `ReceiverTime`) and spans
// (`Duration`). Here in BeaconCore so that the library's reducers (`BeaconRanger`,
// `RegionMonitor`) and the fleet's pass and engines speak of the same instants. A `Sighting`
// still keeps its own time as `Double` seconds: it is decoded millions of times a second and
// written to JSON, and is read into a `ReceiverTime` or placed as a `PassTime` where it is used.

/// An instant on a pass's clock: the time since the clock's origin, in whole nanoseconds (a
/// replay's clock may be Unix time itself, 1.8e9 s from its origin: far within range). Two
/// instants compare exactly; seconds (`seconds`) only where a reducer or a report needs them.
public struct PassTime: Comparable, Hashable, Sendable {
    /// The time since the clock's origin (negative: before it).
    public var sinceOrigin: Duration

    @inlinable
    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    /// The clock's origin.
    public static let origin = PassTime(sinceOrigin: .zero)

    /// The seconds a pass time may be told from: any sum or difference of two sighting times
    /// (`Sighting.acceptedTimes`), with room to spare.
    public static let acceptedSeconds: ClosedRange<Double> = -1e12...1e12

    /// `seconds` since the origin, to the nearest nanosecond; `nil` when NaN, infinite or
    /// beyond `acceptedSeconds`. Never traps.
    @inlinable @inline(__always)
    public init?(checkedSeconds seconds: Double) {
        guard let duration = Duration(checkedSeconds: seconds, within: Self.acceptedSeconds) else { return nil }
        sinceOrigin = duration
    }

    /// Seconds since the origin, for the engines and reports that count in seconds.
    @inlinable @inline(__always)
    public var seconds: Double { sinceOrigin.instantSeconds }

    // Compared and moved on `Duration.attoseconds`, which inlines: `Duration`'s own operators
    // are calls into the runtime, and an engine compares times at every sighting.
    @inlinable
    public static func < (lhs: PassTime, rhs: PassTime) -> Bool { lhs.sinceOrigin.attoseconds < rhs.sinceOrigin.attoseconds }

    @inlinable
    public static func == (lhs: PassTime, rhs: PassTime) -> Bool { lhs.sinceOrigin.attoseconds == rhs.sinceOrigin.attoseconds }

    public func hash(into hasher: inout Hasher) { hasher.combine(sinceOrigin) }

    @inlinable
    public static func + (time: PassTime, duration: Duration) -> PassTime {
        PassTime(sinceOrigin: Duration(attoseconds: time.sinceOrigin.attoseconds + duration.attoseconds))
    }
    @inlinable
    public static func - (time: PassTime, duration: Duration) -> PassTime {
        PassTime(sinceOrigin: Duration(attoseconds: time.sinceOrigin.attoseconds - duration.attoseconds))
    }
    /// The duration from `earlier` to `later` (negative when `later` is earlier).
    @inlinable
    public static func - (later: PassTime, earlier: PassTime) -> Duration {
        Duration(attoseconds: later.sinceOrigin.attoseconds - earlier.sinceOrigin.attoseconds)
    }
}

/// A sighting's time on its own receiver's clock (`Sighting.time` on `Sighting.clock`), as
/// the pass reads it: a place of its own, never the pass's. A pass places it on its clock by
/// the receiver's offset (`SightingTimeline`) and keeps it beside the placed time.
public struct ReceiverTime: Hashable, Sendable {
    /// The time since the receiver's clock's origin (Unix time's epoch, or where its elapsed
    /// clock started).
    public var sinceOrigin: Duration
    public var clock: SightingClock

    @inlinable
    public init(sinceOrigin: Duration, clock: SightingClock) {
        self.sinceOrigin = sinceOrigin
        self.clock = clock
    }

    /// A time read from outside, to the nearest nanosecond; `nil` when NaN, infinite or
    /// beyond `PassTime.acceptedSeconds` (the readers already refuse times outside
    /// `Sighting.acceptedTimes`). Never traps.
    @inlinable @inline(__always)
    public init?(checkedSeconds seconds: Double, clock: SightingClock) {
        guard let duration = Duration(checkedSeconds: seconds, within: PassTime.acceptedSeconds) else { return nil }
        self.init(sinceOrigin: duration, clock: clock)
    }

    /// The sighting's own time; `nil` when it cannot be told (see `init(checkedSeconds:clock:)`).
    @inlinable @inline(__always)
    public init?(of sighting: Sighting) {
        self.init(checkedSeconds: sighting.time, clock: sighting.clock)
    }

    /// Seconds since its clock's origin.
    @inlinable
    public var seconds: Double { sinceOrigin.instantSeconds }
}

extension Duration {
    /// These seconds as a `Double` that a time read from seconds gives back exactly: within
    /// 2^53 ns (104 days) the nanoseconds divided once, which rounds once; beyond, whole
    /// seconds plus the fraction, whose rounding is far below a `Double`'s step there. Read
    /// per sighting: the common case is one integer division and one floating one.
    @inlinable @inline(__always)
    public var instantSeconds: Double {
        if let nanoseconds = Int64(exactly: attoseconds / 1_000_000_000), nanoseconds.magnitude < 1 << 53 {
            return Double(nanoseconds) / 1_000_000_000
        }
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
