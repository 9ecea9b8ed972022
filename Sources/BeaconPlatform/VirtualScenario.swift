import BeaconCore
import FleetManifest
import HCI
import VirtualRadio

/// A fleet manifest laid out on a virtual air: every beacon with a `position` advertises
/// from that point of its venue's plan, whichever virtual controller its host uses, and
/// scanners can be opened at named places.
///
/// Venues lie side by side on the air, each plan `venueSpacing` metres from the previous
/// one: far beyond any BLE range, so a venue never hears another's beacons.
///
/// Places defined (open them as `virtual:AIR/PLACE`):
/// - `VENUE` — the centre of the venue's plan; `VENUE@X,Y` is the point (X, Y) of the plan;
/// - `BEACON` — 1 m to the right of the beacon (+x), the distance at which measured power
///   is defined: where `calibrate` stands;
/// - `VENUE/tour` — a walk from beacon to beacon of the venue, in manifest order, at
///   `walkSpeed`, starting when the scanner opens: where an audit walks.
///
/// A beacon without a position is not placed: it advertises from wherever its controller
/// was opened.
public struct VirtualScenario: Sendable {
    /// Metres between one venue's plan and the next on the air.
    public static let venueSpacing = 10_000.0
    /// The distance of a beacon's place from the beacon.
    public static let calibrationDistance = 1.0
    /// Suffix of a venue's walk place.
    public static let tourSuffix = "/tour"

    public let air: VirtualAir
    /// Where each venue's plan (its top-left corner) lies on the air, by venue id.
    public let venueOrigins: [String: PlanPoint]
    /// Where each placed beacon advertises from on the air, by beacon id.
    public let beaconPositions: [String: PlanPoint]
    /// The places this scenario defined, sorted.
    public let placeNames: [String]

    /// Lays `fleet` out on `air`: beacon placements and places are added to the air (an
    /// existing place of the same name is replaced).
    public init(fleet: Fleet, on air: VirtualAir, walkSpeed: Double = 1.0) {
        self.air = air
        var origins: [String: PlanPoint] = [:]
        var positions: [String: PlanPoint] = [:]
        var places: [String] = []
        var nextX = 0.0
        for venue in fleet.venues {
            let origin = PlanPoint(x: nextX, y: 0)
            origins[venue.id] = origin
            let extent = Self.extent(of: venue)
            nextX += extent.width + Self.venueSpacing

            func onAir(_ point: PlanPoint) -> PlanPoint { PlanPoint(x: origin.x + point.x, y: origin.y + point.y) }
            let centre = onAir(PlanPoint(x: extent.width / 2, y: extent.height / 2))
            air.definePlace(venue.id, VirtualPlace(motion: .fixed(centre), planOrigin: origin))
            places.append(venue.id)

            var tour: [PlanPoint] = []
            for beacon in venue.beacons {
                guard let position = beacon.position else { continue }
                let placed = onAir(position)
                positions[beacon.id] = placed
                tour.append(placed)
                air.placeBeacon(beacon.identity, at: placed)
                air.definePlace(beacon.id, .point(PlanPoint(x: placed.x + Self.calibrationDistance, y: placed.y)))
                places.append(beacon.id)
            }
            if let walk = try? Walk(waypoints: tour, speed: walkSpeed) {
                air.definePlace(venue.id + Self.tourSuffix, VirtualPlace(motion: .walking(walk)))
                places.append(venue.id + Self.tourSuffix)
            }
        }
        venueOrigins = origins
        beaconPositions = positions
        placeNames = places.sorted()
    }

    /// The size a venue takes on the air: its plan, or the box around its beacons when the
    /// plan is missing or too small for them.
    private static func extent(of venue: ResolvedVenue) -> PlanSize {
        var width = venue.plan?.width ?? 0
        var height = venue.plan?.height ?? 0
        for position in venue.beacons.compactMap(\.position) {
            width = max(width, position.x)
            height = max(height, position.y)
        }
        return PlanSize(width: width, height: height)
    }
}
