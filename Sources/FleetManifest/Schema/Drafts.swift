import BeaconCore
import YAMLDocument

/// A value and where it was written.
struct Located<Value> {
    var value: Value
    var mark: Mark
}

/// Values one level of the manifest gives to the levels below it (fleet → venue → beacon).
struct InheritableSettings {
    var uuid: Located<ProximityUUID>?
    var major: Located<UInt16>?
    var measuredPower: MeasuredPower?
    var intervalMilliseconds: Int?
    var txPower: Int?
    var host: String?
    var batteryLow: BatteryLevel?
    var batteryType: BatteryType?
    /// Fields written at this level but invalid (already reported): whatever would
    /// inherit them is unusable.
    var invalid = FieldSet()
}

/// Which inheritable values a beacon sets itself; the rest come from its venue or the fleet.
struct ExplicitFields: OptionSet {
    let rawValue: UInt8
    static let uuid = ExplicitFields(rawValue: 1 << 0)
    static let major = ExplicitFields(rawValue: 1 << 1)
    static let minor = ExplicitFields(rawValue: 1 << 2)
    static let measuredPower = ExplicitFields(rawValue: 1 << 3)
    static let intervalMilliseconds = ExplicitFields(rawValue: 1 << 4)
    static let txPower = ExplicitFields(rawValue: 1 << 5)
    static let host = ExplicitFields(rawValue: 1 << 6)
}

struct VenueDraft {
    var id: String?
    var name: String?
    var settings = InheritableSettings()
    var plan: PlanSize?
    /// This venue's beacons in `DocumentDraft.beacons`.
    var beaconRange: Range<Int> = 0..<0
    /// The `plan` key has been read: `plan` is final (nil when it was invalid).
    var planIsSettled = false
    var location: Mark
    var isRejected = false
}

struct RegionDraft {
    var id: String?
    var uuid: Located<ProximityUUID>?
    var major: UInt16?
    var minor: Located<UInt16>?
    var notifyOnEntry = true
    var notifyOnExit = true
    var notifyStateOnStart = false
    var location: Mark
    var isRejected = false
}

/// One YAML document of a manifest, as read.
struct DocumentDraft {
    var version: Located<Int>?
    var fleetName: String?
    /// The top-level `uuid` and the `defaults` mapping.
    var settings = InheritableSettings()
    var maxBeaconsPerHost: Int?
    var venues: [VenueDraft] = []
    /// Every beacon of the document, venue after venue. Values are written straight into
    /// the `ResolvedBeacon` boxes they will be, so a beacon is stored once while reading;
    /// inherited values are filled in when the document is complete.
    var beacons: [ResolvedBeacon] = []
    /// What the reader learnt about each beacon besides its values (which fields it sets
    /// itself, whether it has an id, whether it had errors), in parallel with `beacons`;
    /// the resolver completes these and hands them on to the namespace as they are.
    var beaconStates: [Namespace.BeaconState] = []
    /// Where positions and addresses were written, by index into `beacons`, in order.
    /// Positions only where the resolver must look at them: those read before their
    /// venue's plan, and those off it.
    var positionMarks: [(beacon: Int, mark: Mark)] = []
    var addressMarks: [Namespace.AddressEntry] = []
    var regions: [RegionDraft] = []
    /// Where the top-level mapping starts, for "missing field" errors.
    var location = Mark.startOfFile

    init() {}

    /// A draft with room for the beacons and venues a text of `byteCount` bytes is likely
    /// to hold. Grown one doubling at a time, these arrays would be copied some 17 times
    /// at 100 000 beacons and each copy written into pages never touched before; reserved
    /// once, only the pages the beacons fill are ever touched (the rest of the reservation
    /// is address space, not memory). A beacon takes 64 bytes of text or more in practice
    /// (the generated benchmark fleet: 170); a file of more beacons than that only grows
    /// the arrays as before.
    init(expectedTextBytes byteCount: Int) {
        let beacons = byteCount / 64
        self.beacons.reserveCapacity(beacons)
        beaconStates.reserveCapacity(beacons)
        addressMarks.reserveCapacity(beacons)
        venues.reserveCapacity(byteCount / 2048)
    }
}
