import BeaconCore
import BeaconProfiles
import FleetManifest

/// Which peripheral each battery beacon is, from the discovery scan.
public enum HardwareBeaconMatch: Hashable, Sendable {
    /// Its `mac:` was heard advertising connectably.
    case pinned(ResolvedBeacon, DiscoveredPeripheral)
    /// `--assign nearest` proposes this peripheral (to confirm, then to write back as `mac:`).
    case proposed(ResolvedBeacon, DiscoveredPeripheral)
    /// Its `mac:` was not heard, or not connectably.
    case unreachable(ResolvedBeacon, String)
    /// No `mac:` and nothing to assign.
    case unmatched(ResolvedBeacon, String)

    public var beacon: ResolvedBeacon {
        switch self {
        case .pinned(let beacon, _), .proposed(let beacon, _), .unreachable(let beacon, _), .unmatched(let beacon, _): beacon
        }
    }
}

public enum HardwareBeaconMatching {
    /// Matches `beacons` to what was heard: by `mac:` first; then, with `assignNearest`,
    /// each beacon without one (in manifest order) gets a connectable peripheral that no
    /// manifest beacon pins and none was proposed for, among those whose advertisement names
    /// a profile (any connectable one when `profile` is given): the one already advertising
    /// this beacon's identity if one does (provisioned before, its `mac:` never recorded),
    /// else the strongest that advertises no manifest beacon's identity. One advertising
    /// another manifest beacon's identity is that beacon: given to a second manifest beacon,
    /// two beacons would end up with one identity, so it is never proposed for another.
    public static func match(
        _ beacons: [ResolvedBeacon], fleet: Fleet, heard: [DiscoveredPeripheral], assignNearest: Bool,
        profile: HardwareProfileChoice
    ) -> [HardwareBeaconMatch] {
        let byAddress = Dictionary(heard.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        let pinnedAnywhere = Set(fleet.beacons.compactMap(\.expectedAddress))
        let owners = Dictionary(fleet.beacons.map { ($0.identity, $0.id) }, uniquingKeysWith: { first, _ in first })
        var candidates = heard.filter {
            $0.connectable && !pinnedAnywhere.contains($0.address) && (profile != .auto || $0.advertisedProfile(among: ShippedProfiles.all) != nil)
        }
        candidates.sort { ($0.strongestRSSI ?? -128) > ($1.strongestRSSI ?? -128) }
        var matches: [HardwareBeaconMatch] = []
        for beacon in beacons {
            if let address = beacon.expectedAddress {
                guard let peripheral = byAddress[address] else {
                    matches.append(.unreachable(beacon, "\(address) was not heard: wake the beacon (a button press on many models) and keep it within a few metres"))
                    continue
                }
                guard peripheral.connectable else {
                    matches.append(.unreachable(beacon, "\(address) was heard, but not advertising connectably: most beacons accept connections only for a while after a button press or power-up"))
                    continue
                }
                matches.append(.pinned(beacon, peripheral))
            } else if assignNearest {
                let itself = candidates.firstIndex { $0.advertisedIdentity == beacon.identity }
                let free = candidates.firstIndex { peripheral in peripheral.advertisedIdentity.map { owners[$0] == nil } ?? true }
                if let chosen = itself ?? free {
                    matches.append(.proposed(beacon, candidates.remove(at: chosen)))
                    continue
                }
                let taken = candidates.compactMap { peripheral in
                    peripheral.advertisedIdentity.flatMap { owners[$0] }.map { "\(peripheral.address) (\($0))" }
                }
                if taken.isEmpty {
                    matches.append(.unmatched(beacon, "no unassigned connectable beacon was heard to assign"))
                } else {
                    matches.append(.unmatched(beacon, "no unassigned connectable beacon was heard to assign; not proposed, as each already advertises another manifest beacon's identity: \(taken.joined(separator: ", ")); add its address as mac: to that beacon's entry"))
                }
            } else {
                matches.append(.unmatched(beacon, "no mac: in the manifest: add the beacon's address as mac:, or pass --assign nearest"))
            }
        }
        return matches
    }
}
