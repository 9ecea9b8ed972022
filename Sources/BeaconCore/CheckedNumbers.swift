/// The one rule for numbers that come from outside (a file, the air, a flag, a
/// controller): they are converted with checks, never with a trapping initialiser.
///
/// `Int(someDouble)` traps on NaN, on infinity and on anything beyond `Int`'s range, and a
/// trap is a crash (SIGILL) that a hostile sighting line or a typo in a flag can provoke.
/// These conversions return `nil` or saturate instead; the callers decide which, and say
/// which in their names.
extension BinaryInteger {
    /// `value` rounded by `rule`, or `nil` when it is NaN, infinite or out of this type's range.
    @inlinable
    public init?(checked value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        let rounded = value.rounded(rule)
        // `init(exactly:)` answers nil for NaN, infinities and out-of-range values, and
        // `rounded` leaves no fraction behind, so it never fails on a representable integer.
        guard let exact = Self(exactly: rounded) else { return nil }
        self = exact
    }
}

extension FixedWidthInteger {
    /// `value` rounded by `rule` and clamped to this type's range; NaN becomes `nanValue`.
    /// For display and for quantities where "as large as can be" is the honest answer.
    @inlinable
    public init(
        saturating value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero,
        nanValue: Self = 0
    ) {
        if value.isNaN {
            self = nanValue
        } else if let exact = Self(checked: value, rounding: rule) {
            self = exact
        } else {
            self = value < 0 ? .min : .max
        }
    }
}

extension Duration {
    /// The longest duration any command accepts from outside: about 31.7 years. Far more
    /// than any audit, advertising run or recording needs, and small enough that
    /// nanoseconds, milliseconds and deadlines computed from it never overflow.
    public static let longestAccepted: Duration = .seconds(1_000_000_000)

    /// `seconds` as a duration, or `nil` when it is NaN, negative, or longer than
    /// `longestAccepted`. The conversion never traps.
    public init?(checkedSeconds seconds: Double) {
        guard seconds.isFinite, seconds >= 0, seconds <= Duration.longestAccepted.secondsValue else { return nil }
        // Whole nanoseconds: 1e9 s is 1e18 ns, within Int64.
        guard let nanoseconds = Int64(checked: seconds * 1_000_000_000) else { return nil }
        self = .nanoseconds(nanoseconds)
    }

    /// `seconds` (either sign) as a duration in whole nanoseconds, or `nil` when it is NaN,
    /// infinite, outside `range` or beyond ±9e15 s (where a `Double` still counts whole
    /// seconds). The conversion never traps. For instants on a clock, whose origin may be far
    /// behind (Unix time) or ahead of them; read per sighting, so plain integer steps only.
    @inlinable @inline(__always)
    public init?(checkedSeconds seconds: Double, within range: ClosedRange<Double>) {
        // NaN is in no range; within ±9e15 the whole seconds fit an Int64 and are exact.
        guard range.contains(seconds), seconds.magnitude < 9e15 else { return nil }
        var whole = Int64(seconds)
        // Exact: the whole part taken from a value of the same binade or above.
        var fraction = seconds - Double(whole)
        if fraction < 0 {
            whole -= 1
            fraction += 1
        }
        // The nearest nanosecond, which may carry into the next second.
        let nanoseconds = Int64(fraction * 1_000_000_000 + 0.5)
        self.init(attoseconds: (Int128(whole) &* 1_000_000_000 &+ Int128(nanoseconds)) &* 1_000_000_000)
    }

    /// The duration in seconds, as a `Double` (attosecond precision is lost, range is not).
    public var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
