import BeaconCore


/// What a coverage analysis assumes about the air and what it calls good or bad.
public struct CoverageSettings: Hashable, Sendable {
    /// Side of a grid cell in metres; each cell is judged at its centre.
    public var resolution: Double
    /// The model of the air: path loss, obstacles. The virtual radio adds its randomness to
    /// the same type, so a simulated venue hears, on average, what its coverage map predicts.
    public var environment: RadioEnvironment
    /// A cell is covered when its strongest beacon's mean RSSI reaches this, dBm.
    public var threshold: Double
    /// A cell is a dead zone when even its strongest beacon stays below this, dBm.
    public var deadBelow: Double
    /// A cell is crowded when at least this many beacons reach `crowdedLevel` there.
    public var crowdedAt: Int
    /// The RSSI a beacon must reach to count towards crowding, dBm; `nil` means
    /// `defaultCrowdedThreshold` (or `threshold`, when that is stronger).
    public var crowdedThreshold: Double?

    /// Crowding counts beacons from −70 dBm by default: each of them then sounds a few metres
    /// away (5–7 m at −8…−4 dBm TX and exponent 3), which is where a phone struggles to say
    /// which is nearest. At the −85 dBm coverage threshold BLE carries 15–25 m, so in any
    /// shop or gallery every spot hears three beacons and "crowded" would mark everything.
    public static let defaultCrowdedThreshold = -70.0
    /// Two beacons tie for strongest when their mean RSSIs are closer than this, dB.
    public var tieMargin: Double
    /// The classes a phone would give the strongest beacon's distance estimate.
    public var proximity: ProximityThresholds
    /// Whether a beacon's air starts from its advertised measured power (its RSSI at 1 m)
    /// rather than from TX power − `environment.referenceLoss`. A calibrated measured power
    /// is what the venue really gives at 1 m; the default follows the TX power, as the
    /// virtual radio does. Beacons with `auto` measured power are the same either way.
    public var airFromMeasuredPower: Bool

    /// The path-loss exponent coverage assumes unless told otherwise. Free space (2.0, the
    /// virtual radio's default) would promise tens of metres more than a furnished shop or
    /// gallery gives; 3.0 is the usual planning figure for rooms with shelves, display cases
    /// and people.
    public static let defaultPathLossExponent = 3.0

    public init(
        resolution: Double = 0.5,
        environment: RadioEnvironment = RadioEnvironment(
            pathLoss: PathLossModel(pathLossExponent: CoverageSettings.defaultPathLossExponent)),
        threshold: Double = -85, deadBelow: Double = -90, crowdedAt: Int = 3, crowdedThreshold: Double? = nil,
        tieMargin: Double = 1, proximity: ProximityThresholds = ProximityThresholds(),
        airFromMeasuredPower: Bool = false
    ) {
        self.resolution = resolution
        self.environment = environment
        self.threshold = threshold
        self.deadBelow = deadBelow
        self.crowdedAt = crowdedAt
        self.crowdedThreshold = crowdedThreshold
        self.tieMargin = tieMargin
        self.proximity = proximity
        self.airFromMeasuredPower = airFromMeasuredPower
    }

    /// The TX power the model of the air radiates for `beacon`.
    public func radiatedPower(of beacon: CoverageBeacon) -> Double {
        airFromMeasuredPower ? beacon.measuredPower + environment.referenceLoss : beacon.txPower
    }

    /// The RSSI that counts towards crowding.
    public var crowdedLevel: Double { crowdedThreshold ?? max(Self.defaultCrowdedThreshold, threshold) }

    /// The distance model a phone would range with. It shares the air's path-loss exponent,
    /// so a beacon whose measured power is the model's own 1 m RSSI is ranged exactly where
    /// no wall is in the way; walls and a calibrated measured power shift the estimate.
    public var distanceModel: PathLossModel { environment.pathLoss }

    /// Why these settings cannot produce a meaningful map, or `nil` when they can.
    public var problem: String? {
        if !(resolution.isFinite && resolution > 0) {
            return "the grid resolution must be a positive number of metres; got \(resolution)"
        }
        if !(environment.pathLoss.pathLossExponent.isFinite && environment.pathLoss.pathLossExponent > 0) {
            return "the path-loss exponent must be positive (2 free space, 2.5–3.5 indoors); got \(environment.pathLoss.pathLossExponent)"
        }
        if !threshold.isFinite || !deadBelow.isFinite || !crowdedLevel.isFinite {
            return "thresholds must be finite numbers of dBm"
        }
        if deadBelow > threshold {
            return "the dead-zone level (\(deadBelow) dBm) must not be above the coverage threshold (\(threshold) dBm)"
        }
        if crowdedAt < 2 {
            return "a crowded cell needs at least 2 beacons; got \(crowdedAt)"
        }
        if !(tieMargin.isFinite && tieMargin >= 0) {
            return "the tie margin must be zero or more dB; got \(tieMargin)"
        }
        let nearBelow = proximity.nearBelow
        let immediateBelow = proximity.immediateBelow
        if !(immediateBelow.isFinite && nearBelow.isFinite && immediateBelow > 0 && nearBelow > immediateBelow) {
            return "proximity thresholds need 0 < immediate (\(immediateBelow) m) < near (\(nearBelow) m)"
        }
        return nil
    }
}
