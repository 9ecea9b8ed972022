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
                request.venueName.map { _ in "\(UserSetting.venueName)" }, request.plan.map { _ in "\(UserSetting.plan)" },
                request.host.map { _ in "\(UserSetting.host)" },
            ].compactMap { $0 }
            if !extras.isEmpty {
                throw .newVenueOptionOnExistingVenue(venue: existing.id, options: extras, location: existing.location)
            }
        }

        let fleetBeacons = fleet.beacons.filter { $0.fleetName == fleetName }
        let fleetRegions = fleet.regions.filter { $0.fleetName == fleetName }
        // A fleet whose manifest holds nothing yet still has a file, which declared its UUID.
        let isNewFleet = !fleet.venues.contains { $0.fleetName == fleetName } && fleetRegions.isEmpty
            && fleetBeacons.isEmpty && request.declaredFleetUUID == nil
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
            throw .badSetting("\(UserSetting.minorStep) must be 1…10000; got \(request.minorStep)")
        }
        if request.zoneGap < 0 || request.zoneGap > 10_000 {
            throw .badSetting("\(UserSetting.gap) must be 0…10000 free slots; got \(request.zoneGap)")
        }
        if let alignment = request.zoneAlignment, alignment < 1 || alignment > 32_768 {
            throw .badSetting("\(UserSetting.align) must be 1…32768; got \(alignment)")
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
