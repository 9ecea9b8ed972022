#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How far from a distance estimate the true distance lies, as an interval that holds it
/// for a stated share of readings (68 %, one σ's worth). It comes from two places:
///
/// - the model's residuals on real data: on the Herald recordings (docs/ranging.md), with
///   the default exponent and a 1 m calibration, the true distance was between
///   `lowerRatio` and `upperRatio` times the estimate for 68 % of the readings. The
///   interval is lopsided because RSSI ranging at 0.5–3 m pulls estimates towards the
///   calibration distance: far beacons are underestimated more often than near ones are
///   overestimated. These are what the physics gives — bodies, orientation and multipath
///   move RSSI by as many dB as metres do — not what a longer average would remove.
/// - the filter's spread: the standard error of the filtered level (few samples, or
///   samples spread wide), turned into log-distance through the exponent and added in
///   quadrature on both sides. With a full window it is a small part of the whole.
///
/// Both combine in log-distance, where the errors of RSSI ranging are roughly additive.
public struct DistanceUncertainty: Hashable, Sendable {
    /// True distance ÷ estimate at the interval's lower end (below 1).
    public var lowerRatio: Double
    /// True distance ÷ estimate at the interval's upper end (above 1).
    public var upperRatio: Double
    /// The share of readings the interval is meant to hold, for documentation and tests.
    public var coverage: Double

    /// The 16th and 84th percentiles of true ÷ estimated distance with the default ranging
    /// on the Herald recordings, both rigs pooled: measured 0.73 and 2.05 (`ranging-benchmark`
    /// prints them), kept as 0.72 and 2.
    public init(lowerRatio: Double = 0.72, upperRatio: Double = 2.0, coverage: Double = 0.68) {
        self.lowerRatio = lowerRatio.isFinite && lowerRatio > 0 && lowerRatio <= 1 ? lowerRatio : 1
        self.upperRatio = upperRatio.isFinite && upperRatio >= 1 ? upperRatio : 1
        self.coverage = coverage
    }

    /// The interval around `estimate` (metres), widened by a filtered level whose standard
    /// error is `levelStandardError` dB under a law of exponent `exponent`, and kept inside
    /// `bounds` (the distances ranging can give). `nil` for a non-finite or non-positive
    /// estimate.
    public func interval(
        around estimate: Double, levelStandardError: Double, exponent: Double, bounds: ClosedRange<Double>
    ) -> ClosedRange<Double>? {
        guard estimate.isFinite, estimate > 0 else { return nil }
        // dB of level → decades of distance: d = 10^(ΔdB / (10·n)).
        let filterDecades = exponent.isFinite && exponent > 0 && levelStandardError.isFinite
            ? max(levelStandardError, 0) / (10 * exponent) : 0
        let lowerDecades = (log10(lowerRatio) * log10(lowerRatio) + filterDecades * filterDecades).squareRoot()
        let upperDecades = (log10(upperRatio) * log10(upperRatio) + filterDecades * filterDecades).squareRoot()
        let low = min(max(estimate / pow(10, lowerDecades), bounds.lowerBound), bounds.upperBound)
        let high = min(max(estimate * pow(10, upperDecades), bounds.lowerBound), bounds.upperBound)
        return min(low, estimate)...max(high, estimate)
    }
}
