import BeaconCore
import BeaconProfiles
import FleetManifest

/// What `provision --hardware` is asked to do.
public struct HardwareProvisioningRequest: Sendable {
    public var fleet: Fleet
    /// Only the battery beacons of this venue.
    public var venueID: String?
    /// Only these beacons (empty: every battery beacon in scope).
    public var beaconIDs: [String]
    public var profile: HardwareProfileChoice
    /// The password or lock code the beacons hold now.
    public var password: BeaconPassword
    /// Set last, after the read-back matched.
    public var newPassword: BeaconPassword?
    /// Take the strongest unassigned connectable beacon for each beacon without `mac:`.
    public var assignNearest: Bool
    /// Connect and read; write nothing.
    public var dryRun: Bool
    /// Overwrite a beacon that advertises another manifest beacon's identity.
    public var force: Bool
    /// How long the discovery scan listens.
    public var discoveryWindow: Duration
    /// How long a connection attempt may take.
    public var connectTimeout: Duration
    /// The verification pass after the writes (its timeout bounds it).
    public var policy: VerificationPolicy

    public init(
        fleet: Fleet, venueID: String? = nil, beaconIDs: [String] = [], profile: HardwareProfileChoice = .auto,
        password: BeaconPassword, newPassword: BeaconPassword? = nil, assignNearest: Bool = false, dryRun: Bool = false,
        force: Bool = false, discoveryWindow: Duration = .seconds(5), connectTimeout: Duration = .seconds(10),
        policy: VerificationPolicy = VerificationPolicy(requiredSightings: 3, timeout: .seconds(15))
    ) {
        self.fleet = fleet
        self.venueID = venueID
        self.beaconIDs = beaconIDs
        self.profile = profile
        self.password = password
        self.newPassword = newPassword
        self.assignNearest = assignNearest
        self.dryRun = dryRun
        self.force = force
        self.discoveryWindow = discoveryWindow
        self.connectTimeout = connectTimeout
        self.policy = policy
    }

    /// The battery beacons asked for (no `host:`), in manifest order.
    public func selectedBeacons() throws(HardwareProvisioningError) -> [ResolvedBeacon] {
        if let venueID, !fleet.venues.contains(where: { $0.id == venueID }) {
            throw .usage("no venue `\(venueID)` in the manifest; its venues: \(fleet.venues.map(\.id).joined(separator: ", "))")
        }
        let battery = fleet.beacons.filter { $0.host == nil && (venueID == nil || $0.venueID == venueID) }
        for id in beaconIDs {
            if battery.contains(where: { $0.id == id }) { continue }
            if let hosted = fleet.beacons.first(where: { $0.id == id }), let host = hosted.host {
                throw .usage("`\(id)` is advertised by host \(host), not a battery beacon: provision it with `beaconctl provision --host \(host)`")
            }
            throw .usage("no battery beacon `\(id)` in the manifest\(venueID.map { " (venue \($0))" } ?? "")")
        }
        let chosen = beaconIDs.isEmpty ? battery : battery.filter { beaconIDs.contains($0.id) }
        if chosen.isEmpty {
            throw .usage("the manifest has no battery beacons (beacons without host:)\(venueID.map { " in venue \($0)" } ?? "") to provision")
        }
        return chosen
    }

    /// What a beacon should hold: its identity, measured power (unless `auto`: the
    /// beacon's own calibration is kept), transmit power and interval.
    public static func target(for beacon: ResolvedBeacon) -> BeaconSettings {
        var measured: Int?
        if case .dBm(let value) = beacon.measuredPower { measured = Int(value) }
        return BeaconSettings(
            identity: beacon.identity, measuredPower: measured, txPower: beacon.txPower,
            advertisingInterval: beacon.intervalMilliseconds)
    }
}

/// Why `provision --hardware` could not run at all (per-beacon problems are results).
public enum HardwareProvisioningError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The request cannot be carried out as asked (exit 2).
    case usage(String)
    /// The controller failed (exit 3).
    case controller(String)

    public var description: String {
        switch self {
        case .usage(let message), .controller(let message): message
        }
    }
}
