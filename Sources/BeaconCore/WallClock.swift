#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock, for the times that leave this process (sightings stamped with Unix time,
/// btsnoop records) and for following such times; every duration measured in-process uses
/// the monotonic clock. The one place the process reads `CLOCK_REALTIME`, and the one place
/// a monotonic clock's seconds are tied to Unix time (`unixOffset(elapsed:)`).
public enum WallClock {
    /// Seconds since 1970-01-01 00:00 UTC.
    public static func unixTime() -> Double {
        let now = read()
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
    }

    /// The time since 1970-01-01 00:00 UTC, to the nanosecond the system gives.
    public static func sinceUnixEpoch() -> Duration {
        let now = read()
        return .seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec))
    }

    /// Whole microseconds since 1970-01-01 00:00 UTC (what btsnoop records count in).
    public static func unixMicroseconds() -> Int64 {
        let now = read()
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// What to add to the seconds of a monotonic clock that reads `elapsed` now to get Unix
    /// time: the wall clock read once, so that times moved by it keep the monotonic clock's
    /// gaps however the wall clock is set afterwards.
    public static func unixOffset(elapsed: Double) -> Double {
        unixTime() - elapsed
    }

    private static func read() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    /// `2026-11-25T05:20:01.234Z` (UTC; `milliseconds: false` leaves the fraction out), or
    /// `nil` for a time outside what a calendar date can say (not finite, or beyond ±10^10 s).
    public static func iso8601(_ unixTime: Double, milliseconds: Bool = true) -> String? {
        guard unixTime.isFinite, abs(unixTime) <= 1e10 else { return nil }
        let totalMilliseconds = Int64((unixTime * 1000).rounded())
        var seconds = time_t(totalMilliseconds >= 0 ? totalMilliseconds / 1000 : (totalMilliseconds - 999) / 1000)
        let fraction = Int(totalMilliseconds - Int64(seconds) * 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return nil }
        func padded(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))"
            + "T\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2))"
        if milliseconds { text += "." + padded(Int32(fraction), 3) }
        return text + "Z"
    }
}
