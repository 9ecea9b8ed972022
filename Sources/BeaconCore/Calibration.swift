/// The measured-power estimate from RSSI samples taken 1 m from a beacon, the way Apple's
/// AirLocate calibrated: sort the samples, drop the top and bottom 10 %, average the rest.
public struct CalibrationEstimate: Hashable, Sendable {
    /// The trimmed mean, dBm: the value to write as `measured_power` (rounded).
    public var mean: Double
    /// Samples collected, and samples kept after trimming.
    public var sampleCount: Int
    public var keptCount: Int
    /// Standard deviation of the kept samples, dB.
    public var standardDeviation: Double
    /// Half-width of the 95 % confidence interval of the mean, dB.
    public var confidenceHalfWidth: Double
    /// Reasons not to trust the estimate; empty when it is sound.
    public var warnings: [String]

    /// The measured-power byte to advertise: the mean rounded to the nearest dBm, clamped
    /// to the valid −127…−1.
    public var measuredPower: Int8 {
        Int8(max(-127, min(-1, mean.rounded())))
    }
}

public enum Calibration {
    /// Fewer samples than this make the estimate unreliable (AirLocate took 20 s at 1 Hz).
    public static let minimumSamples = 10
    /// A spread above this (dB) means the beacon, the scanner or the room moved, or a
    /// reflection dominates: measure again somewhere clearer.
    public static let maximumStandardDeviation = 6.0

    /// The estimate from RSSI samples (dBm), or `nil` when there are none to use.
    /// `trimFraction` of the samples is dropped at each end (default 10 %).
    public static func estimate(samples: [Double], trimFraction: Double = 0.1) -> CalibrationEstimate? {
        let usable = samples.filter { $0.isFinite && $0 < 0 }
        guard !usable.isEmpty else { return nil }
        let sorted = usable.sorted()
        let trim = Int((Double(sorted.count) * min(max(trimFraction, 0), 0.49)).rounded(.down))
        let kept = Array(sorted[trim..<(sorted.count - trim)])
        let mean = kept.reduce(0, +) / Double(kept.count)
        let variance = kept.count > 1
            ? kept.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(kept.count - 1)
            : 0
        let deviation = variance.squareRoot()
        // Normal approximation; with fewer than minimumSamples the warning below applies anyway.
        let halfWidth = kept.count > 1 ? 1.96 * deviation / Double(kept.count).squareRoot() : .infinity
        var warnings: [String] = []
        if usable.count < minimumSamples {
            warnings.append("only \(usable.count) samples (want at least \(minimumSamples)); calibrate for longer")
        }
        if deviation > maximumStandardDeviation {
            warnings.append("the RSSI spread is \(formatted(deviation)) dB (more than \(formatted(maximumStandardDeviation)) dB): keep the beacon and the scanner still, 1 m apart, with a clear line of sight, and try again")
        }
        return CalibrationEstimate(
            mean: mean, sampleCount: usable.count, keptCount: kept.count, standardDeviation: deviation,
            confidenceHalfWidth: halfWidth, warnings: warnings)
    }

    private static func formatted(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
