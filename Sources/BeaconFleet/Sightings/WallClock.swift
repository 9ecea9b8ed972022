#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock, for the times that leave this process (sightings stamped with Unix time)
/// and for following such times; every duration measured in-process uses the monotonic clock.
public enum WallClock {
    /// Seconds since 1970-01-01 00:00 UTC.
    public static func unixTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
