/// The settings of ranging; every default is documented in docs/ranging.md.
public struct RangingConfiguration: Hashable, Sendable {
    public var filter: RSSIFilter.Configuration
    public var distanceModel: PathLossModel
    /// dB added to every beacon's measured power before ranging: what a receiver profile
    /// learned about this receiver in this place (0 without one).
    public var measuredPowerOffset: Double
    public var thresholds: ProximityThresholds
    /// RSSI samples needed inside the window before a proximity is given: one or two
    /// packets say little about a signal that fades by 10 dB from one packet to the next.
    public var minimumSamples: Int
    /// Seconds without a packet after which the proximity turns `unknown`, as CoreLocation
    /// does for a beacon that went out of range.
    public var unseenTimeout: Double
    /// Seconds without a packet after which the beacon is dropped from snapshots.
    public var forgetAfter: Double
    /// Measured power values a real beacon can have: 1 m from a transmitter of −40 to
    /// +20 dBm is roughly −81 to −21 dBm. Outside, no distance is estimated.
    public var plausibleMeasuredPower: ClosedRange<Int>
    /// Beacons tracked at once; beyond, the one unseen longest is forgotten. Bounds memory
    /// against a flood of made-up identities (the air is attacker-controlled).
    public var maximumTrackedBeacons: Int

    public init(
        filter: RSSIFilter.Configuration = RSSIFilter.Configuration(),
        distanceModel: PathLossModel = PathLossModel(pathLossExponent: 2),
        thresholds: ProximityThresholds = ProximityThresholds(),
        minimumSamples: Int = 3, unseenTimeout: Double = 5, forgetAfter: Double = 30,
        plausibleMeasuredPower: ClosedRange<Int> = -100 ... -20, maximumTrackedBeacons: Int = 10_000,
        measuredPowerOffset: Double = 0
    ) {
        self.measuredPowerOffset = measuredPowerOffset.isFinite ? measuredPowerOffset : 0
        self.filter = filter
        self.distanceModel = distanceModel
        self.thresholds = thresholds
        self.minimumSamples = minimumSamples
        self.unseenTimeout = unseenTimeout
        self.forgetAfter = forgetAfter
        self.plausibleMeasuredPower = plausibleMeasuredPower
        self.maximumTrackedBeacons = maximumTrackedBeacons
    }
}
