import BeaconCore

/// What was heard of one identity: the evidence a verdict rests on, as reports show it.
/// Times are seconds since the verification started.
public struct BeaconObservation: Hashable, Sendable {
    public var identity: BeaconIdentity
    public var sightings: Int
    /// Every device address the identity came from, most receptions first.
    public var addresses: [AddressObservation]
    /// Every measured-power value carried, most receptions first.
    public var measuredPowers: [MeasuredPowerCount]
    public var firstSeen: Double?
    public var lastSeen: Double?

    public init(
        identity: BeaconIdentity, sightings: Int = 0, addresses: [AddressObservation] = [],
        measuredPowers: [MeasuredPowerCount] = [], firstSeen: Double? = nil, lastSeen: Double? = nil
    ) {
        self.identity = identity
        self.sightings = sightings
        self.addresses = addresses
        self.measuredPowers = measuredPowers
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }

    /// The strongest signal received, dBm, when the receiver reported any.
    public var strongestRSSI: Int? { addresses.compactMap(\.strongestRSSI).max() }
}

/// What was heard from one device address sending an identity.
public struct AddressObservation: Hashable, Sendable {
    /// `AA:BB:CC:DD:EE:FF`, upper case.
    public var address: String
    public var isRandom: Bool
    /// A random address whose two top bits are not `11`: a resolvable or non-resolvable
    /// private address, which a device changes every few minutes (Core v5.4 Vol 6 Part B
    /// 1.3.2.2). Static random and public addresses do not change while the device runs.
    public var isPrivate: Bool
    public var sightings: Int
    public var measuredPowers: [MeasuredPowerCount]
    public var firstSeen: Double
    public var lastSeen: Double
    /// Distinct advertising events heard (receptions of one event on several channels count once).
    public var events: Int
    /// The shortest gap between two advertising events heard, seconds: the best estimate of
    /// the advertising interval, since lost packets only lengthen gaps. `nil` below two events.
    public var shortestGap: Double?
    public var strongestRSSI: Int?

    public init(
        address: String, isRandom: Bool, isPrivate: Bool, sightings: Int, measuredPowers: [MeasuredPowerCount],
        firstSeen: Double, lastSeen: Double, events: Int, shortestGap: Double?, strongestRSSI: Int?
    ) {
        self.address = address
        self.isRandom = isRandom
        self.isPrivate = isPrivate
        self.sightings = sightings
        self.measuredPowers = measuredPowers
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.events = events
        self.shortestGap = shortestGap
        self.strongestRSSI = strongestRSSI
    }

    /// Gaps measured between the events heard.
    public var gaps: Int { max(0, events - 1) }

    /// Whether both addresses were heard during the same stretch of time: two devices at
    /// once, rather than one device that changed its address.
    func overlaps(_ other: AddressObservation) -> Bool {
        max(firstSeen, other.firstSeen) <= min(lastSeen, other.lastSeen)
    }
}

/// One measured-power value and how many receptions carried it.
public struct MeasuredPowerCount: Hashable, Sendable {
    public var value: Int8
    public var sightings: Int

    public init(value: Int8, sightings: Int) {
        self.value = value
        self.sightings = sightings
    }
}
