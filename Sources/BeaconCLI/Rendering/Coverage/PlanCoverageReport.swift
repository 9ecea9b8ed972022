import BeaconCore
import BeaconFleet

/// The text summary of a coverage map, for people: the headline numbers first, then the
/// beacons by the area where each is nearest, then the few regions worth walking to.
enum CoverageReportText {
    static func render(_ summary: CoverageSummary, style: Style) -> String {
        let settings = summary.settings
        var title = summary.venue
        if let floor = summary.floor { title += " (\(floor))" }
        if let name = summary.name { title += " — \(name)" }
        var lines = [style.bold(title)]
        var setup = "  \(NumberText.plain(summary.plan.width)) × \(NumberText.plain(summary.plan.height)) m, "
            + "\(NumberText.count(summary.beacons.count, "beacon")), \(NumberText.plain(settings.resolution)) m grid, "
            + "path-loss exponent \(NumberText.plain(settings.pathLossExponent)), "
        setup += settings.walls == 0 ? "no walls" : NumberText.count(settings.walls, "wall")
        if settings.airFromMeasuredPower { setup += ", 1 m RSSI = measured power" }
        lines.append(setup)
        lines.append("  covered    \(percent(summary.coverage.percent)) of \(area(summary.plan.area)) at \(dBm(settings.threshold)) or better")
        lines.append("  dead       \(area(summary.deadZones.area)) below \(dBm(settings.deadBelow))")
        lines.append("  crowded    \(area(summary.crowded.area)) hear \(settings.crowdedAt)+ beacons at \(dBm(settings.crowdedThreshold)) or better")
        let proximity = summary.proximity
        lines.append("  proximity  immediate \(area(proximity.immediate.area)), near \(area(proximity.near.area)), far \(area(proximity.far.area)), unknown \(area(proximity.unknown.area))")
        if let weakest = summary.weakest {
            lines.append("  weakest    \(dBm(weakest.rssi)) at \(point(weakest.x, weakest.y)), from \(weakest.beacon)")
        }
        if !summary.unplacedBeacons.isEmpty {
            lines.append("  unplaced   \(summary.unplacedBeacons.joined(separator: ", ")) (no position)")
        }

        if !summary.beacons.isEmpty {
            lines.append("  nearest beacon by area:")
            let idWidth = summary.beacons.map(\.id.count).max() ?? 0
            let areaWidth = summary.beacons.map { area($0.strongestArea).count }.max() ?? 0
            for beacon in summary.beacons.sorted(by: { ($0.strongestArea, $1.id) > ($1.strongestArea, $0.id) }) {
                let text = area(beacon.strongestArea)
                lines.append("    \(padded(beacon.id, idWidth))  \(String(repeating: " ", count: areaWidth - text.count))\(text)")
            }
        }
        lines += regions(
            "ties for nearest (strongest two within \(NumberText.plain(settings.tieMargin)) dB)", summary.ties)
        lines += regions("dead zones", summary.deadZones)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func regions(_ title: String, _ zones: CoverageSummary.Zones) -> [String] {
        guard zones.regionCount > 0 else { return [] }
        var lines = ["  \(title): \(NumberText.count(zones.regionCount, "region")), \(area(zones.area))"]
        for region in zones.regions {
            var line = "    "
            if !region.beacons.isEmpty { line += region.beacons.joined(separator: " / ") + "  " }
            line += "around \(point(region.x, region.y)), \(area(region.area)), "
            line += "x \(NumberText.plain(region.minX))–\(NumberText.plain(region.maxX)), y \(NumberText.plain(region.minY))–\(NumberText.plain(region.maxY))"
            lines.append(line)
        }
        let hidden = zones.regionCount - zones.regions.count
        if hidden > 0 { lines.append("    … and \(NumberText.count(hidden, "smaller region")) (--format json lists the same)") }
        return lines
    }

    private static func area(_ value: Double) -> String { "\(oneDecimal(value)) m²" }
    private static func percent(_ value: Double) -> String { "\(oneDecimal(value)) %" }
    private static func dBm(_ value: Double) -> String { "\(NumberText.plain(value)) dBm" }
    private static func point(_ x: Double, _ y: Double) -> String { "(\(NumberText.plain(x)), \(NumberText.plain(y)))" }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        guard tenths.isFinite, abs(tenths) < 1e15 else { return String(value) }
        let whole = Int(tenths) / 10
        let fraction = abs(Int(tenths) % 10)
        return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

}
