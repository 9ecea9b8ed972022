/// A moment on an air's clock, in microseconds since the air was created.
///
/// Microseconds are the resolution of the link layer's timing rules (advDelay, scan
/// windows, PDU durations are all whole microseconds), and an integer clock keeps runs
/// bit-for-bit reproducible: no floating-point drift accumulates over simulated hours.
public struct AirTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let microseconds: UInt64

    public init(microseconds: UInt64) {
        self.microseconds = microseconds
    }

    public static let zero = AirTime(microseconds: 0)

    /// The time in seconds, for reports and plots.
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// This time plus `duration`; negative durations count as zero (the clock never runs back).
    public func advanced(by duration: Duration) -> AirTime {
        advanced(byMicroseconds: duration.wholeMicroseconds)
    }

    func advanced(byMicroseconds delta: UInt64) -> AirTime {
        let (sum, overflow) = microseconds.addingReportingOverflow(delta)
        return AirTime(microseconds: overflow ? .max : sum)
    }

    /// The time from `earlier` to this one; zero when `earlier` is later.
    public func duration(since earlier: AirTime) -> Duration {
        guard microseconds > earlier.microseconds else { return .zero }
        return .microseconds(Int64(clamping: microseconds - earlier.microseconds))
    }

    /// `12.345678 s`.
    public var description: String {
        let fraction = String(microseconds % 1_000_000)
        return "\(microseconds / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction) s"
    }

    public static func < (lhs: AirTime, rhs: AirTime) -> Bool {
        lhs.microseconds < rhs.microseconds
    }
}

extension Duration {
    /// The duration in whole microseconds, rounded down; zero for negative durations, the
    /// largest value for durations beyond half a million years.
    var wholeMicroseconds: UInt64 {
        // Swift normalises the components to the same sign.
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (fromSeconds, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return .max }
        let (sum, sumOverflow) = fromSeconds.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000_000))
        return sumOverflow ? .max : sum
    }
}
