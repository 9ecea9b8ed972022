import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A way to turn a stream of RSSI readings into a distance: beaconctl's own ranger, or a
/// reproduction of what other tools ship, for comparison on the same data. Each peer is
/// reproduced from its published source (formula and filter), not from its code:
///
/// - Android Beacon Library (`CurveFittedDistanceCalculator` with the library's default
///   coefficients 0.42093, 6.9476, 0.54992 from its model-distance-calculations.json, after
///   its `RunningAverageRssiFilter`: the readings of the last 20 s, sorted, with
///   ⌊count/10⌋+1 dropped at each end when there are more than two, averaged).
///   `ratio = rssi / txPower; d = ratio^10 if ratio < 1, else 0.42093·ratio^6.9476 + 0.54992`.
/// - Home Assistant's ibeacon integration (the ibeacon-ble library's
///   `calculate_distance_meters` on each advertisement's RSSI, no smoothing):
///   `d = ratio^10 if ratio < 1, else 0.89976·ratio^7.7095 + 0.111`, at most 400 m. (Home
///   Assistant shows it rounded to whole metres; the benchmark keeps the decimals, which
///   only helps it.)
/// - The textbook log-distance model with n = 2 on a 10 s mean without trimming.
/// - The floor: one constant distance whatever the RSSI. An estimator that does not beat it
///   has learnt nothing from the RSSI.
public enum DistanceEstimator: Sendable {
    case beaconctl(name: String, configuration: RangingConfiguration)
    case logDistance(exponent: Double, window: Double)
    case androidBeaconLibrary
    case homeAssistant
    case constant(metres: Double)

    public var name: String {
        switch self {
        case .beaconctl(let name, _): name
        case .logDistance(let exponent, let window):
            "log-distance n=\(exponent == exponent.rounded() ? String(Int(exponent)) : String(exponent)), \(Int(window)) s mean"
        case .androidBeaconLibrary: "Android Beacon Library"
        case .homeAssistant: "Home Assistant ibeacon"
        case .constant(let metres): "floor: constant \(metres) m"
        }
    }

    /// Whether it is one of the peers beaconctl is compared with (the floor is not).
    public var isPeer: Bool {
        switch self {
        case .beaconctl, .constant: false
        default: true
        }
    }

    /// Seconds of readings it needs before its estimate means what it says.
    public var warmUp: Double {
        switch self {
        case .beaconctl(_, let configuration): configuration.filter.window.instantSeconds
        case .logDistance(_, let window): window
        case .androidBeaconLibrary: 20
        case .homeAssistant, .constant: 0
        }
    }

    /// A fresh estimator for one beacon advertising `measuredPower`.
    public func makeState(measuredPower: Int8) -> EstimatorState {
        EstimatorState(estimator: self, measuredPower: measuredPower)
    }
}

/// One estimator's memory while it is fed readings of one beacon (a recording, or the
/// virtual radio's sightings in the benchmark's simulation).
public struct EstimatorState: Sendable {
    let estimator: DistanceEstimator
    let measuredPower: Int8
    private var ranger: BeaconRanger?
    private var readings: [(time: Double, rssi: Double)] = []
    private static let identity = BeaconIdentity(uuid: ProximityUUID(high: 0x4245_4143_4F4E_4354, low: 1), major: 1, minor: 1)

    init(estimator: DistanceEstimator, measuredPower: Int8) {
        self.estimator = estimator
        self.measuredPower = measuredPower
        if case .beaconctl(_, let configuration) = estimator { ranger = BeaconRanger(configuration: configuration) }
    }

    /// A reading: seconds on the caller's clock (never decreasing), RSSI in dBm.
    public mutating func add(time: Double, rssi: Int) {
        if var ranger {
            ranger.add(Sighting(
                advertisement: IBeaconAdvertisement(identity: Self.identity, measuredPower: measuredPower),
                address: BluetoothAddress(truncating: 1), addressIsRandom: false, rssi: rssi, time: time, clock: .elapsed, receiver: "recording"))
            self.ranger = ranger
        } else {
            readings.append((time, Double(rssi)))
            let keep = max(estimator.warmUp, 1)
            if let first = readings.firstIndex(where: { $0.time > time - keep }), first > 0 { readings.removeFirst(first) }
        }
    }

    /// What the estimator says as of `time`: a distance (metres) or none, the interval
    /// around it when it gives one (only beaconctl does), and the proximity class: from the
    /// interval for beaconctl, from the distance for the others.
    public func ranged(at time: Double, thresholds: ProximityThresholds = ProximityThresholds()) -> (estimate: Double?, interval: ClosedRange<Double>?, proximity: Proximity) {
        if ranger != nil {
            let beacon = rangedBeacon(at: time)
            return (beacon?.accuracy, beacon?.accuracyInterval, thresholds.classify(interval: beacon?.accuracyInterval))
        }
        let estimate = estimate(at: time)
        return (estimate, nil, thresholds.classify(distance: estimate))
    }

    /// beaconctl's ranging of the beacon as of `time`; `nil` for another estimator, or a
    /// time that is no pass time (`PassTime(checkedSeconds:)`).
    private func rangedBeacon(at time: Double) -> RangedBeacon? {
        guard let ranger, let passTime = PassTime(checkedSeconds: time) else { return nil }
        return ranger.snapshot(at: passTime).first
    }

    /// The estimate as of `time`, metres, or `nil` when the estimator gives none.
    public func estimate(at time: Double) -> Double? {
        let power = Double(measuredPower)
        switch estimator {
        case .constant(let metres):
            return metres
        case .beaconctl:
            return rangedBeacon(at: time)?.accuracy
        case .logDistance(let exponent, let window):
            let inside = readings.filter { $0.time > time - window }.map(\.rssi)
            guard let mean = RSSIFilter.trimmedMean(inside, trimFraction: 0) else { return nil }
            return PathLossModel(pathLossExponent: exponent).distance(rssi: mean, measuredPower: power)
        case .androidBeaconLibrary:
            let sorted = readings.filter { $0.time > time - 20 }.map(\.rssi).sorted()
            guard !sorted.isEmpty else { return nil }
            var start = 0
            var end = sorted.count - 1
            if sorted.count > 2 {
                start = sorted.count / 10 + 1
                end = sorted.count - sorted.count / 10 - 2
            }
            let kept = sorted[start...end]
            let average = kept.reduce(0, +) / Double(kept.count)
            return Self.curve(rssi: average, txPower: power, 0.42093, 6.9476, 0.54992)
        case .homeAssistant:
            guard let newest = readings.last else { return nil }
            return Self.curve(rssi: newest.rssi, txPower: power, 0.89976, 7.7095, 0.111).map { min($0, 400) }
        }
    }

    /// The curve both peers use, with their coefficients.
    static func curve(rssi: Double, txPower: Double, _ a: Double, _ b: Double, _ c: Double) -> Double? {
        guard rssi != 0, txPower != 0 else { return nil }
        let ratio = rssi / txPower
        return ratio < 1 ? pow(ratio, 10) : a * pow(ratio, b) + c
    }
}
