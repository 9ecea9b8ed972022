#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The log-distance law fitted to RSSI samples taken at known distances: the walk a user
/// does through a room with one receiver, so that ranging there uses that room's exponent
/// and that receiver's level rather than textbook values.
///
/// The samples at each distance are first reduced to one robust level (the mean of their
/// middle fifth, as the ranging filter does), so a distance measured for longer does not
/// weigh more and a few faded packets do not move it. Then one straight line through the
/// levels, `level = P₁ − 10·n·log₁₀(d)`, by least squares — minimising one of two errors:
///
/// - `.distance` (the default, what ranging needs): the error of the distance the line
///   gives back for each level, in log-distance. Where a spot's level is off the law (a
///   reflection, a shelf, a body: real rooms at 0.5–3 m are full of them) this fit leans
///   towards the middle distances instead of swinging the estimate wide; on the public
///   recordings in docs/ranging.md it is what makes a fitted profile range better.
/// - `.rssi`: the error in dB, the physicist's fit of how the signal falls. Its exponent
///   describes the room, but inverted for ranging it overreacts to every fade: with levels
///   scattered by σ dB it underestimates n (regression dilution), and a small n turns each
///   dB of fading into a large jump in distance.
///
/// Both agree when the levels follow the law exactly. Residuals are reported per distance
/// so that a user sees whether the law holds in that room at all.
public struct PathLossFit: Hashable, Sendable {
    public enum Objective: String, Hashable, Sendable, Codable {
        case distance, rssi
    }

    /// The fitted RSSI at 1 m, dBm.
    public var oneMetreRSSI: Double
    public var model: PathLossModel
    public var objective: Objective
    /// Root-mean-square, over the spots, of level minus fitted level, dB.
    public var rmsResidual: Double
    /// Median over the spots of |estimated − true| / true for the levels themselves.
    public var medianRelativeDistanceError: Double
    /// Per spot (by distance): the level measured there and what the fit makes of it.
    public var residuals: [Residual]

    public struct Residual: Hashable, Sendable, Codable {
        public var distance: Double
        /// The robust level of the samples at this distance, dBm.
        public var meanRSSI: Double
        /// What the fitted law expects here, dBm.
        public var fittedRSSI: Double
        /// The distance the fitted law gives back for `meanRSSI`, metres.
        public var estimatedDistance: Double
        public var sampleCount: Int

        /// Measured minus fitted, dB.
        public var error: Double { meanRSSI - fittedRSSI }

        // snake_case, as every file beaconctl writes.
        enum CodingKeys: String, CodingKey {
            case distance
            case meanRSSI = "level_rssi"
            case fittedRSSI = "fitted_rssi"
            case estimatedDistance = "estimated_distance"
            case sampleCount = "sample_count"
        }
    }

    /// Why samples cannot be fitted. `description` says what to measure instead.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        case tooFewDistances(Int)
        case invalidSample(distance: Double, rssi: Double)
        case implausibleExponent(Double)
        case noTrend

        public var description: String {
            switch self {
            case .tooFewDistances(let count):
                "samples at \(NumberText.count(count, "distinct distance")); measure at least two, ideally 4–6 between 0.5 and 5 m"
            case .invalidSample(let distance, let rssi):
                "a sample at \(distance) m with RSSI \(rssi) dBm cannot be used: distances must be 0.1–100 m and RSSI a negative number of dBm"
            case .implausibleExponent(let exponent):
                "the fitted path-loss exponent is \((exponent * 100).rounded() / 100); real rooms give about 1.5–6: the distances or the readings are probably mixed up, or the walk was too short to see the signal fall (measure out to 3–5 m)"
            case .noTrend:
                "the RSSI does not fall with distance in these samples (the same level everywhere, or rising): measure over a wider range of distances, 0.5 m to 5 m"
            }
        }
    }

    /// The exponents a room can plausibly have; outside, the samples are wrong, not the room.
    /// (The `.distance` fit of cluttered rooms reaches 5–6; free space is 2.)
    public static let plausibleExponents: ClosedRange<Double> = 1...8

    /// Share of each distance's samples dropped at either end before taking its level.
    public static let levelTrimFraction = 0.4

    /// Fits `samples` of (distance in metres, RSSI in dBm) from one walk: the samples at
    /// each distance make one level. Needs samples at two or more distinct distances.
    public init(samples: [(distance: Double, rssi: Double)], objective: Objective = .distance) throws(Failure) {
        for sample in samples { try Self.check(distance: sample.distance, rssi: sample.rssi) }
        var byDistance: [Double: [Double]] = [:]
        for sample in samples { byDistance[sample.distance, default: []].append(sample.rssi) }
        let levels = byDistance.keys.sorted().map { distance in
            let readings = byDistance[distance] ?? []
            return Level(distance: distance, rssi: RSSIFilter.trimmedMean(readings, trimFraction: Self.levelTrimFraction) ?? 0, sampleCount: readings.count)
        }
        try self.init(levels: levels, objective: objective)
    }

    /// One spot of a walk: its distance, the robust level of the readings taken there, and
    /// how many there were.
    public struct Level: Hashable, Sendable {
        public var distance: Double
        public var rssi: Double
        public var sampleCount: Int

        public init(distance: Double, rssi: Double, sampleCount: Int) {
            self.distance = distance
            self.rssi = rssi
            self.sampleCount = sampleCount
        }
    }

    /// Fits levels taken at spots, possibly on several walks of one place (the same
    /// distance may appear once per walk: the scatter between walks is part of what the
    /// distance fit must allow for). Needs levels at two or more distinct distances.
    public init(levels: [Level], objective: Objective = .distance) throws(Failure) {
        for level in levels { try Self.check(distance: level.distance, rssi: level.rssi) }
        let distinct = Set(levels.map(\.distance)).count
        guard distinct >= 2 else { throw .tooFewDistances(distinct) }
        let levels = levels.sorted { ($0.distance, $0.rssi) < ($1.distance, $1.rssi) }

        // level = P₁ + n·x with x = −10·log₁₀(d).
        let xs = levels.map { -10 * log10($0.distance) }
        let count = Double(xs.count)
        let meanX = xs.reduce(0, +) / count
        let meanLevel = levels.reduce(0) { $0 + $1.rssi } / count
        var covariance = 0.0
        var varianceX = 0.0
        var varianceLevel = 0.0
        for (x, level) in zip(xs, levels.map(\.rssi)) {
            covariance += (x - meanX) * (level - meanLevel)
            varianceX += (x - meanX) * (x - meanX)
            varianceLevel += (level - meanLevel) * (level - meanLevel)
        }
        guard covariance > 0 else { throw .noTrend }
        let exponent: Double
        switch objective {
        case .rssi:
            // Regress level on x: slope n.
            exponent = covariance / varianceX
        case .distance:
            // Regress x on level: slope 1/n.
            exponent = varianceLevel / covariance
        }
        guard exponent.isFinite, Self.plausibleExponents.contains(exponent) else { throw .implausibleExponent(exponent) }
        let intercept = meanLevel - exponent * meanX

        let fitted = PathLossModel(pathLossExponent: exponent)
        self.objective = objective
        oneMetreRSSI = intercept
        model = fitted
        residuals = levels.map { level in
            Residual(
                distance: level.distance, meanRSSI: level.rssi,
                fittedRSSI: fitted.expectedRSSI(atDistance: level.distance, measuredPower: intercept),
                estimatedDistance: fitted.distance(rssi: level.rssi, measuredPower: intercept) ?? level.distance,
                sampleCount: level.sampleCount)
        }
        rmsResidual = (residuals.reduce(0.0) { $0 + $1.error * $1.error } / count).squareRoot()
        let relativeErrors = residuals.map { abs($0.estimatedDistance - $0.distance) / $0.distance }.sorted()
        medianRelativeDistanceError = Self.median(relativeErrors)
    }

    private static func check(distance: Double, rssi: Double) throws(Failure) {
        guard distance.isFinite, rssi.isFinite, (0.1...100).contains(distance), rssi < 0 else {
            throw .invalidSample(distance: distance, rssi: rssi)
        }
    }

    static func median(_ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
