import BeaconCore

/// A beacon of the manifest with every inherited value applied (fleet `defaults` → venue →
/// beacon): what gets advertised and what an audit expects to hear.
///
/// Stored compactly, because fleets get large: the fields live in a copy-on-write box, so
/// `Fleet.beacons` and the venue's `beacons` share one copy and copying a beacon costs a
/// reference count; the venue id, fleet name and file, identical for all beacons of a
/// venue, are shared by those beacons; the address is its 48 bits (`BluetoothAddress`), not
/// a 17-character String. None of this shows: it behaves as a plain value.
public struct ResolvedBeacon: Hashable, Sendable {
    private var storage: Storage

    public init(
        id: String, name: String? = nil, zone: String? = nil, venueID: String, fleetName: String,
        identity: BeaconIdentity, measuredPower: MeasuredPower = .auto,
        intervalMilliseconds: Int = 100, txPower: Int = 0, position: PlanPoint? = nil,
        host: String? = nil, expectedAddress: BluetoothAddress? = nil, location: SourceLocation
    ) {
        storage = Storage(
            venue: VenueContext(venueID: venueID, fleetName: fleetName, file: location.file),
            id: id, identity: identity, line: location.line, column: location.column)
        storage.name = name
        storage.zone = zone
        storage.measuredPower = measuredPower
        storage.intervalMilliseconds = intervalMilliseconds
        storage.txPower = txPower
        storage.position = position
        storage.host = host
        storage.address = expectedAddress
    }

    /// An empty beacon for the reader to fill in: no id yet, the zero identity.
    init(venue: VenueContext, line: Int, column: Int) {
        storage = Storage(
            venue: venue, id: "", identity: BeaconIdentity(uuid: .zero, major: 0, minor: 0),
            line: line, column: column)
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
        get { storage.venue.venueID }
        set {
            let venue = storage.venue
            uniqueStorage().venue = VenueContext(venueID: newValue, fleetName: venue.fleetName, file: venue.file)
        }
    }
    public var fleetName: String {
        get { storage.venue.fleetName }
        set {
            let venue = storage.venue
            uniqueStorage().venue = VenueContext(venueID: venue.venueID, fleetName: newValue, file: venue.file)
        }
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
    /// The advertiser address the audit expects (`mac:`).
    public var expectedAddress: BluetoothAddress? {
        get { storage.address }
        set { uniqueStorage().address = newValue }
    }
    /// What the manifest says of its battery (`battery_low`, `battery`, `telemetry_mac`,
    /// inherited like the radio settings); `nil` when nothing is said.
    public var battery: BeaconBattery? {
        get { storage.battery }
        set { uniqueStorage().battery = newValue }
    }
    /// Where the beacon's mapping starts (its `- id:` line).
    public var location: SourceLocation {
        get { SourceLocation(file: storage.venue.file, line: storage.line, column: storage.column) }
        set {
            let venue = storage.venue
            let box = uniqueStorage()
            if venue.file != newValue.file {
                box.venue = VenueContext(venueID: venue.venueID, fleetName: venue.fleetName, file: newValue.file)
            }
            box.line = newValue.line
            box.column = newValue.column
        }
    }

    /// Completes a beacon as read: its venue's shared context (one object per venue) and
    /// the values it inherits, `nil` keeping what it has. One write into the box, instead
    /// of a uniqueness check and a store per property.
    mutating func complete(
        venue: VenueContext, uuid: ProximityUUID?, major: UInt16?, measuredPower: MeasuredPower?,
        intervalMilliseconds: Int?, txPower: Int?, host: String?, battery: BeaconBattery?? = nil
    ) {
        let box = uniqueStorage()
        if let battery { box.battery = battery }
        box.venue = venue
        if let uuid { box.identity.uuid = uuid }
        if let major { box.identity.major = major }
        if let measuredPower { box.measuredPower = measuredPower }
        if let intervalMilliseconds { box.intervalMilliseconds = intervalMilliseconds }
        if let txPower { box.txPower = txPower }
        if let host { box.host = host }
    }

    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public static func == (lhs: ResolvedBeacon, rhs: ResolvedBeacon) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.hasSameValue(as: rhs.storage)
    }

    public func hash(into hasher: inout Hasher) {
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
        hasher.combine(battery)
        hasher.combine(location)
    }
}

/// What all beacons of one venue have in common, shared by reference.
final class VenueContext: Sendable {
    let venueID: String
    let fleetName: String
    let file: String

    init(venueID: String, fleetName: String, file: String) {
        self.venueID = venueID
        self.fleetName = fleetName
        self.file = file
    }
}

extension ResolvedBeacon {
    /// The box behind `ResolvedBeacon`. Mutated only through `uniqueStorage()` (never while
    /// shared), which is what makes the unchecked `Sendable` sound.
    ///
    /// Swift lays a class's fields out in the order they are declared, and this order
    /// leaves no padding: 168 bytes with the object header (the battery's reference
    /// included), still a 176-byte malloc chunk. In the
    /// order of the public properties it took 177 bytes (with the address as text), and a
    /// 192-byte chunk per beacon (1.6 MB more at 100 000 beacons). The 8-byte fields come
    /// first; the 20-byte identity and the 4-byte line fill a multiple of 8; the 9-byte
    /// optional address is followed by the 2-, 1- and 4-byte fields that fill its tail.
    private final class Storage: @unchecked Sendable {
        var venue: VenueContext
        var id: String
        var name: String?
        var zone: String?
        var host: String?
        /// A shared reference: beacons inheriting the same battery values hold one object.
        var battery: BeaconBattery?
        var intervalMilliseconds = 100
        var txPower = 0
        private var positionX = 0.0
        private var positionY = 0.0
        var identity: BeaconIdentity
        /// Lines and columns are kept in 32 bits, as the reader's marks are: a manifest
        /// has no more lines than its size limit allows bytes.
        private var line32: Int32
        var address: BluetoothAddress?
        var measuredPower: MeasuredPower = .auto
        /// Whether `positionX`/`positionY` hold a position. Kept apart from the
        /// coordinates because an optional `PlanPoint` takes a padded 24 bytes.
        private var hasPosition = false
        private var column32: Int32

        var line: Int {
            get { Int(line32) }
            set { line32 = Int32(clamping: newValue) }
        }
        var column: Int {
            get { Int(column32) }
            set { column32 = Int32(clamping: newValue) }
        }

        var position: PlanPoint? {
            get { hasPosition ? PlanPoint(x: positionX, y: positionY) : nil }
            set {
                hasPosition = newValue != nil
                positionX = newValue?.x ?? 0
                positionY = newValue?.y ?? 0
            }
        }

        init(venue: VenueContext, id: String, identity: BeaconIdentity, line: Int, column: Int) {
            self.venue = venue
            self.id = id
            self.identity = identity
            line32 = Int32(clamping: line)
            column32 = Int32(clamping: column)
        }

        func copy() -> Storage {
            let copy = Storage(venue: venue, id: id, identity: identity, line: line, column: column)
            copy.name = name
            copy.zone = zone
            copy.host = host
            copy.measuredPower = measuredPower
            copy.intervalMilliseconds = intervalMilliseconds
            copy.txPower = txPower
            copy.position = position
            copy.address = address
            copy.battery = battery
            return copy
        }

        func hasSameValue(as other: Storage) -> Bool {
            id == other.id && name == other.name && zone == other.zone && host == other.host
                && line == other.line && column == other.column && identity == other.identity
                && measuredPower == other.measuredPower
                && intervalMilliseconds == other.intervalMilliseconds && txPower == other.txPower
                && position == other.position && address == other.address && battery == other.battery
                && (venue === other.venue
                    || (venue.venueID == other.venue.venueID && venue.fleetName == other.venue.fleetName
                        && venue.file == other.venue.file))
        }
    }
}
