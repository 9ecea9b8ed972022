#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The log-distance law fitted to RSSI samples taken at known distances: the walk a user
/// does through a room with one adapter, so that ranging there uses that room's exponent
/// and that receiver's level rather than textbook values.
///
/// Least squares on `RSSI = P₁ − 10·n·log₁₀(d)`, linear in `P₁` (the RSSI at 1 m) and `n`
/// with `x = −10·log₁₀(d)`. Residuals are reported per distance so that a user sees whether
/// the law holds in that room at all (a large residual at one distance is a reflection or a
/// body, not noise that more samples would average away).
public struct PathLossFit: Hashable, Sendable {
    /// The fitted RSSI at 1 m, dBm.
    public var oneMetreRSSI: Double
    public var model: PathLossModel
    /// Root-mean-square of the residuals over all samples, dB.
    public var rmsResidual: Double
    /// Per distance (ascending): the mean measured RSSI, what the fit predicts, and how many
    /// samples were taken there.
    public var residuals: [Residual]

    public struct Residual: Hashable, Sendable {
        public var distance: Double
        public var meanRSSI: Double
        public var fittedRSSI: Double
        public var sampleCount: Int

        /// Measured minus fitted, dB.
        public var error: Double { meanRSSI - fittedRSSI }
    }

    /// Why samples cannot be fitted. `description` says what to measure instead.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        case tooFewDistances(Int)
        case invalidSample(distance: Double, rssi: Double)
        case implausibleExponent(Double)

        public var description: String {
            switch self {
            case .tooFewDistances(let count):
                "samples at \(count) distinct distance\(count == 1 ? "" : "s"); measure at least two, ideally 4–6 between 0.5 and 5 m"
            case .invalidSample(let distance, let rssi):
                "a sample at \(distance) m with RSSI \(rssi) dBm cannot be used: distances must be 0.1–100 m and RSSI a negative number of dBm"
            case .implausibleExponent(let exponent):
                "the fitted path-loss exponent is \(exponent); real rooms give about 1.5–5: the distances or the RSSI readings are probably mixed up"
            }
        }
    }

    /// The exponents a room can plausibly have; outside, the samples are wrong, not the room.
    public static let plausibleExponents: ClosedRange<Double> = 1...6

    /// Fits `samples` of (distance in metres, RSSI in dBm). Needs samples at two or more
    /// distinct distances.
    public init(samples: [(distance: Double, rssi: Double)]) throws(Failure) {
        for sample in samples {
            guard sample.distance.isFinite, sample.rssi.isFinite, (0.1...100).contains(sample.distance), sample.rssi < 0 else {
                throw .invalidSample(distance: sample.distance, rssi: sample.rssi)
            }
        }
        var byDistance: [Double: (sum: Double, count: Int)] = [:]
        for sample in samples {
            byDistance[sample.distance, default: (0, 0)].sum += sample.rssi
            byDistance[sample.distance, default: (0, 0)].count += 1
        }
        guard byDistance.count >= 2 else { throw .tooFewDistances(byDistance.count) }

        // Ordinary least squares of rssi on x = −10·log₁₀(d): slope n, intercept P₁.
        let count = Double(samples.count)
        let xs = samples.map { -10 * log10($0.distance) }
        let meanX = xs.reduce(0, +) / count
        let meanY = samples.reduce(0) { $0 + $1.rssi } / count
        var covariance = 0.0
        var variance = 0.0
        for (x, sample) in zip(xs, samples) {
            covariance += (x - meanX) * (sample.rssi - meanY)
            variance += (x - meanX) * (x - meanX)
        }
        let exponent = covariance / variance
        guard exponent.isFinite, Self.plausibleExponents.contains(exponent) else { throw .implausibleExponent(exponent) }
        let intercept = meanY - exponent * meanX

        let fitted = PathLossModel(pathLossExponent: exponent)
        oneMetreRSSI = intercept
        model = fitted
        let squares = zip(xs, samples).reduce(0.0) { sum, pair in
            let error = pair.1.rssi - (intercept + exponent * pair.0)
            return sum + error * error
        }
        rmsResidual = (squares / count).squareRoot()
        residuals = byDistance.keys.sorted().map { distance in
            let entry = byDistance[distance] ?? (0, 1)
            return Residual(
                distance: distance, meanRSSI: entry.sum / Double(entry.count),
                fittedRSSI: fitted.expectedRSSI(atDistance: distance, measuredPower: intercept), sampleCount: entry.count)
        }
    }
}
