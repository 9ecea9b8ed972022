import BeaconCore
import FleetManifest

/// What a verification pass listens for: the beacons it judges, the other beacons of the
/// manifest (heard, they are neither judged nor unexpected) and the fleet's UUIDs (an
/// identity using one of them that the manifest does not list is unexpected).
public struct VerificationPlan: Sendable {
    public private(set) var expected: [ExpectedBeacon]
    /// Manifest beacons outside this pass (another venue, another host), by identity.
    public private(set) var otherKnown: [BeaconIdentity: String]
    public private(set) var fleetUUIDs: Set<ProximityUUID>
    /// The venue that owns each (UUID, major) pair, when exactly one does: lets a report say
    /// which venue an unexpected identity seems to belong to.
    public private(set) var venueByMajor: [UUIDMajor: String]
    /// What the pass covers, for reports: "fleet jays-donuts", "venue cupertino", …
    public var scope: String

    public struct UUIDMajor: Hashable, Sendable {
        public var uuid: ProximityUUID
        public var major: UInt16
    }

    public init(
        expected: [ExpectedBeacon], otherKnown: [BeaconIdentity: String] = [:],
        fleetUUIDs: Set<ProximityUUID>? = nil, scope: String = "fleet"
    ) throws(VerificationPlanError) {
        guard !expected.isEmpty else { throw .nothingToVerify(scope: scope) }
        var seen: [BeaconIdentity: String] = [:]
        for beacon in expected {
            if let first = seen[beacon.identity] {
                throw .sharedIdentity(beacon.identity, first: first, second: beacon.beaconID)
            }
            seen[beacon.identity] = beacon.beaconID
        }
        self.expected = expected
        self.otherKnown = otherKnown.filter { seen[$0.key] == nil }
        self.fleetUUIDs = fleetUUIDs ?? Set(expected.map(\.identity.uuid))
        self.scope = scope
        venueByMajor = Self.soleOwners(expected.map { ($0.identity, $0.venueID) })
    }

    /// The plan for a loaded fleet: every beacon, or those of `venueID`, or those `host`
    /// advertises. `advertisedMeasuredPower` carries what an advertiser computed for `auto`
    /// beacons. The fleet's UUIDs are those of all its beacons and regions.
    public init(
        fleet: Fleet, venueID: String? = nil, host: String? = nil,
        advertisedMeasuredPower: [BeaconIdentity: Int8] = [:],
        plausibleMeasuredPower: ClosedRange<Int> = VerificationPolicy().plausibleMeasuredPower
    ) throws(VerificationPlanError) {
        if let venueID, !fleet.venues.contains(where: { $0.id == venueID }) {
            throw .unknownVenue(venueID, known: fleet.venues.map(\.id))
        }
        var hostBeacons: Set<String>?
        if let host {
            hostBeacons = Set(try Self.beacons(of: host, in: fleet).map(\.id))
        }
        var expected: [ExpectedBeacon] = []
        var others: [BeaconIdentity: String] = [:]
        for beacon in fleet.beacons {
            let inScope = (venueID == nil || beacon.venueID == venueID) && (hostBeacons?.contains(beacon.id) ?? true)
            if inScope {
                expected.append(ExpectedBeacon(
                    beacon, advertisedMeasuredPower: advertisedMeasuredPower[beacon.identity],
                    plausibleRange: plausibleMeasuredPower))
            } else {
                others[beacon.identity] = beacon.id
            }
        }
        var uuids = Set(fleet.beacons.map(\.identity.uuid))
        uuids.formUnion(fleet.regions.map(\.region.uuid))
        let fleetNames = Array(Set(fleet.venues.map(\.fleetName))).sorted()
        var scope = fleetNames.isEmpty ? "fleet" : "fleet " + fleetNames.joined(separator: ", ")
        if let venueID { scope += ", venue \(venueID)" }
        if let host { scope += ", host \(host)" }
        try self.init(expected: expected, otherKnown: others, fleetUUIDs: uuids, scope: scope)
        // Unexpected identities are placed by every venue's majors, not only the judged ones.
        venueByMajor = Self.soleOwners(fleet.beacons.map { ($0.identity, $0.venueID) })
    }

    /// The beacons `host` advertises, matched as `advertise --host` matches them (case
    /// aside; a fully qualified name also matches its first label).
    public static func beacons(of host: String, in fleet: Fleet) throws(VerificationPlanError) -> [ResolvedBeacon] {
        do {
            return try ManifestBeaconSelection.host(host).beacons(in: fleet)
        } catch {
            throw .noBeaconsForHost(host, known: Array(Set(fleet.beacons.compactMap(\.host))).sorted())
        }
    }

    /// The venue of each (UUID, major) pair that only one venue uses.
    private static func soleOwners(_ beacons: [(BeaconIdentity, String)]) -> [UUIDMajor: String] {
        var owners: [UUIDMajor: Set<String>] = [:]
        for (identity, venue) in beacons {
            owners[UUIDMajor(uuid: identity.uuid, major: identity.major), default: []].insert(venue)
        }
        return owners.compactMapValues { $0.count == 1 ? $0.first : nil }
    }
}

/// Why a verification plan cannot be made.
public enum VerificationPlanError: Error, Hashable, Sendable, CustomStringConvertible {
    case nothingToVerify(scope: String)
    case sharedIdentity(BeaconIdentity, first: String, second: String)
    case unknownVenue(String, known: [String])
    case noBeaconsForHost(String, known: [String])

    public var description: String {
        switch self {
        case .nothingToVerify(let scope):
            return "\(scope) lists no beacons, so there is nothing to verify; add beacons to the manifest"
        case .sharedIdentity(let identity, let first, let second):
            return "beacons `\(first)` and `\(second)` share the identity \(identity); "
                + "\(UserCommand.fleetValidate) explains how to fix the manifest"
        case .unknownVenue(let venue, let known):
            return "the manifest has no venue `\(venue)`; its venues: \(Self.list(known))"
        case .noBeaconsForHost(let host, let known):
            return "no beacon of the manifest names host `\(host)`; hosts it names: \(Self.list(known)). "
                + "Pass \(UserSetting.host) with one of them, or set `host:` on the beacons"
        }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}
