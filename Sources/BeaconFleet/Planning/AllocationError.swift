import BeaconCore
import FleetManifest

/// Why `fleet plan` cannot allocate what was asked. Each message says what to do next.
public enum AllocationError: Error, Hashable, Sendable, CustomStringConvertible {
    case nothingToAllocate
    case badSetting(String)
    case fleetNotNamed
    case unknownFleet(String, known: [String])
    case fleetWithoutUUID(String)
    case venueInAnotherFleet(venue: String, fleet: String, asked: String)
    case newVenueOptionOnExistingVenue(venue: String, options: [String], location: SourceLocation)
    case uuidDiffersFromVenue(venue: String, venueUUID: ProximityUUID)
    case beaconIDTaken(String, location: SourceLocation)
    case beaconIDRepeated(String)
    case majorTaken(UInt16, by: String)
    case majorWithZoneScheme
    case noFreeMajor(ProximityUUID)
    case noFreeMinor(major: UInt16, zone: String?)

    public var description: String {
        switch self {
        case .nothingToAllocate:
            return "nothing to allocate: name zones (\(UserSetting.zones) entrance,register=2) or beacons (\(UserSetting.beacons) ID[@ZONE],…)"
        case .badSetting(let text):
            return text
        case .fleetNotNamed:
            return "name the fleet the venue belongs to with \(UserSetting.fleet) NAME"
        case .unknownFleet(let name, let known):
            let list = known.isEmpty ? "the namespace holds no fleet" : "fleets: \(known.joined(separator: ", "))"
            return "no fleet `\(name)` in the namespace (\(list)); to start a new fleet give its proximity UUID with \(UserSetting.uuid) (make one with `uuidgen`)"
        case .fleetWithoutUUID(let name):
            return "fleet `\(name)` shows no UUID to inherit (no beacons, regions or top-level `uuid:`); give the new beacons one with \(UserSetting.uuid)"
        case .venueInAnotherFleet(let venue, let fleet, let asked):
            return "venue `\(venue)` belongs to fleet `\(fleet)`, not `\(asked)`; venue ids are unique across the namespace, so choose another id or \(UserSetting.fleet) \(fleet)"
        case .newVenueOptionOnExistingVenue(let venue, let options, let location):
            return "venue `\(venue)` exists (\(location)); \(options.joined(separator: ", ")) only describe a new venue: edit the existing one in its manifest"
        case .uuidDiffersFromVenue(let venue, let venueUUID):
            return "venue `\(venue)` uses the UUID \(venueUUID); new beacons in it share it, so leave out \(UserSetting.uuid)"
        case .beaconIDTaken(let id, let location):
            return "beacon id `\(id)` is taken (\(location)); beacon ids are unique across the namespace"
        case .beaconIDRepeated(let id):
            return "beacon id `\(id)` is asked for twice"
        case .majorTaken(let major, let owner):
            return "major \(major) is already used by \(owner) with this UUID; leave out \(UserSetting.major) to get the next free one"
        case .majorWithZoneScheme:
            return "\(UserSetting.major) gives the venue one major; with \(UserSetting.majorPer) zone each zone gets the next free major instead"
        case .noFreeMajor(let uuid):
            return "every major 0…65535 of \(uuid) is in use; a new venue needs a new UUID (\(UserSetting.uuid))"
        case .noFreeMinor(let major, let zone):
            let place = zone.map { "zone `\($0)`" } ?? "the beacons"
            return "no free minor left for \(place) in major \(major) with this step and start; use a smaller \(UserSetting.minorStep) or \(UserSetting.gap), or a lower \(UserSetting.firstMinor)"
        }
    }
}
