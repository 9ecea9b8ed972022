import BeaconCore
import YAMLDocument

/// Everything read so far across the files of one load: the namespace in which ids,
/// identities and addresses must be unique. Entries are kept in file order, so "the first
/// one" of a duplicate is always the one that comes first in load order.
struct Namespace {
    var files: [String] = []
    var venues: [VenueEntry] = []
    /// Every beacon read, usable or not, in file order; `beaconStates` runs in parallel.
    var beacons: [ResolvedBeacon] = []
    var beaconStates: [BeaconState] = []
    /// Where each expected address was written (only beacons that have one; the file is
    /// the beacon's).
    var addressEntries: [AddressEntry] = []
    var regions: [RegionEntry] = []

    /// A beacon's expected address as the uniqueness check needs it: which beacon, where
    /// the address was written, and `Duplicates.hashHalf` of its 48 bits, taken by the
    /// reader while it had them. Sixteen bytes; the beacon's position fits 32 bits (four
    /// billion beacons would need far more memory than their boxes could have).
    struct AddressEntry {
        var beacon: Int32
        var mark: Mark
        var hash: UInt32

        init(beacon: Int, mark: Mark, hash: UInt32) {
            self.beacon = Int32(truncatingIfNeeded: beacon)
            self.mark = mark
            self.hash = hash
        }
    }

    /// A venue as the checks and the fleet's assembly need it. Its file and fleet name
    /// come from the context its beacons share (96 bytes a venue, where a name and a
    /// location of its own took 128).
    struct VenueEntry {
        var id: String?
        var name: String?
        var context: VenueContext
        var plan: PlanSize?
        var mark: Mark
        /// This venue's beacons in `Namespace.beacons`.
        var beaconRange: Range<Int>
        var isRejected: Bool

        var fleetName: String { context.fleetName }
        var location: SourceLocation {
            SourceLocation(file: context.file, line: Int(mark.line), column: Int(mark.column))
        }
    }

    /// The beacons per host, counted as they are resolved.
    var hostLoads = HostLoads()

    /// What the cross-file checks ask of each beacon, kept beside the boxes, 12 bytes: the
    /// reader starts it, the resolver completes it while each box is at hand, and the
    /// checks then read it instead of reaching into each box again (a cache miss per
    /// beacon and check).
    struct BeaconState {
        /// `Duplicates.hashHalf` of the beacon's id and of its identity, when it has them.
        var idHash: UInt32 = 0
        var identityHash: UInt32 = 0
        /// The inheritable values the beacon sets itself; the rest come from its venue or
        /// the fleet.
        var explicit: ExplicitFields = []
        /// Whether the beacon had an id (an empty placeholder otherwise).
        var hasID = false
        /// Its uuid, major and minor all resolved to valid values.
        var hasIdentity = false
        /// Free of errors so far: reading, then resolving; the cross-file checks may still
        /// reject it.
        var isUsable = true
    }

    struct RegionEntry {
        var id: String?
        var region: ResolvedRegion?
        var location: SourceLocation
    }
}
