/// The settings of ranging; every default is documented in docs/ranging.md.
public struct RangingConfiguration: Hashable, Sendable {
    public var filter: RSSIFilter.Configuration
    public var distanceModel: PathLossModel
    /// The interval reported around each distance (`RangedBeacon.accuracyInterval`).
    public var uncertainty: DistanceUncertainty
    /// dB added to every beacon's measured power before ranging: what a receiver profile
    /// learned about this receiver in this place (0 without one).
    public var measuredPowerOffset: Double
    public var thresholds: ProximityThresholds
    /// RSSI samples needed inside the window before a proximity is given: one or two
    /// packets say little about a signal that fades by 10 dB from one packet to the next.
    public var minimumSamples: Int
    /// Time without a packet after which the proximity turns `unknown`, as CoreLocation
    /// does for a beacon that went out of range.
    public var unseenTimeout: Duration
    /// Time without a packet after which the beacon is dropped from snapshots; `nil`: never
    /// (a recording ranged to its end).
    public var forgetAfter: Duration?
    /// Measured power values a real beacon can have: 1 m from a transmitter of −40 to
    /// +20 dBm is roughly −81 to −21 dBm. Outside, no distance is estimated.
    public var plausibleMeasuredPower: ClosedRange<Int>
    /// Beacons tracked at once; beyond, the one unseen longest is forgotten. Bounds memory
    /// against a flood of made-up identities (the air is attacker-controlled).
    public var maximumTrackedBeacons: Int

    /// The path-loss exponent without a receiver profile. Not free space's 2: at the
    /// distances people range at a level is scattered by about 6 dB around the law (0.5–3 m
    /// on the Herald recordings: bodies, orientation, multipath), and with such scatter the exponent that gives
    /// the smallest distance error is the steeper one a regression of log-distance on level
    /// finds — the distance objective `calibrate --walk` fits. On the Herald recordings
    /// that fit gives 3.55 on one rig and 4.15 on the other, the median error is lowest at
    /// 3.3–3.6 on both, and each rig ranged with the other rig's fit stays clearly below
    /// the constant floor (docs/ranging.md). A steeper exponent turns a dB of fading into
    /// fewer centimetres; it keeps the 1 m calibration exactly (1 m stays 1 m).
    public static let defaultPathLossExponent = 3.5

    public init(
        filter: RSSIFilter.Configuration = RSSIFilter.Configuration(),
        distanceModel: PathLossModel = PathLossModel(pathLossExponent: RangingConfiguration.defaultPathLossExponent),
        uncertainty: DistanceUncertainty = DistanceUncertainty(),
        thresholds: ProximityThresholds = ProximityThresholds(),
        minimumSamples: Int = 3, unseenTimeout: Duration = .seconds(5), forgetAfter: Duration? = .seconds(30),
        plausibleMeasuredPower: ClosedRange<Int> = -100 ... -20, maximumTrackedBeacons: Int = 10_000,
        measuredPowerOffset: Double = 0
    ) {
        self.measuredPowerOffset = measuredPowerOffset.isFinite ? measuredPowerOffset : 0
        self.filter = filter
        self.distanceModel = distanceModel
        self.uncertainty = uncertainty
        self.thresholds = thresholds
        self.minimumSamples = minimumSamples
        self.unseenTimeout = unseenTimeout
        self.forgetAfter = forgetAfter
        self.plausibleMeasuredPower = plausibleMeasuredPower
        self.maximumTrackedBeacons = maximumTrackedBeacons
    }
}
