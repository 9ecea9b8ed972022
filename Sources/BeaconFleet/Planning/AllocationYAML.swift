import BeaconCore
import FleetManifest

/// How a manifest lays out its lists: the column of a venue's `-`, of its keys, and of a
/// beacon's `-` and keys, counted in spaces from the line start.
public struct ManifestIndentation: Hashable, Sendable {
    public var venueDash: Int
    public var venueKey: Int
    public var beaconDash: Int
    public var beaconKey: Int

    /// The layout of the example manifests: `  - id:` venues, `      - id:` beacons.
    public static let standard = ManifestIndentation(venueDash: 2, venueKey: 4, beaconDash: 6, beaconKey: 8)

    public init(venueDash: Int, venueKey: Int, beaconDash: Int, beaconKey: Int) {
        self.venueDash = venueDash
        self.venueKey = venueKey
        self.beaconDash = beaconDash
        self.beaconKey = beaconKey
    }
}

/// Writes the YAML of an allocation: whole manifest, venue entry or beacon entries.
public enum AllocationYAML {
    /// The beacon entries of `plan`, each line ending in `newline`.
    public static func beacons(_ plan: AllocationPlan, indentation: ManifestIndentation, newline: String = "\n") -> String {
        var out = ""
        let dash = String(repeating: " ", count: indentation.beaconDash)
        let key = String(repeating: " ", count: indentation.beaconKey)
        // The `- ` takes the first key's place: pad so the first key lines up with the rest.
        let firstPrefix = dash + "-" + String(repeating: " ", count: max(1, indentation.beaconKey - indentation.beaconDash - 1))
        for beacon in plan.beacons {
            out += firstPrefix + "id: " + YAMLScalar.render(beacon.id) + newline
            if let zone = beacon.zone { out += key + "zone: " + YAMLScalar.render(zone) + newline }
            if beacon.writesMajor { out += key + "major: \(beacon.identity.major)" + newline }
            out += key + "minor: \(beacon.identity.minor)" + newline
        }
        return out
    }

    /// A `beacons:` key with the entries, at the venue's key column.
    public static func beaconsKey(_ plan: AllocationPlan, indentation: ManifestIndentation, newline: String = "\n") -> String {
        String(repeating: " ", count: indentation.venueKey) + "beacons:" + newline
            + beacons(plan, indentation: indentation, newline: newline)
    }

    /// The venue entry with its beacons.
    public static func venue(_ plan: AllocationPlan, indentation: ManifestIndentation, newline: String = "\n") -> String {
        let venue = plan.venue
        let key = String(repeating: " ", count: indentation.venueKey)
        let firstPrefix = String(repeating: " ", count: indentation.venueDash) + "-"
            + String(repeating: " ", count: max(1, indentation.venueKey - indentation.venueDash - 1))
        var out = firstPrefix + "id: " + YAMLScalar.render(venue.id) + newline
        if let name = venue.name { out += key + "name: " + YAMLScalar.render(name) + newline }
        if let uuid = venue.uuid { out += key + "uuid: \(uuid)" + newline }
        if let major = venue.major { out += key + "major: \(major)" + newline }
        if let host = venue.host { out += key + "host: " + YAMLScalar.render(host) + newline }
        if let plan = venue.plan {
            out += key + "plan: {width: \(metres(plan.width)), height: \(metres(plan.height))}" + newline
        }
        return out + beaconsKey(plan, indentation: indentation, newline: newline)
    }

    /// A complete manifest for a new fleet.
    public static func manifest(_ plan: AllocationPlan) -> String {
        "version: 1\nfleet: \(YAMLScalar.render(plan.fleetName))\nuuid: \(plan.uuid)\nvenues:\n"
            + venue(plan, indentation: .standard)
    }

    /// `24`, not `24.0`; `3.5` as is.
    static func metres(_ value: Double) -> String {
        NumberText.plain(value)
    }
}
