import BeaconCore
import VirtualRadio

/// One beacon at a known distance, advertising at 10 Hz through the propagation model,
/// heard by a receiver whose controller rounds RSSI to whole dBm; the ranger's estimate and
/// the newest raw reading's estimate are taken once a second, after the filter window filled.
struct RangingTrial {
    static let advertisingHz = 10
    static let txPower = 0.0
    static let identity = BeaconIdentity(uuid: ProximityUUID(high: 0xBEAC_0000_0000_0000, low: 1), major: 1, minor: 1)

    var model: PropagationModel
    var ranging: RangingConfiguration
    var seconds: Int

    /// Estimates, paired with the true distance, per evaluation instant.
    struct Estimates {
        var filtered: [Double?] = []
        var raw: [Double?] = []
    }

    func run(distance: Double, generator: inout SeededGenerator) -> Estimates {
        let measuredPower = Int8(clamping: Int(model.measuredPower(txPower: Self.txPower).rounded()))
        let advertisement = IBeaconAdvertisement(identity: Self.identity, measuredPower: measuredPower)
        let beacon = PlanPoint(x: 0, y: 0)
        let receiver = PlanPoint(x: distance, y: 0)
        var ranger = BeaconRanger(configuration: ranging)
        var estimates = Estimates()
        var newestRSSI: Int?
        let firstEvaluation = Int(ranging.filter.window.rounded(.up))
        for tick in 0..<(seconds * Self.advertisingHz) {
            let time = Double(tick) / Double(Self.advertisingHz)
            if let rssi = model.sampleRSSI(txPower: Self.txPower, from: beacon, to: receiver, using: &generator) {
                // Controllers report whole dBm in an int8, 127 meaning "not available".
                let reported = max(-127, min(20, Int(rssi.rounded())))
                newestRSSI = reported
                ranger.add(Sighting(
                    advertisement: advertisement, address: "00:00:00:00:00:01", addressIsRandom: false,
                    rssi: reported, time: time, receiver: "simulation"))
            }
            let isWholeSecond = tick % Self.advertisingHz == Self.advertisingHz - 1
            guard isWholeSecond, Int(time.rounded(.up)) >= firstEvaluation else { continue }
            estimates.filtered.append(ranger.snapshot(at: time).first?.accuracy)
            estimates.raw.append(newestRSSI.flatMap {
                ranging.distanceModel.distance(rssi: Double($0), measuredPower: Double(measuredPower))
            })
        }
        return estimates
    }
}

/// What a list of estimates says about one true distance.
struct AccuracySummary {
    var medianAbsoluteError: Double?
    var classAccuracy: Double
    var count: Int

    init(estimates: [Double?], truth: Double, thresholds: ProximityThresholds) {
        let known = estimates.compactMap { $0 }
        let errors = known.map { abs($0 - truth) }.sorted()
        medianAbsoluteError = errors.isEmpty ? nil : (errors[(errors.count - 1) / 2] + errors[errors.count / 2]) / 2
        let trueClass = thresholds.classify(distance: truth)
        let correct = estimates.filter { thresholds.classify(distance: $0) == trueClass }.count
        classAccuracy = estimates.isEmpty ? 0 : Double(correct) / Double(estimates.count)
        count = estimates.count
    }
}
