import BeaconCore

/// How many regions an app may monitor, and what to monitor instead when the manifest's
/// `regions` are more: the wildcard regions (a UUID and major, or a UUID alone) that cover
/// them, as docs/manifest.md ("Choosing an allocation scheme") advises.
///
/// Core Location lets one app monitor at most 20 regions, beacon regions and geofences
/// together (`CLLocationManager.startMonitoring(for:)`, "Monitoring the user's proximity to
/// geographic regions"); an app that also watches geofences has fewer left for beacons,
/// hence a budget below 20.
public struct RegionBudget: Hashable, Sendable {
    /// The most regions Core Location monitors for one app.
    public static let iOSLimit = 20

    /// Regions the app can give to beacons, 1 … `iOSLimit`.
    public let limit: Int

    /// `nil` outside 1 … `iOSLimit`.
    public init?(_ limit: Int) {
        guard (1...Self.iOSLimit).contains(limit) else { return nil }
        self.limit = limit
    }

    public static let iOS = RegionBudget(iOSLimit)!

    /// A region to monitor instead of those it covers: a wildcard (`major` `nil`: the UUID
    /// alone), or a region of the manifest kept as it is (`replaces` is then its own id).
    public struct Cover: Hashable, Sendable {
        public var uuid: ProximityUUID
        public var major: UInt16?
        public var minor: UInt16?
        /// The manifest's regions it stands for, in manifest order.
        public var replaces: [String]
        /// The venues whose beacons it matches, for people to recognise it.
        public var venues: [String]

        /// `UUID major 7 (venue flat)`.
        public var description: String {
            var text = uuid.description
            if let major { text += " major \(major)" }
            if let minor { text += " minor \(minor)" }
            if !venues.isEmpty {
                text += " (" + (venues.count == 1 ? "venue " : "venues ") + venues.joined(separator: ", ") + ")"
            }
            return text
        }
    }

    /// What the budget says of a set of regions.
    public enum Verdict: Hashable, Sendable {
        /// They fit.
        case fits
        /// They do not; these regions, at most `limit` of them, cover every one.
        case coveredBy([Cover])
        /// Not even one region per UUID fits: more UUIDs than the budget.
        case tooManyUUIDs(Int)
    }

    /// Judges `regions` (the fleet's, in manifest order) against the budget; `beacons`
    /// name the venues each cover matches.
    public func check(_ regions: [ResolvedRegion], beacons: [ResolvedBeacon]) -> Verdict {
        guard regions.count > limit else { return .fits }
        // Each region as the narrowest key that matches it, merged step by step: first the
        // minors of one (uuid, major) into one region, the biggest groups first; then, if
        // still too many, everything of one UUID into one region.
        var covers = regions.map {
            Cover(uuid: $0.region.uuid, major: $0.region.major, minor: $0.region.minor, replaces: [$0.region.identifier], venues: [])
        }
        covers = Self.dropCovered(covers, limit: limit)
        if covers.count > limit {
            covers = Self.merge(covers, limit: limit, key: { $0.minor == nil ? nil : MajorKey(uuid: $0.uuid, major: $0.major) }) {
                Cover(uuid: $0.uuid, major: $0.major, minor: nil, replaces: [], venues: [])
            }
            covers = Self.dropCovered(covers, limit: limit)
        }
        if covers.count > limit {
            covers = Self.merge(covers, limit: limit, key: { $0.major == nil ? nil : MajorKey(uuid: $0.uuid, major: nil) }) {
                Cover(uuid: $0.uuid, major: nil, minor: nil, replaces: [], venues: [])
            }
            covers = Self.dropCovered(covers, limit: limit)
        }
        if covers.count > limit { return .tooManyUUIDs(covers.count) }
        return .coveredBy(covers.map { Self.naming($0, beacons: beacons) })
    }

    private struct MajorKey: Hashable {
        var uuid: ProximityUUID
        var major: UInt16?
    }

    /// Regions that a wider region of the set already matches are folded into it (the app
    /// learns of them by ranging inside the wider one), the narrowest first, until the set
    /// fits `limit`.
    private static func dropCovered(_ covers: [Cover], limit: Int) -> [Cover] {
        var result = covers
        var removed = Set<Int>()
        var count = covers.count
        for rankToFold in [2, 1] where count > limit {
            // The wider regions still kept, by what they match: a UUID and major, or a UUID.
            var withMajor: [MajorKey: Int] = [:]
            var uuidOnly: [ProximityUUID: Int] = [:]
            for index in result.indices where !removed.contains(index) {
                switch rank(result[index]) {
                case 0: if uuidOnly[result[index].uuid] == nil { uuidOnly[result[index].uuid] = index }
                case 1:
                    let key = MajorKey(uuid: result[index].uuid, major: result[index].major)
                    if withMajor[key] == nil { withMajor[key] = index }
                default: break
                }
            }
            for index in result.indices where count > limit && rank(result[index]) == rankToFold {
                let cover = result[index]
                let inMajor = rankToFold == 2 ? withMajor[MajorKey(uuid: cover.uuid, major: cover.major)] : nil
                guard let wider = inMajor ?? uuidOnly[cover.uuid], wider != index else { continue }
                result[wider].replaces += cover.replaces
                removed.insert(index)
                count -= 1
            }
        }
        return result.indices.compactMap { removed.contains($0) ? nil : result[$0] }
    }

    /// 0 for a UUID alone, 1 with a major, 2 with a minor.
    private static func rank(_ cover: Cover) -> Int {
        cover.major == nil ? 0 : cover.minor == nil ? 1 : 2
    }

    /// Merges the groups `key` forms, biggest first, into the region `wider` makes of a
    /// member, until the set fits `limit` or no group of two or more is left.
    private static func merge(
        _ covers: [Cover], limit: Int, key: (Cover) -> MajorKey?, wider: (Cover) -> Cover
    ) -> [Cover] {
        var groups: [MajorKey: [Int]] = [:]
        var keys: [MajorKey] = []
        for (index, cover) in covers.enumerated() {
            guard let groupKey = key(cover) else { continue }
            if groups[groupKey] == nil { keys.append(groupKey) }
            groups[groupKey, default: []].append(index)
        }
        // Biggest saving first; manifest order between equals.
        let candidates = keys.filter { (groups[$0]?.count ?? 0) > 1 }
            .enumerated().sorted { ((groups[$0.element]?.count ?? 0), -$0.offset) > ((groups[$1.element]?.count ?? 0), -$1.offset) }
            .map(\.element)
        var count = covers.count
        var merged: [Int: Cover] = [:]
        var absorbed = Set<Int>()
        for candidate in candidates where count > limit {
            guard let members = groups[candidate], let first = members.first else { continue }
            var cover = wider(covers[first])
            for member in members { cover.replaces += covers[member].replaces }
            merged[first] = cover
            absorbed.formUnion(members.dropFirst())
            count -= members.count - 1
        }
        return covers.indices.compactMap { index in
            absorbed.contains(index) ? nil : merged[index] ?? covers[index]
        }
    }

    /// The venues a cover matches.
    private static func naming(_ cover: Cover, beacons: [ResolvedBeacon]) -> Cover {
        var named = cover
        var venues: [String] = []
        var seen = Set<String>()
        let region = BeaconRegion(identifier: "", uuid: cover.uuid, major: cover.major, minor: cover.minor)
        for beacon in beacons where region?.matches(beacon.identity) == true && seen.insert(beacon.venueID).inserted {
            venues.append(beacon.venueID)
        }
        named.venues = venues
        return named
    }
}

extension RegionBudget.Verdict {
    /// What to tell people: nothing when the regions fit, else which regions to monitor
    /// instead (docs/apps.md).
    public func advice(budget: RegionBudget) -> String? {
        switch self {
        case .fits:
            return nil
        case .tooManyUUIDs(let uuids):
            return "the regions use \(uuids) UUIDs and an app can monitor \(budget.limit) regions: even one region per UUID does not fit; give the fleet one UUID (docs/manifest.md, \"Choosing an allocation scheme\")"
        case .coveredBy(let covers):
            let wildcards = covers.filter { $0.replaces.count > 1 }
            var parts: [String] = []
            for cover in wildcards {
                let named = cover.replaces.prefix(4).map { "`\($0)`" }.joined(separator: ", ")
                let more = cover.replaces.count > 4 ? " and \(cover.replaces.count - 4) more" : ""
                parts.append("monitor \(cover.description) instead of \(named)\(more)")
            }
            return parts.joined(separator: "; ")
                + "; that makes \(NumberText.count(covers.count, "region")); range inside a wildcard region to tell its beacons apart"
        }
    }
}
