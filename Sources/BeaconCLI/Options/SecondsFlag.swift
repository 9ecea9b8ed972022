import ArgumentParser
import BeaconCore

/// The one check for flags that take a number of seconds (`--duration`, `--timeout`,
/// `--state-every`, …): positive, finite unless infinity means "no limit", and no longer
/// than `Duration.longestAccepted`, so that turning it into a `Duration` or a deadline can
/// never trap or overflow.
enum SecondsFlag {
    /// About 31.7 years, as a number of seconds.
    static let longest = Duration.longestAccepted.secondsValue

    /// Throws a usage error naming `flag` unless `value` is absent or acceptable.
    static func check(_ value: Double?, _ flag: String, allowingInfinity: Bool = false, hint: String = "") throws {
        guard let value else { return }
        if allowingInfinity && value == .infinity { return }
        guard value.isFinite, value > 0, value <= longest else {
            let range = "a positive number of seconds up to \(Int64(longest)) (about 31 years)"
            throw ValidationError("\(flag) must be \(range); got \(NumberText.plain(value)).\(hint.isEmpty ? "" : " " + hint)")
        }
    }

    /// `check`, and no shorter than `shortest` (a report's period: shorter would only flood
    /// the output).
    static func checkPeriod(_ value: Double?, _ flag: String, atLeast shortest: Duration) throws {
        try check(value, flag)
        if let value, value < shortest.instantSeconds {
            throw ValidationError("\(flag) must be at least \(shortest.instantSeconds) s; got \(value).")
        }
    }

    /// A value that `check` accepted, as a duration (infinity, where allowed, is `nil`).
    static func duration(_ value: Double) -> Duration? {
        Duration(checkedSeconds: value)
    }
}
