import BeaconCore

/// What `fleet plan` is asked to allocate: a venue (new, or one that exists) and groups of
/// beacons, with the numbering scheme to follow.
public struct AllocationRequest: Hashable, Sendable {
    /// Who gets a major of their own.
    public enum MajorScheme: String, Hashable, Sendable, CaseIterable {
        /// One major for the venue: a region on UUID + major is "in this venue".
        case venue
        /// One major per zone: for venues whose zones are floors (see
        /// `fleets/department-store.yaml`), a region per floor.
        case zone
    }

    /// Beacons to add in one zone: `count` of them with generated ids, or the ids given.
    public struct Group: Hashable, Sendable {
        public var zone: String?
        public var beaconIDs: [String]?
        public var count: Int

        public init(zone: String?, count: Int) {
            self.zone = zone
            self.beaconIDs = nil
            self.count = count
        }

        public init(zone: String?, beaconIDs: [String]) {
            self.zone = zone
            self.beaconIDs = beaconIDs
            self.count = beaconIDs.count
        }
    }

    /// The fleet the venue belongs to; `nil` to take it from the venue when it exists.
    public var fleetName: String?
    public var venueID: String
    /// For a new venue: its display name, plan and advertising host.
    public var venueName: String?
    public var plan: PlanSize?
    public var host: String?
    /// The proximity UUID; needed for a new fleet, optional for a new venue (default: the
    /// fleet's).
    public var uuid: ProximityUUID?
    public var groups: [Group]
    public var majorScheme: MajorScheme
    /// The major to use (venue scheme); default: the venue's, or the next free one.
    public var major: UInt16?
    /// What the manifest text declares but the resolved model does not keep: the existing
    /// venue's `major:` and `uuid:`, and its fleet's top-level `uuid:` (see
    /// `AllocationAppend.declarations`). New beacons inherit these.
    public var declaredVenueMajor: UInt16?
    public var declaredVenueUUID: ProximityUUID?
    public var declaredFleetUUID: ProximityUUID?
    /// Where numbering starts; default: after what the major already holds, else 1.
    public var firstMinor: UInt16?
    /// Distance between consecutive minors of a zone.
    public var minorStep: Int
    /// Free slots (of `minorStep` minors) left after each zone for beacons added later.
    public var zoneGap: Int
    /// When set, each new zone starts at a multiple of this (e.g. 10: department × 10).
    public var zoneAlignment: Int?

    public init(
        fleetName: String? = nil, venueID: String, venueName: String? = nil, plan: PlanSize? = nil,
        host: String? = nil, uuid: ProximityUUID? = nil, groups: [Group], majorScheme: MajorScheme = .venue,
        major: UInt16? = nil, declaredVenueMajor: UInt16? = nil, declaredVenueUUID: ProximityUUID? = nil,
        declaredFleetUUID: ProximityUUID? = nil, firstMinor: UInt16? = nil, minorStep: Int = 1,
        zoneGap: Int = 0, zoneAlignment: Int? = nil
    ) {
        self.fleetName = fleetName
        self.venueID = venueID
        self.venueName = venueName
        self.plan = plan
        self.host = host
        self.uuid = uuid
        self.groups = groups
        self.majorScheme = majorScheme
        self.major = major
        self.declaredVenueMajor = declaredVenueMajor
        self.declaredVenueUUID = declaredVenueUUID
        self.declaredFleetUUID = declaredFleetUUID
        self.firstMinor = firstMinor
        self.minorStep = minorStep
        self.zoneGap = zoneGap
        self.zoneAlignment = zoneAlignment
    }
}

/// The identities allocated, ready to be written as manifest YAML.
public struct AllocationPlan: Hashable, Sendable {
    public struct Venue: Hashable, Sendable {
        public var id: String
        public var name: String?
        public var plan: PlanSize?
        public var host: String?
        /// Whether the venue is new (written whole) or exists (only beacons are added).
        public var isNew: Bool
        /// The `major:` written on a new venue (venue scheme).
        public var major: UInt16?
        /// The `uuid:` written on a new venue whose UUID differs from its fleet's.
        public var uuid: ProximityUUID?
    }

    public struct Beacon: Hashable, Sendable {
        public var id: String
        public var zone: String?
        public var identity: BeaconIdentity
        /// Whether the beacon needs its own `major:` (it differs from what the venue gives).
        public var writesMajor: Bool
    }

    public var fleetName: String
    /// The fleet's UUID, and whether the fleet is new (its manifest is written whole).
    public var uuid: ProximityUUID
    public var isNewFleet: Bool
    public var venue: Venue
    public var beacons: [Beacon]
    /// What the allocation had to work around (taken minors, full gaps), for the user.
    public var notes: [String]
}
