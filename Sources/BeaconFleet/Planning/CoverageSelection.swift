import BeaconCore
import FleetManifest

/// Which maps a `plan coverage` run draws: venues, optionally split or filtered by zone
/// (for venues whose zones are floors), each with its walls.
public struct CoverageRequest: Sendable {
    /// Venue ids to map; empty means every venue that has a plan.
    public var venueIDs: [String]
    /// Only beacons of these zones; empty means all.
    public var zones: [String]
    /// One map per zone of each venue (a venue whose zones are its floors).
    public var byZone: Bool
    /// Settings shared by every map; each venue's walls are added to its model.
    public var settings: CoverageSettings
    public var walls: CoverageWalls

    public init(
        venueIDs: [String] = [], zones: [String] = [], byZone: Bool = false, settings: CoverageSettings = .init(),
        walls: CoverageWalls = .init()
    ) {
        self.venueIDs = venueIDs
        self.zones = zones
        self.byZone = byZone
        self.settings = settings
        self.walls = walls
    }
}

/// Why no map can be drawn for a request. Each says what to do next.
public enum CoverageSelectionError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownVenues([String], known: [String])
    case noPlan(venue: String, location: SourceLocation)
    case noVenueWithPlan(venues: [String])
    case unknownZones([String], venue: String, known: [String])
    case zonesInNoVenue([String])

    public var description: String {
        switch self {
        case .unknownVenues(let unknown, let known):
            let list = known.isEmpty ? "the manifest has no venues" : "venues: \(known.joined(separator: ", "))"
            return "no venue \(unknown.map { "`\($0)`" }.joined(separator: ", ")) in the manifest; \(list)"
        case .noPlan(let venue, let location):
            return "venue `\(venue)` has no plan to map (\(location)); add `plan: {width: W, height: H}` in metres to it"
        case .noVenueWithPlan(let venues):
            if venues.isEmpty { return "the manifest has no venues to map" }
            return "none of the venues has a plan (\(venues.joined(separator: ", "))); add `plan: {width: W, height: H}` in metres to the ones to map"
        case .unknownZones(let unknown, let venue, let known):
            let list = known.isEmpty ? "its beacons have no zones" : "its zones: \(known.joined(separator: ", "))"
            return "venue `\(venue)` has no zone \(unknown.map { "`\($0)`" }.joined(separator: ", ")); \(list)"
        case .zonesInNoVenue(let zones):
            return "no venue with a plan has a beacon in zone \(zones.map { "`\($0)`" }.joined(separator: ", ")); check the zone names with \(UserCommand.fleetExport)"
        }
    }
}

/// One map to draw.
public struct CoverageJob: Sendable {
    public var venue: CoverageVenue
    public var settings: CoverageSettings
}

extension CoverageRequest {
    /// The maps this request asks of `fleet`, and notes for the user (venues skipped for
    /// want of a plan, beacons left off for want of a position, walls for unknown venues).
    public func jobs(in fleet: Fleet) throws(CoverageSelectionError) -> (jobs: [CoverageJob], notes: [String]) {
        var notes: [String] = []
        let venues: [ResolvedVenue]
        if venueIDs.isEmpty {
            venues = fleet.venues.filter { $0.plan != nil }
            guard !venues.isEmpty else { throw .noVenueWithPlan(venues: fleet.venues.map(\.id)) }
            for venue in fleet.venues where venue.plan == nil {
                notes.append("venue `\(venue.id)` has no plan and is not mapped (\(venue.location))")
            }
        } else {
            let byID = Dictionary(fleet.venues.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let unknown = venueIDs.filter { byID[$0] == nil }
            guard unknown.isEmpty else { throw .unknownVenues(unknown, known: fleet.venues.map(\.id)) }
            var seen = Set<String>()
            venues = venueIDs.filter { seen.insert($0).inserted }.compactMap { byID[$0] }
            if let unplanned = venues.first(where: { $0.plan == nil }) {
                throw .noPlan(venue: unplanned.id, location: unplanned.location)
            }
        }
        let known = Set(fleet.venues.map(\.id))
        for venue in walls.walls.keys.sorted() where !known.contains(venue) {
            notes.append("the walls file names venue `\(venue)`, which is not in the manifest; its walls are ignored")
        }

        var jobs: [CoverageJob] = []
        for venue in venues {
            var settings = self.settings
            settings.environment.obstacles += walls.walls(for: venue.id)
            let zonesInVenue = orderedZones(of: venue)
            if !zones.isEmpty {
                let unknownZones = zones.filter { !zonesInVenue.contains($0) }
                guard unknownZones.isEmpty || venueIDs.isEmpty else {
                    throw .unknownZones(unknownZones, venue: venue.id, known: zonesInVenue)
                }
            }
            let selected = zones.isEmpty ? zonesInVenue : zonesInVenue.filter(zones.contains)
            // Mapping every venue for some zones: the venues without them have nothing to show.
            if !zones.isEmpty && selected.isEmpty { continue }
            if byZone {
                for zone in selected {
                    if let map = CoverageVenue(venue, zones: [zone], floor: zone) {
                        jobs.append(CoverageJob(venue: map, settings: settings))
                    }
                }
                let zoneless = venue.beacons.filter { $0.zone == nil }.map(\.id)
                if !zoneless.isEmpty {
                    notes.append("venue `\(venue.id)`: \(zoneless.joined(separator: ", ")) \(zoneless.count == 1 ? "has" : "have") no zone and \(zoneless.count == 1 ? "is" : "are") on no floor's map")
                }
            } else if let map = CoverageVenue(
                venue, zones: zones.isEmpty ? nil : Set(zones),
                floor: zones.isEmpty ? nil : selected.joined(separator: "+"))
            {
                jobs.append(CoverageJob(venue: map, settings: settings))
            }
        }
        if jobs.isEmpty && !zones.isEmpty { throw .zonesInNoVenue(zones) }
        for job in jobs where !job.venue.unplacedBeaconIDs.isEmpty {
            let ids = job.venue.unplacedBeaconIDs
            notes.append("\(job.venue.fileStem): \(ids.joined(separator: ", ")) \(ids.count == 1 ? "has" : "have") no position and \(ids.count == 1 ? "is" : "are") left off the map")
        }
        return (jobs, notes)
    }

    /// The venue's zones in the order they first appear.
    private func orderedZones(of venue: ResolvedVenue) -> [String] {
        var seen = Set<String>()
        return venue.beacons.compactMap(\.zone).filter { seen.insert($0).inserted }
    }
}
