import BeaconCore
import FleetManifest

/// A beacon as coverage sees it: where it is and how loud it is.
public struct CoverageBeacon: Hashable, Sendable {
    public var id: String
    public var zone: String?
    public var position: PlanPoint
    /// Transmit power asked of the controller, dBm: what the model of the air radiates.
    public var txPower: Double
    /// The 1 m RSSI the beacon advertises, dBm: what a phone ranges with.
    public var measuredPower: Double

    public init(id: String, zone: String? = nil, position: PlanPoint, txPower: Double, measuredPower: Double) {
        self.id = id
        self.zone = zone
        self.position = position
        self.txPower = txPower
        self.measuredPower = measuredPower
    }

    /// The manifest beacon on its plan, or `nil` when it has no position. `auto` measured
    /// power is the controller's TX power − 41 dB, as the advertiser would compute it.
    public init?(_ beacon: ResolvedBeacon) {
        guard let position = beacon.position else { return nil }
        let measured: Double
        switch beacon.measuredPower {
        case .auto: measured = Double(MeasuredPower.estimate(forTxPower: beacon.txPower))
        case .dBm(let value): measured = Double(value)
        }
        self.init(
            id: beacon.id, zone: beacon.zone, position: position, txPower: Double(beacon.txPower),
            measuredPower: measured)
    }
}

/// One floor plan with the beacons that radiate on it: a venue, or one floor of it.
public struct CoverageVenue: Hashable, Sendable {
    public var id: String
    public var name: String?
    /// The zone this map is restricted to (a floor, for venues whose zones are floors).
    public var floor: String?
    public var plan: PlanSize
    public var beacons: [CoverageBeacon]
    /// Ids of the venue's beacons left off the map because they have no `position`.
    public var unplacedBeaconIDs: [String]

    public init(
        id: String, name: String? = nil, floor: String? = nil, plan: PlanSize, beacons: [CoverageBeacon],
        unplacedBeaconIDs: [String] = []
    ) {
        self.id = id
        self.name = name
        self.floor = floor
        self.plan = plan
        self.beacons = beacons
        self.unplacedBeaconIDs = unplacedBeaconIDs
    }

    /// The venue's plan with its positioned beacons; with `zones`, only beacons of those
    /// zones (the beacons of one floor). `nil` when the venue has no plan.
    public init?(_ venue: ResolvedVenue, zones: Set<String>? = nil, floor: String? = nil) {
        guard let plan = venue.plan else { return nil }
        let selected = venue.beacons.filter { beacon in zones.map { $0.contains(beacon.zone ?? "") } ?? true }
        self.init(
            id: venue.id, name: venue.name, floor: floor, plan: plan,
            beacons: selected.compactMap(CoverageBeacon.init),
            unplacedBeaconIDs: selected.filter { $0.position == nil }.map(\.id))
    }

    /// `venue` or `venue-floor`: the name of this map's files.
    public var fileStem: String {
        guard let floor else { return id }
        return id + "-" + floor
    }
}
