import BeaconCore

/// A beacon of the manifest with every inherited value applied (fleet `defaults` → venue →
/// beacon): what gets advertised and what an audit expects to hear.
///
/// A fleet holds each beacon twice, in `Fleet.beacons` and in its venue's `beacons`. The
/// fields live in a shared copy-on-write box so both lists point at one copy: a million
/// beacons stay a million boxes, and copying a beacon costs one reference count.
public struct ResolvedBeacon: Hashable, Sendable {
    private var storage: Storage

    public init(
        id: String, name: String? = nil, zone: String? = nil, venueID: String, fleetName: String,
        identity: BeaconIdentity, measuredPower: MeasuredPower = .auto,
        intervalMilliseconds: Int = 100, txPower: Int = 0, position: PlanPoint? = nil,
        host: String? = nil, expectedAddress: String? = nil, location: SourceLocation
    ) {
        storage = Storage(
            id: id, name: name, zone: zone, venueID: venueID, fleetName: fleetName,
            identity: identity, measuredPower: measuredPower,
            intervalMilliseconds: intervalMilliseconds, txPower: txPower, position: position,
            host: host, expectedAddress: expectedAddress, location: location)
    }

    public var id: String {
        get { storage.id }
        set { uniqueStorage().id = newValue }
    }
    public var name: String? {
        get { storage.name }
        set { uniqueStorage().name = newValue }
    }
    public var zone: String? {
        get { storage.zone }
        set { uniqueStorage().zone = newValue }
    }
    public var venueID: String {
        get { storage.venueID }
        set { uniqueStorage().venueID = newValue }
    }
    public var fleetName: String {
        get { storage.fleetName }
        set { uniqueStorage().fleetName = newValue }
    }
    public var identity: BeaconIdentity {
        get { storage.identity }
        set { uniqueStorage().identity = newValue }
    }
    public var measuredPower: MeasuredPower {
        get { storage.measuredPower }
        set { uniqueStorage().measuredPower = newValue }
    }
    /// Advertising interval asked of the controller, in milliseconds.
    public var intervalMilliseconds: Int {
        get { storage.intervalMilliseconds }
        set { uniqueStorage().intervalMilliseconds = newValue }
    }
    /// Transmit power asked of the controller, in dBm.
    public var txPower: Int {
        get { storage.txPower }
        set { uniqueStorage().txPower = newValue }
    }
    /// Metres on the venue's plan.
    public var position: PlanPoint? {
        get { storage.position }
        set { uniqueStorage().position = newValue }
    }
    /// The machine that advertises this beacon.
    public var host: String? {
        get { storage.host }
        set { uniqueStorage().host = newValue }
    }
    /// The advertiser address the audit expects, upper case `AA:BB:CC:DD:EE:FF`.
    public var expectedAddress: String? {
        get { storage.expectedAddress }
        set { uniqueStorage().expectedAddress = newValue }
    }
    /// Where the beacon's mapping starts (its `- id:` line).
    public var location: SourceLocation {
        get { storage.location }
        set { uniqueStorage().location = newValue }
    }

    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public static func == (lhs: ResolvedBeacon, rhs: ResolvedBeacon) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.hasSameValue(as: rhs.storage)
    }

    public func hash(into hasher: inout Hasher) {
        storage.hash(into: &hasher)
    }
}

extension ResolvedBeacon {
    /// The box behind `ResolvedBeacon`. Mutated only through `uniqueStorage()` (never while
    /// shared), which is what makes the unchecked `Sendable` sound.
    private final class Storage: @unchecked Sendable {
        var id: String
        var name: String?
        var zone: String?
        var venueID: String
        var fleetName: String
        var identity: BeaconIdentity
        var measuredPower: MeasuredPower
        var intervalMilliseconds: Int
        var txPower: Int
        var position: PlanPoint?
        var host: String?
        var expectedAddress: String?
        var location: SourceLocation

        init(
            id: String, name: String?, zone: String?, venueID: String, fleetName: String,
            identity: BeaconIdentity, measuredPower: MeasuredPower, intervalMilliseconds: Int,
            txPower: Int, position: PlanPoint?, host: String?, expectedAddress: String?,
            location: SourceLocation
        ) {
            self.id = id
            self.name = name
            self.zone = zone
            self.venueID = venueID
            self.fleetName = fleetName
            self.identity = identity
            self.measuredPower = measuredPower
            self.intervalMilliseconds = intervalMilliseconds
            self.txPower = txPower
            self.position = position
            self.host = host
            self.expectedAddress = expectedAddress
            self.location = location
        }

        func copy() -> Storage {
            Storage(
                id: id, name: name, zone: zone, venueID: venueID, fleetName: fleetName,
                identity: identity, measuredPower: measuredPower,
                intervalMilliseconds: intervalMilliseconds, txPower: txPower, position: position,
                host: host, expectedAddress: expectedAddress, location: location)
        }

        func hasSameValue(as other: Storage) -> Bool {
            id == other.id && name == other.name && zone == other.zone
                && venueID == other.venueID && fleetName == other.fleetName
                && identity == other.identity && measuredPower == other.measuredPower
                && intervalMilliseconds == other.intervalMilliseconds && txPower == other.txPower
                && position == other.position && host == other.host
                && expectedAddress == other.expectedAddress && location == other.location
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(name)
            hasher.combine(zone)
            hasher.combine(venueID)
            hasher.combine(fleetName)
            hasher.combine(identity)
            hasher.combine(measuredPower)
            hasher.combine(intervalMilliseconds)
            hasher.combine(txPower)
            hasher.combine(position)
            hasher.combine(host)
            hasher.combine(expectedAddress)
            hasher.combine(location)
        }
    }
}
