import BeaconCore

/// The manifest's `regions` as an app loads them (docs/apps.md): JSON an iOS app bundles,
/// with Core Location's `CLBeaconRegion` property names, and JSON with the AltBeacon
/// library's `Region` fields for an Android app.
public enum AppRegionExport {
    /// The AltBeacon library's `BeaconParser` layout of an iBeacon frame (Apple's
    /// manufacturer data after the company id: type 0x02, length 0x15, UUID, major, minor,
    /// measured power); the library ships no iBeacon layout, an app registers this one.
    public static let altBeaconIBeaconLayout = "m:2-3=0215,i:4-19,i:20-21,i:22-23,p:24-24"

    /// `{"fleet": …, "region_budget": 20, "regions": [{"identifier": …, "uuid": …, "major": …,
    /// "minor": …, "notifyOnEntry": …, "notifyOnExit": …, "requestStateOnStart": …}]}`: one
    /// object per region, named as `CLBeaconRegion`'s properties; `major` and `minor` are left
    /// out where the region leaves them open (a wildcard). `requestStateOnStart` is the
    /// manifest's `notify_state_on_start`: call `requestState(for:)` once monitoring starts.
    /// The UUID is upper case, as `UUID.uuidString` writes it.
    public static func iOSJSON(_ regions: [ResolvedRegion], fleet: String, budget: RegionBudget) -> String {
        var text = "{\n  \"fleet\": " + JSONText.stringLiteral(fleet) + ",\n"
        text += "  \"region_budget\": \(budget.limit),\n"
        text += "  \"regions\": ["
        for (index, resolved) in regions.enumerated() {
            let region = resolved.region
            text += index == 0 ? "\n    {" : ",\n    {"
            text += "\"identifier\": " + JSONText.stringLiteral(region.identifier)
            text += ", \"uuid\": \"\(region.uuid)\""
            if let major = region.major { text += ", \"major\": \(major)" }
            if let minor = region.minor { text += ", \"minor\": \(minor)" }
            text += ", \"notifyOnEntry\": \(resolved.notifyOnEntry), \"notifyOnExit\": \(resolved.notifyOnExit)"
            text += ", \"requestStateOnStart\": \(resolved.notifyStateOnStart)}"
        }
        text += regions.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return text
    }

    /// `{"fleet": …, "beacon_layout": …, "regions": [{"uniqueId": …, "id1": …, "id2": …,
    /// "id3": …}]}`: the arguments of AltBeacon's `Region(String uniqueId, Identifier id1,
    /// Identifier id2, Identifier id3)` (`org.altbeacon.beacon.Region`), each identifier as
    /// `Identifier.parse` reads it (the UUID in lower case with dashes, major and minor in
    /// decimal) and `null` for a wildcard. `uniqueId` is the manifest's region id: the
    /// library replaces a region started again under the same id.
    public static func androidJSON(_ regions: [ResolvedRegion], fleet: String) -> String {
        var text = "{\n  \"fleet\": " + JSONText.stringLiteral(fleet) + ",\n"
        text += "  \"beacon_layout\": \"\(altBeaconIBeaconLayout)\",\n"
        text += "  \"regions\": ["
        for (index, resolved) in regions.enumerated() {
            let region = resolved.region
            text += index == 0 ? "\n    {" : ",\n    {"
            text += "\"uniqueId\": " + JSONText.stringLiteral(region.identifier)
            text += ", \"id1\": \"\(region.uuid.description.lowercased())\""
            text += ", \"id2\": " + (region.major.map { "\"\($0)\"" } ?? "null")
            text += ", \"id3\": " + (region.minor.map { "\"\($0)\"" } ?? "null") + "}"
        }
        text += regions.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return text
    }
}
