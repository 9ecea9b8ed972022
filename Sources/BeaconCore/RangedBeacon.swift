/// One beacon as ranging sees it at a moment: CoreLocation's `CLBeacon` plus what a fleet
/// audit needs (address, packet rate, first and last sighting).
///
/// A beacon is one identity heard from one address by one receiver: two devices sending the
/// same identity (a cloned or misprogrammed beacon) are two entries, so neither hides the
/// other, and two receivers hearing one device are two entries, each with its own distance.
public struct RangedBeacon: Hashable, Sendable {
    public var identity: BeaconIdentity
    /// The address the scanner reported; `nil` when its gateway publishes none.
    public var address: BluetoothAddress?
    public var addressIsRandom: Bool
    /// The measured power of the newest advertisement, dBm at 1 m.
    public var measuredPower: Int8
    /// Whether `measuredPower` is inside `RangingConfiguration.plausibleMeasuredPower`;
    /// when not, no distance is estimated (a byte such as −3 would put the beacon kilometres away).
    public var measuredPowerIsPlausible: Bool
    /// The newest RSSI reading, dBm; `nil` when the newest packet had none.
    public var rssi: Int?
    /// The trimmed running average of the recent readings, dBm (see `RSSIFilter`).
    public var filteredRSSI: Double?
    /// Estimated distance in metres from `filteredRSSI`; `nil` when unknown.
    public var accuracy: Double?
    /// Where the true distance lies for 68 % of readings (`DistanceUncertainty`), metres;
    /// `nil` exactly when `accuracy` is.
    public var accuracyInterval: ClosedRange<Double>?
    /// The class the whole interval falls in; `unknown` when it spans two.
    public var proximity: Proximity
    /// Packets per second over the filter window; `nil` until two packets were heard.
    public var packetsPerSecond: Double?
    /// RSSI samples inside the filter window.
    public var sampleCount: Int
    /// Every packet heard since this beacon was first seen (or since it was last forgotten).
    public var packetCount: Int
    public var firstSeen: Double
    public var lastSeen: Double
    /// The receiver that heard it: a beacon is ranged per receiver.
    public var receiver: String

    public init(
        identity: BeaconIdentity, address: BluetoothAddress?, addressIsRandom: Bool, measuredPower: Int8,
        measuredPowerIsPlausible: Bool, rssi: Int?, filteredRSSI: Double?, accuracy: Double?,
        accuracyInterval: ClosedRange<Double>? = nil, proximity: Proximity, packetsPerSecond: Double?, sampleCount: Int, packetCount: Int,
        firstSeen: Double, lastSeen: Double, receiver: String
    ) {
        self.identity = identity
        self.address = address
        self.addressIsRandom = addressIsRandom
        self.measuredPower = measuredPower
        self.measuredPowerIsPlausible = measuredPowerIsPlausible
        self.rssi = rssi
        self.filteredRSSI = filteredRSSI
        self.accuracy = accuracy
        self.accuracyInterval = accuracyInterval
        self.proximity = proximity
        self.packetsPerSecond = packetsPerSecond
        self.sampleCount = sampleCount
        self.packetCount = packetCount
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.receiver = receiver
    }

    /// Nearest first, as `didRangeBeacons` orders them: by accuracy, beacons without one
    /// last; ties by identity, then address, so the order is stable from one snapshot to
    /// the next.
    public static func nearestFirst(_ lhs: RangedBeacon, _ rhs: RangedBeacon) -> Bool {
        switch (lhs.accuracy, rhs.accuracy) {
        case (let left?, let right?) where left != right: return left < right
        case (.some, nil): return true
        case (nil, .some): return false
        default:
            if lhs.identity != rhs.identity { return lhs.identity < rhs.identity }
            return BluetoothAddress.ascending(lhs.address, rhs.address)
        }
    }
}
