import BeaconCore
import FleetManifest

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
