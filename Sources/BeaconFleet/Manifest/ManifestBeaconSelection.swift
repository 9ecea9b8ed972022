#if canImport(Glibc)
import BeaconCore
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FleetManifest

/// Which beacons of a manifest a machine advertises.
public enum ManifestBeaconSelection: Hashable, Sendable {
    /// The beacons with these ids, in the order given.
    case ids([String])
    /// The beacons whose `host:` is this name (host names compare without regard to case;
    /// a fully qualified name also matches its first label, so `pi-door.example.com`
    /// advertises the beacons of `pi-door`).
    case host(String)
    /// Every beacon of the manifest.
    case all

    /// The beacons selected from `fleet`, in manifest order (for `.ids`: the order given).
    public func beacons(in fleet: Fleet) throws(AdvertisingError) -> [ResolvedBeacon] {
        switch self {
        case .all:
            guard !fleet.beacons.isEmpty else {
                throw .invalidRequest("the manifest has no beacons to advertise")
            }
            return fleet.beacons
        case .ids(let ids):
            var byID: [String: ResolvedBeacon] = [:]
            for beacon in fleet.beacons { byID[beacon.id] = beacon }
            let missing = ids.filter { byID[$0] == nil }
            guard missing.isEmpty else {
                let list = missing.map { "`\($0)`" }.joined(separator: ", ")
                throw .invalidRequest(
                    "no beacon \(list) in the manifest; \(UserCommand.fleetExport) lists the beacon ids")
            }
            var seen: Set<String> = []
            return ids.filter { seen.insert($0).inserted }.compactMap { byID[$0] }
        case .host(let name):
            let selected = fleet.beacons.filter { beacon in
                guard let host = beacon.host else { return false }
                return Self.hostNames(name).contains(host.lowercased())
            }
            guard selected.isEmpty else { return selected }
            let hosts = Set(fleet.beacons.compactMap(\.host)).sorted()
            let known = hosts.isEmpty
                ? "no beacon of the manifest names a host"
                : "its hosts are " + hosts.prefix(10).map { "`\($0)`" }.joined(separator: ", ") + (hosts.count > 10 ? ", …" : "")
            throw .invalidRequest(
                "no beacon of the manifest is assigned to host `\(name)` (\(known)); pass \(UserSetting.host) NAME, \(UserSetting.beacon) ID or \(UserSetting.all)")
        }
    }

    /// `name` and, for a dotted name, its first label, lower-cased.
    private static func hostNames(_ name: String) -> Set<String> {
        let lowered = name.lowercased()
        var names: Set<String> = [lowered]
        if let firstLabel = lowered.split(separator: ".").first { names.insert(String(firstLabel)) }
        return names
    }

    /// This machine's host name, as `gethostname` reports it; `nil` when it cannot be read.
    public static func thisHost() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}
