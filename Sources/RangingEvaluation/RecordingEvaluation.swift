import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs estimators over recordings at known distances and says how far off they were.
///
/// Protocol, the same for every estimator: the recording's measured power is calibrated
/// at 1 m from the recording itself (`Calibration.estimate` on every reading at 1 m, as
/// `beaconctl calibrate --input` does). Each distance is then played on its own, from a
/// fresh estimator, and estimates are taken at every second at which a reading arrived,
/// once `settle` seconds (and at least the slowest estimator's window, `warmUp`) have passed
/// since the first reading there, so every estimator is judged at the same instants.
public struct RecordingEvaluation: Sendable {
    /// One estimator's errors at one true distance.
    public struct Errors: Sendable {
        public var distance: Double
        /// |estimate − truth|, metres, for every instant with an estimate.
        public var absoluteErrors: [Double]
        /// Instants judged, with or without an estimate.
        public var instants: Int
        /// Instants whose proximity class was the true one.
        public var rightClass: Int
        /// Instants whose proximity class was another known class (not `unknown`).
        public var wrongClass: Int = 0
        /// Instants with an interval, and those whose interval held the true distance.
        public var intervals: Int = 0
        public var covered: Int = 0
        /// log₁₀(true ÷ estimated distance) at every instant with an estimate.
        public var logRatios: [Double] = []
    }

    public var recording: DistanceRecording
    public var measuredPower: Int8
    /// Per estimator (in the order given), per distance (ascending).
    public var errors: [[Errors]]

    public static let defaultDistances: ClosedRange<Double> = 0.5...3.0
    /// Readings are judged from 30 s after each move on, as a person reads a phone that
    /// stopped moving (and the measurement that opened this comparison did).
    public static let defaultSettle = 30.0

    /// Evaluates `estimators` on the distances of `recording` inside `distances`.
    /// Returns `nil` when the recording has no readings at 1 m to calibrate from.
    public init?(
        recording: DistanceRecording, estimators: [DistanceEstimator],
        distances: ClosedRange<Double> = defaultDistances, thresholds: ProximityThresholds = ProximityThresholds(),
        settle: Double = defaultSettle
    ) {
        guard let calibration = Calibration.estimate(samples: recording.samples(at: 1).map { Double($0.rssi) }) else { return nil }
        self.recording = recording
        measuredPower = calibration.measuredPower
        let warmUp = max(estimators.map(\.warmUp).max() ?? 0, settle)
        var errors = estimators.map { _ in [Errors]() }
        for distance in recording.distances where distances.contains(distance) {
            let samples = recording.samples(at: distance)
            guard let start = samples.first?.time else { continue }
            var states = estimators.map { $0.makeState(measuredPower: calibration.measuredPower) }
            var perEstimator = estimators.map { _ in Errors(distance: distance, absoluteErrors: [], instants: 0, rightClass: 0) }
            let trueClass = thresholds.classify(distance: distance)
            var index = 0
            while index < samples.count {
                let time = samples[index].time
                while index < samples.count, samples[index].time == time {
                    for state in states.indices { states[state].add(time: time, rssi: samples[index].rssi) }
                    index += 1
                }
                guard time - start >= warmUp else { continue }
                for state in states.indices {
                    let (estimate, interval, proximity) = states[state].ranged(at: time, thresholds: thresholds)
                    perEstimator[state].instants += 1
                    if let estimate {
                        perEstimator[state].absoluteErrors.append(abs(estimate - distance))
                        if estimate > 0 { perEstimator[state].logRatios.append(log10(distance / estimate)) }
                    }
                    if let interval {
                        perEstimator[state].intervals += 1
                        if interval.contains(distance) { perEstimator[state].covered += 1 }
                    }
                    if proximity == trueClass {
                        perEstimator[state].rightClass += 1
                    } else if proximity != .unknown {
                        perEstimator[state].wrongClass += 1
                    }
                }
            }
            for state in states.indices { errors[state].append(perEstimator[state]) }
        }
        self.errors = errors
    }
}

/// Median, 90th percentile, class accuracy and interval coverage of a set of errors.
public struct ErrorSummary: Sendable {
    public var median: Double?
    public var percentile90: Double?
    public var classAccuracy: Double?
    /// Share of instants with a known class that is not the true one.
    public var wrongClassShare: Double?
    /// Share of intervals that held the true distance; `nil` without intervals.
    public var coverage: Double?
    public var count: Int

    public init(_ errors: [RecordingEvaluation.Errors]) {
        let all = errors.flatMap(\.absoluteErrors).sorted()
        median = Self.quantile(all, 0.5)
        percentile90 = Self.quantile(all, 0.9)
        let instants = errors.reduce(0) { $0 + $1.instants }
        classAccuracy = instants == 0 ? nil : Double(errors.reduce(0) { $0 + $1.rightClass }) / Double(instants)
        wrongClassShare = instants == 0 ? nil : Double(errors.reduce(0) { $0 + $1.wrongClass }) / Double(instants)
        let intervals = errors.reduce(0) { $0 + $1.intervals }
        coverage = intervals == 0 ? nil : Double(errors.reduce(0) { $0 + $1.covered }) / Double(intervals)
        count = all.count
    }

    /// Linear interpolation between order statistics.
    public static func quantile(_ sorted: [Double], _ q: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] * (1 - weight) + sorted[upper] * weight
    }
}

extension ErrorSummary {
    /// The median over recordings of each recording's median error: every recording weighs
    /// the same, however many readings it has.
    public static func medianOfMedians(_ perRecording: [[RecordingEvaluation.Errors]]) -> Double? {
        quantile(perRecording.compactMap { ErrorSummary($0).median }.sorted(), 0.5)
    }
}

/// Receiver profiles fitted the way `beaconctl calibrate --walk` fits them, from recordings.
public enum RecordingProfiles {
    /// The reference measured power the pooled samples are expressed against.
    static let reference = -60.0

    /// The profile of a walk made of `recordings` (all of one receiver in one place, or of
    /// one place): each recording's readings are taken relative to its own 1 m calibration,
    /// so recordings of phones with different levels can be pooled. Distances below 0.1 m
    /// (the near field) are left out. `nil` when the fit refuses the data.
    public static func fit(_ recordings: [DistanceRecording], receiver: String, place: String) -> Result<RangingProfile, PathLossFit.Failure>? {
        var levels: [PathLossFit.Level] = []
        for recording in recordings {
            guard let calibration = Calibration.estimate(samples: recording.samples(at: 1).map { Double($0.rssi) }) else { continue }
            let shift = reference - Double(calibration.measuredPower)
            for distance in recording.distances where distance >= PathLossModel.nearField {
                let readings = recording.samples(at: distance).map { Double($0.rssi) + shift }
                guard let level = RSSIFilter.trimmedMean(readings, trimFraction: PathLossFit.levelTrimFraction) else { continue }
                levels.append(PathLossFit.Level(distance: distance, rssi: min(level, -1), sampleCount: readings.count))
            }
        }
        guard !levels.isEmpty else { return nil }
        do {
            let fit = try PathLossFit(levels: levels)
            return .success(RangingProfile(receiver: receiver, place: place, fit: fit, referenceMeasuredPower: reference, fittedAt: ""))
        } catch {
            return .failure(error)
        }
    }
}
