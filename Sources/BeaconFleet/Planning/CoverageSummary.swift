import BeaconCore

/// The numbers of a coverage map: what share of the plan is covered, dead or crowded, how
/// phones would class the nearest beacon, and where two beacons tie for strongest.
/// Areas are in square metres, RSSIs in dBm, coordinates in metres on the plan; the JSON
/// form (`--format json`) is this structure with snake_case keys.
public struct CoverageSummary: Codable, Hashable, Sendable {
    public struct Plan: Codable, Hashable, Sendable {
        public var width: Double
        public var height: Double
        public var area: Double
    }

    public struct Settings: Codable, Hashable, Sendable {
        public var resolution: Double
        public var pathLossExponent: Double
        public var walls: Int
        public var threshold: Double
        public var deadBelow: Double
        public var crowdedAt: Int
        public var crowdedThreshold: Double
        public var tieMargin: Double
        public var immediateBelow: Double
        public var nearBelow: Double
        public var airFromMeasuredPower: Bool
    }

    public struct Beacon: Codable, Hashable, Sendable {
        public var id: String
        public var zone: String?
        public var x: Double
        public var y: Double
        public var txPower: Double
        public var measuredPower: Double
        /// Area where this beacon is the strongest: where phones would call it nearest.
        public var strongestArea: Double
    }

    /// A share of the plan.
    public struct Share: Codable, Hashable, Sendable {
        public var area: Double
        public var percent: Double
    }

    public struct Region: Codable, Hashable, Sendable {
        /// For ties, the two beacons; empty otherwise.
        public var beacons: [String]
        public var area: Double
        /// A point inside the region (metres).
        public var x: Double
        public var y: Double
        public var minX: Double
        public var minY: Double
        public var maxX: Double
        public var maxY: Double
    }

    /// Areas of the plan, with the regions they are made of (the largest few).
    public struct Zones: Codable, Hashable, Sendable {
        public var area: Double
        public var percent: Double
        public var regionCount: Int
        public var regions: [Region]
    }

    public struct ProximityShares: Codable, Hashable, Sendable {
        public var immediate: Share
        public var near: Share
        public var far: Share
        public var unknown: Share
    }

    /// The cell where even the strongest beacon is weakest: the hardest spot to serve.
    public struct WeakestPoint: Codable, Hashable, Sendable {
        public var rssi: Double
        public var beacon: String
        public var x: Double
        public var y: Double
    }

    public var venue: String
    public var name: String?
    public var floor: String?
    public var plan: Plan
    public var settings: Settings
    public var beacons: [Beacon]
    public var unplacedBeacons: [String]
    public var coverage: Share
    public var deadZones: Zones
    public var crowded: Zones
    public var ties: Zones
    public var proximity: ProximityShares
    public var weakest: WeakestPoint?

    /// Regions listed per kind; the rest are counted in `regionCount`.
    public static let listedRegions = 8
}

extension CoverageMap {
    /// The map's numbers, rounded for people (areas and coordinates to 0.01, percentages
    /// to 0.1).
    public var summary: CoverageSummary {
        let grid = self.grid
        let planArea = venue.plan.width * venue.plan.height
        var covered = 0.0
        var strongestArea = [Double](repeating: 0, count: venue.beacons.count)
        var proximityArea: [Proximity: Double] = [:]
        var weakestCell: Int?
        for cell in 0..<grid.cellCount {
            let area = grid.area(of: cell)
            if isCovered(cell) { covered += area }
            if let beacon = strongest[cell] { strongestArea[beacon] += area }
            proximityArea[proximity[cell], default: 0] += area
            if strongest[cell] != nil, strongestRSSI[cell] < weakestCell.map({ strongestRSSI[$0] }) ?? .infinity {
                weakestCell = cell
            }
        }

        func share(_ area: Double) -> CoverageSummary.Share {
            .init(area: rounded(area), percent: rounded(100 * area / planArea, places: 1))
        }
        func zones(_ keys: [Int?], names: (Int) -> [String]) -> CoverageSummary.Zones {
            let regions = grid.regions(keys: keys)
            let area = regions.reduce(0) { $0 + $1.area }
            return .init(
                area: rounded(area), percent: rounded(100 * area / planArea, places: 1), regionCount: regions.count,
                regions: regions.prefix(CoverageSummary.listedRegions).map { region in
                    .init(
                        beacons: names(region.key), area: rounded(region.area), x: rounded(region.representative.x),
                        y: rounded(region.representative.y), minX: rounded(region.minX), minY: rounded(region.minY),
                        maxX: rounded(region.maxX), maxY: rounded(region.maxY))
                })
        }

        let beaconCount = venue.beacons.count
        let tieKeys = (0..<grid.cellCount).map { cell in tie(at: cell).map { $0.0 * beaconCount + $0.1 } }
        let ids = venue.beacons.map(\.id)
        let settings = self.settings
        return CoverageSummary(
            venue: venue.id, name: venue.name, floor: venue.floor,
            plan: .init(width: venue.plan.width, height: venue.plan.height, area: rounded(planArea)),
            settings: .init(
                resolution: settings.resolution, pathLossExponent: settings.environment.pathLoss.pathLossExponent,
                walls: settings.environment.obstacles.count, threshold: settings.threshold,
                deadBelow: settings.deadBelow, crowdedAt: settings.crowdedAt,
                crowdedThreshold: settings.crowdedLevel, tieMargin: settings.tieMargin,
                immediateBelow: settings.proximity.immediateBelow, nearBelow: settings.proximity.nearBelow,
                airFromMeasuredPower: settings.airFromMeasuredPower),
            beacons: venue.beacons.enumerated().map { index, beacon in
                .init(
                    id: beacon.id, zone: beacon.zone, x: beacon.position.x, y: beacon.position.y,
                    txPower: beacon.txPower, measuredPower: beacon.measuredPower,
                    strongestArea: rounded(strongestArea[index]))
            },
            unplacedBeacons: venue.unplacedBeaconIDs,
            coverage: share(covered),
            deadZones: zones((0..<grid.cellCount).map { isDead($0) ? 0 : nil }, names: { _ in [] }),
            crowded: zones((0..<grid.cellCount).map { isCrowded($0) ? 0 : nil }, names: { _ in [] }),
            ties: zones(tieKeys, names: { key in [ids[key / beaconCount], ids[key % beaconCount]] }),
            proximity: .init(
                immediate: share(proximityArea[.immediate] ?? 0), near: share(proximityArea[.near] ?? 0),
                far: share(proximityArea[.far] ?? 0), unknown: share(proximityArea[.unknown] ?? 0)),
            weakest: weakestCell.flatMap { cell in
                strongest[cell].map { beacon in
                    let point = grid.centre(of: cell)
                    return .init(
                        rssi: rounded(strongestRSSI[cell], places: 1), beacon: ids[beacon], x: rounded(point.x),
                        y: rounded(point.y))
                }
            })
    }
}

/// `value` rounded to `places` decimals; JSON readers and people both prefer 12.5 to
/// 12.499999999999998.
func rounded(_ value: Double, places: Int = 2) -> Double {
    guard value.isFinite else { return value }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (value * scale).rounded() / scale
}
