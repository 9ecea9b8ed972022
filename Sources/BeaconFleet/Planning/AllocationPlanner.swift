import BeaconCore
import FleetManifest

/// Allocates identities for new beacons without colliding with anything the namespace
/// holds: identities of every fleet, beacon ids, and majors that regions already watch.
public enum AllocationPlanner {
    public static func plan(_ request: AllocationRequest, in fleet: Fleet) throws(AllocationError) -> AllocationPlan {
        try checkSettings(request)
        var state = NamespaceState(fleet)
        let existing = fleet.venues.first { $0.id == request.venueID }
        let fleetName = try resolveFleetName(request, existing: existing, fleet: fleet)
        if let existing {
            let extras = [
                request.venueName.map { _ in "--venue-name" }, request.plan.map { _ in "--plan" },
                request.host.map { _ in "--host" },
            ].compactMap { $0 }
            if !extras.isEmpty {
                throw .newVenueOptionOnExistingVenue(venue: existing.id, options: extras, location: existing.location)
            }
        }

        let fleetBeacons = fleet.beacons.filter { $0.fleetName == fleetName }
        let fleetRegions = fleet.regions.filter { $0.fleetName == fleetName }
        let isNewFleet = !fleet.venues.contains { $0.fleetName == fleetName } && fleetRegions.isEmpty && fleetBeacons.isEmpty
        // Regions inherit only the fleet's UUID, so they show it even without beacons.
        let fleetUUID = mostCommon(fleetBeacons.map(\.identity.uuid)) ?? mostCommon(fleetRegions.map(\.region.uuid))
            ?? request.declaredFleetUUID
        let uuid: ProximityUUID
        if let existing, let venueUUID = mostCommon(existing.beacons.map(\.identity.uuid)) ?? request.declaredVenueUUID ?? fleetUUID {
            if let asked = request.uuid, asked != venueUUID { throw .uuidDiffersFromVenue(venue: existing.id, venueUUID: venueUUID) }
            uuid = venueUUID
        } else if let asked = request.uuid ?? fleetUUID {
            uuid = asked
        } else if isNewFleet {
            throw .unknownFleet(fleetName, known: orderedUnique(fleet.venues.map(\.fleetName) + fleet.regions.map(\.fleetName)))
        } else {
            throw .fleetWithoutUUID(fleetName)
        }

        var notes: [String] = []
        var allocator = MinorAllocator(request: request, uuid: uuid, state: state)
        let venueBeacons = existing?.beacons.filter { $0.identity.uuid == uuid } ?? []
        // What a beacon added to the venue inherits without a `major:` of its own.
        let inheritedMajor: UInt16?
        var venueMajor: UInt16?
        switch request.majorScheme {
        case .venue:
            if let existing {
                let majors = existing.beacons.map(\.identity.major)
                venueMajor = request.declaredVenueMajor ?? mostCommon(majors)
                if Set(majors).count > 1, let venueMajor {
                    notes.append("venue `\(existing.id)` uses several majors; the new beacons take \(venueMajor)")
                }
            }
            if let asked = request.major, asked != venueMajor {
                if let owner = state.majorOwner(uuid: uuid, major: asked) { throw .majorTaken(asked, by: owner) }
                venueMajor = asked
            }
            if venueMajor == nil { venueMajor = try state.nextFreeMajor(uuid: uuid) }
        case .zone:
            if request.major != nil { throw .majorWithZoneScheme }
        }
        inheritedMajor = existing == nil ? venueMajor : request.declaredVenueMajor

        var beacons: [AllocationPlan.Beacon] = []
        var ids = BeaconIDAllocator(venueID: request.venueID, state: state)
        for group in request.groups {
            let zoneBeacons = venueBeacons.filter { group.zone != nil && $0.zone == group.zone }
            let major: UInt16
            if let venueMajor {
                major = venueMajor
            } else if let zoneMajor = mostCommon(zoneBeacons.map(\.identity.major)) {
                major = zoneMajor
            } else {
                major = try state.nextFreeMajor(uuid: uuid)
                state.reserveMajor(uuid: uuid, major: major, for: "zone `\(group.zone ?? "")` of `\(request.venueID)`")
            }
            let existingMinors = zoneBeacons.filter { $0.identity.major == major }.map(\.identity.minor)
            let minors = try allocator.allocate(
                count: group.count, zone: group.zone, major: major, continuing: existingMinors.max(), notes: &notes)
            let beaconIDs = try group.beaconIDs.map { explicit throws(AllocationError) in try ids.take(explicit) }
                ?? ids.generate(count: group.count, zone: group.zone, existingInZone: zoneBeacons.count)
            for (id, minor) in zip(beaconIDs, minors) {
                beacons.append(AllocationPlan.Beacon(
                    id: id, zone: group.zone, identity: BeaconIdentity(uuid: uuid, major: major, minor: minor),
                    writesMajor: major != inheritedMajor))
            }
        }

        let venue = AllocationPlan.Venue(
            id: request.venueID, name: existing?.name ?? request.venueName, plan: existing?.plan ?? request.plan,
            host: request.host, isNew: existing == nil, major: existing == nil ? venueMajor : nil,
            uuid: existing == nil && !isNewFleet && uuid != fleetUUID ? uuid : nil)
        return AllocationPlan(
            fleetName: fleetName, uuid: isNewFleet ? uuid : (fleetUUID ?? uuid), isNewFleet: isNewFleet, venue: venue,
            beacons: beacons, notes: notes)
    }

    private static func checkSettings(_ request: AllocationRequest) throws(AllocationError) {
        if request.groups.isEmpty { throw .nothingToAllocate }
        if request.venueID.isEmpty { throw .badSetting("the venue id must not be empty") }
        for group in request.groups where group.count < 1 {
            throw .badSetting("zone `\(group.zone ?? "")` asks for \(group.count) beacons; ask for at least 1")
        }
        if request.minorStep < 1 || request.minorStep > 10_000 {
            throw .badSetting("--minor-step must be 1…10000; got \(request.minorStep)")
        }
        if request.zoneGap < 0 || request.zoneGap > 10_000 {
            throw .badSetting("--gap must be 0…10000 free slots; got \(request.zoneGap)")
        }
        if let alignment = request.zoneAlignment, alignment < 1 || alignment > 32_768 {
            throw .badSetting("--align must be 1…32768; got \(alignment)")
        }
    }

    private static func resolveFleetName(
        _ request: AllocationRequest, existing: ResolvedVenue?, fleet: Fleet
    ) throws(AllocationError) -> String {
        if let existing {
            if let asked = request.fleetName, asked != existing.fleetName {
                throw .venueInAnotherFleet(venue: existing.id, fleet: existing.fleetName, asked: asked)
            }
            return existing.fleetName
        }
        guard let name = request.fleetName else { throw .fleetNotNamed }
        return name
    }

    /// The most frequent value, the smallest among equally frequent ones (so the choice is
    /// stable); `nil` for no values.
    static func mostCommon<Value: Hashable & Comparable>(_ values: [Value]) -> Value? {
        var counts: [Value: Int] = [:]
        for value in values { counts[value, default: 0] += 1 }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }

    static func orderedUnique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}

/// What the namespace already uses, updated as the allocation takes more.
struct NamespaceState {
    /// Who holds each identity, by beacon id.
    var identityOwners: [BeaconIdentity: String] = [:]
    /// Majors in use per UUID, with who uses them ("beacon `x`", "region `y`").
    var majorOwners: [ProximityUUID: [UInt16: String]] = [:]
    var beaconIDs: [String: SourceLocation] = [:]

    init(_ fleet: Fleet) {
        for beacon in fleet.beacons {
            identityOwners[beacon.identity] = beacon.id
            beaconIDs[beacon.id] = beacon.location
            if majorOwners[beacon.identity.uuid]?[beacon.identity.major] == nil {
                majorOwners[beacon.identity.uuid, default: [:]][beacon.identity.major] =
                    "venue `\(beacon.venueID)` (beacon `\(beacon.id)`)"
            }
        }
        // A region that names a major would start matching whatever gets that major next.
        for region in fleet.regions {
            if let major = region.region.major, majorOwners[region.region.uuid]?[major] == nil {
                majorOwners[region.region.uuid, default: [:]][major] = "region `\(region.region.identifier)`"
            }
        }
    }

    func majorOwner(uuid: ProximityUUID, major: UInt16) -> String? { majorOwners[uuid]?[major] }

    mutating func reserveMajor(uuid: ProximityUUID, major: UInt16, for owner: String) {
        majorOwners[uuid, default: [:]][major] = owner
    }

    /// The major after the highest one in use (the way store numbers grow), or the lowest
    /// free one once 65535 is taken.
    func nextFreeMajor(uuid: ProximityUUID) throws(AllocationError) -> UInt16 {
        let used = majorOwners[uuid] ?? [:]
        guard let highest = used.keys.max() else { return 1 }
        if highest < UInt16.max { return highest + 1 }
        guard let free = (UInt16(0)...UInt16.max).first(where: { used[$0] == nil }) else { throw .noFreeMajor(uuid) }
        return free
    }
}

/// Hands out minors zone by zone: consecutive `minorStep`s within a zone, `zoneGap` free
/// slots after each, new zones aligned when asked, never a minor the major already holds.
struct MinorAllocator {
    let request: AllocationRequest
    let uuid: ProximityUUID
    var state: NamespaceState
    /// Where the next new zone starts, per major.
    var cursors: [UInt16: Int] = [:]

    init(request: AllocationRequest, uuid: ProximityUUID, state: NamespaceState) {
        self.request = request
        self.uuid = uuid
        self.state = state
    }

    var step: Int { request.minorStep }

    private func owner(_ minor: Int, major: UInt16) -> String? {
        state.identityOwners[BeaconIdentity(uuid: uuid, major: major, minor: UInt16(minor))]
    }

    private func firstCursor(major: UInt16) -> Int {
        if let first = request.firstMinor { return Int(first) }
        let used = state.identityOwners.keys.filter { $0.uuid == uuid && $0.major == major }.map { Int($0.minor) }
        guard let highest = used.max() else { return 1 }
        return highest + step * (1 + request.zoneGap)
    }

    private func aligned(_ value: Int) -> Int {
        guard let alignment = request.zoneAlignment else { return value }
        let remainder = value % alignment
        return remainder == 0 ? value : value + alignment - remainder
    }

    /// `count` free minors for a zone of `major`. An existing zone (`continuing` = its
    /// highest minor) grows into the gap after it; a new zone starts at the cursor.
    mutating func allocate(
        count: Int, zone: String?, major: UInt16, continuing: UInt16?, notes: inout [String]
    ) throws(AllocationError) -> [UInt16] {
        let isNewZone = continuing == nil
        var candidate: Int
        if let continuing {
            candidate = Int(continuing) + step
        } else {
            candidate = aligned(cursors[major] ?? firstCursor(major: major))
        }
        var minors: [UInt16] = []
        var skipped: [String] = []
        while minors.count < count {
            guard candidate <= Int(UInt16.max) else { throw .noFreeMinor(major: major, zone: zone) }
            if let owner = owner(candidate, major: major) {
                skipped.append("\(candidate) (`\(owner)`)")
            } else {
                minors.append(UInt16(candidate))
                state.identityOwners[BeaconIdentity(uuid: uuid, major: major, minor: UInt16(candidate))] = "another new beacon"
            }
            candidate += step
        }
        if !skipped.isEmpty {
            let place = zone.map { "zone `\($0)`" } ?? "the new beacons"
            let list = skipped.prefix(5).joined(separator: ", ") + (skipped.count > 5 ? ", …" : "")
            notes.append("\(place) skipped minors already in use in major \(major): \(list)")
        }
        // The next new zone starts after this one and its gap; a zone that grew past the
        // cursor pushes it on too, so the next zone does not start inside it.
        if let last = minors.last, isNewZone || cursors[major].map({ $0 <= Int(last) }) == true {
            cursors[major] = max(cursors[major] ?? 0, Int(last) + step * (1 + request.zoneGap))
        }
        return minors
    }
}

/// Beacon ids for new beacons: `VENUE-ZONE` for a lone beacon of a new zone, else
/// `VENUE-ZONE-N` numbered on from the zone's existing beacons; never an id in use.
struct BeaconIDAllocator {
    let venueID: String
    var taken: [String: SourceLocation]
    var given = Set<String>()

    init(venueID: String, state: NamespaceState) {
        self.venueID = venueID
        taken = state.beaconIDs
    }

    mutating func take(_ ids: [String]) throws(AllocationError) -> [String] {
        for id in ids {
            if id.isEmpty { throw .badSetting("a beacon id must not be empty") }
            if let location = taken[id] { throw .beaconIDTaken(id, location: location) }
            guard given.insert(id).inserted else { throw .beaconIDRepeated(id) }
        }
        return ids
    }

    mutating func generate(count: Int, zone: String?, existingInZone: Int) -> [String] {
        let base = venueID + "-" + (zone.map(Self.slug) ?? "beacon")
        if count == 1, existingInZone == 0, isFree(base) {
            given.insert(base)
            return [base]
        }
        var ids: [String] = []
        var number = existingInZone + 1
        while ids.count < count {
            let id = "\(base)-\(number)"
            if isFree(id) {
                ids.append(id)
                given.insert(id)
            }
            number += 1
        }
        return ids
    }

    private func isFree(_ id: String) -> Bool { taken[id] == nil && !given.contains(id) }

    /// A zone name as an id part: lower case, runs of anything but letters and digits
    /// turned into one hyphen ("Drive-thru Window" → "drive-thru-window").
    static func slug(_ zone: String) -> String {
        var result = ""
        var pendingHyphen = false
        for character in zone.lowercased() {
            if character.isLetter || character.isNumber {
                if pendingHyphen && !result.isEmpty { result.append("-") }
                pendingHyphen = false
                result.append(character)
            } else {
                pendingHyphen = true
            }
        }
        return result.isEmpty ? "zone" : result
    }
}
