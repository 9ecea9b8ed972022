import BeaconCore

/// Runs estimators over recordings at known distances and says how far off they were.
///
/// Protocol, the same for every estimator: the recording's measured power is calibrated
/// at 1 m from the recording itself (`Calibration.estimate` on every reading at 1 m, as
/// `beaconctl calibrate --input` does). Each distance is then played on its own, from a
/// fresh estimator, and estimates are taken at every second at which a reading arrived,
/// once the slowest estimator's window (`warmUp`) has passed since the first reading there,
/// so every estimator is judged at the same instants.
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
    }

    public var recording: DistanceRecording
    public var measuredPower: Int8
    /// Per estimator (in the order given), per distance (ascending).
    public var errors: [[Errors]]

    public static let defaultDistances: ClosedRange<Double> = 0.5...3.0

    /// Evaluates `estimators` on the distances of `recording` inside `distances`.
    /// Returns `nil` when the recording has no readings at 1 m to calibrate from.
    public init?(
        recording: DistanceRecording, estimators: [DistanceEstimator],
        distances: ClosedRange<Double> = defaultDistances, thresholds: ProximityThresholds = ProximityThresholds()
    ) {
        guard let calibration = Calibration.estimate(samples: recording.samples(at: 1).map { Double($0.rssi) }) else { return nil }
        self.recording = recording
        measuredPower = calibration.measuredPower
        let warmUp = estimators.map(\.warmUp).max() ?? 0
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
                    let estimate = states[state].estimate(at: time)
                    perEstimator[state].instants += 1
                    if let estimate { perEstimator[state].absoluteErrors.append(abs(estimate - distance)) }
                    if thresholds.classify(distance: estimate) == trueClass { perEstimator[state].rightClass += 1 }
                }
            }
            for state in states.indices { errors[state].append(perEstimator[state]) }
        }
        self.errors = errors
    }
}

/// Median, 90th percentile and class accuracy of a set of errors.
public struct ErrorSummary: Sendable {
    public var median: Double?
    public var percentile90: Double?
    public var classAccuracy: Double?
    public var count: Int

    public init(_ errors: [RecordingEvaluation.Errors]) {
        let all = errors.flatMap(\.absoluteErrors).sorted()
        median = Self.quantile(all, 0.5)
        percentile90 = Self.quantile(all, 0.9)
        let instants = errors.reduce(0) { $0 + $1.instants }
        classAccuracy = instants == 0 ? nil : Double(errors.reduce(0) { $0 + $1.rightClass }) / Double(instants)
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
