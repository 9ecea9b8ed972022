import BeaconCore
import BeaconFleet

/// A self-contained HTML page for one coverage map: the SVG inline, a key explaining every
/// mark, the summary numbers, the beacons, and the regions worth a look (ties, dead zones,
/// crowded zones). No scripts, no external files: it opens from a mail attachment.
public struct CoverageHTML {
    public let map: CoverageMap
    public let summary: CoverageSummary

    public init(map: CoverageMap, summary: CoverageSummary) {
        self.map = map
        self.summary = summary
    }

    public func render() -> String {
        let svg = CoverageSVG(map: map, summary: summary)
        let settings = map.settings
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(xmlEscaped(svg.titleText))</title>
            <style>
            body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #111; margin: 2rem auto; max-width: 62rem; padding: 0 1rem; line-height: 1.45; }
            h1 { font-size: 1.5rem; margin-bottom: .25rem; }
            h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
            figure { margin: 1rem 0; overflow-x: auto; }
            table { border-collapse: collapse; margin: .5rem 0; }
            th, td { text-align: left; padding: .25rem .75rem .25rem 0; border-bottom: 1px solid #eee; vertical-align: top; }
            td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
            code { font-size: .95em; }
            .swatch { display: inline-block; width: 2.2em; height: 1em; vertical-align: -.15em; border: 1px solid #777; margin-right: .4em; }
            .dead { background: repeating-linear-gradient(45deg, \(CoverageColorScale.deadHatch) 0 2px, \(CoverageColorScale.deadFill) 2px 6px); }
            .crowded { border: 2px dashed \(CoverageSVG.crowdedColour); background: radial-gradient(circle, \(CoverageSVG.crowdedColour) 1.5px, transparent 2px) 0 0 / 9px 9px; }
            .muted { color: #555; }
            </style>
            </head>
            <body>
            <h1>\(xmlEscaped(svg.titleText))</h1>
            <p class="muted">\(xmlEscaped(assumptions))</p>
            <figure>
            \(svg.renderElement())</figure>

            """
        out += keySection(settings)
        out += summarySection(settings)
        out += beaconSection()
        out += regionSection(
            "Ties for nearest", summary.ties,
            empty: "No two beacons come within \(numberText(settings.tieMargin)) dB of each other where the signal is usable.",
            explanation: "Places where the two strongest beacons are within \(numberText(settings.tieMargin)) dB: a phone standing there flips between them as “nearest”. Largest first.")
        out += regionSection(
            "Dead zones", summary.deadZones, empty: "None: every spot hears a beacon at \(dBmText(settings.deadBelow)) or better.",
            explanation: "Places where even the strongest beacon is below \(dBmText(settings.deadBelow)). Largest first.")
        out += regionSection(
            "Crowded zones", summary.crowded,
            empty: "None: nowhere do \(settings.crowdedAt) or more beacons reach \(dBmText(settings.crowdedLevel)).",
            explanation: "Places where \(settings.crowdedAt) or more beacons reach \(dBmText(settings.crowdedLevel)): ranging there must tell many similar signals apart. Largest first.")
        out += "</body>\n</html>\n"
        return out
    }

    private var assumptions: String {
        let settings = map.settings
        let model = settings.environment
        var text = "Mean RSSI from the log-distance model: "
            + (settings.airFromMeasuredPower
                ? "each beacon's measured power at 1 m"
                : "TX power − \(numberText(model.referenceLoss)) dB at 1 m")
            + ", path-loss exponent \(numberText(model.pathLoss.pathLossExponent))"
        let walls = model.obstacles.count
        text += walls == 0 ? ", no walls" : ", \(NumberText.count(walls, "wall")) (each path loses the walls it crosses)"
        text += "; no fading or body loss, so real readings scatter several dB around these values. "
        text += "Judged on a \(numberText(settings.resolution)) m grid over the \(numberText(map.venue.plan.width)) × "
            + "\(numberText(map.venue.plan.height)) m plan."
        return text
    }

    private func keySection(_ settings: CoverageSettings) -> String {
        let scale = CoverageColorScale(threshold: settings.threshold, deadBelow: settings.deadBelow)
        var out = "<h2>Key</h2>\n<table>\n"
        for (index, band) in scale.bands.enumerated().reversed() {
            let swatch = index == scale.deadBand
                ? "<span class=\"swatch dead\"></span>"
                : "<span class=\"swatch\" style=\"background: \(band.fill)\"></span>"
            let range: String
            switch (band.lower, band.upper) {
            case (let lower?, nil): range = "\(dBmText(lower)) or stronger"
            case (nil, let upper?): range = "below \(dBmText(upper)): dead zone, nothing usable"
            case (let lower?, let upper?) where index == scale.marginalBand:
                // Empty when the dead-zone level and the threshold coincide.
                if lower == upper { continue }
                range = "\(dBmText(lower)) to \(dBmText(upper)): heard, but below the coverage threshold"
            case (let lower?, let upper?): range = "\(dBmText(lower)) to \(dBmText(upper))"
            case (nil, nil): continue
            }
            out += "<tr><td>\(swatch)</td><td>\(xmlEscaped(range))</td></tr>\n"
        }
        out += "<tr><td><span class=\"swatch crowded\"></span></td><td>dotted and outlined: crowded, \(settings.crowdedAt) or more beacons at \(xmlEscaped(dBmText(settings.crowdedLevel))) or better</td></tr>\n"
        out += "<tr><td>○</td><td>a beacon, with its id; hover it for TX and measured power</td></tr>\n"
        if !settings.environment.obstacles.isEmpty {
            out += "<tr><td>▬</td><td>a wall; hover it for its loss in dB</td></tr>\n"
        }
        return out + "</table>\n"
    }

    private func summarySection(_ settings: CoverageSettings) -> String {
        var rows: [(String, String)] = [
            ("Covered", "\(numberText(summary.coverage.percent, places: 1)) % (\(area(summary.coverage.area))) at \(dBmText(settings.threshold)) or better"),
            ("Dead zones", "\(area(summary.deadZones.area)) in \(NumberText.count(summary.deadZones.regionCount, "region")) below \(dBmText(settings.deadBelow))"),
            ("Crowded", "\(area(summary.crowded.area)) in \(NumberText.count(summary.crowded.regionCount, "region")) hearing \(settings.crowdedAt)+ beacons at \(dBmText(settings.crowdedLevel)) or better"),
            ("Ties for nearest", "\(area(summary.ties.area)) in \(NumberText.count(summary.ties.regionCount, "region")), strongest two within \(numberText(settings.tieMargin)) dB"),
            ("Proximity of the nearest beacon",
             "immediate \(area(summary.proximity.immediate.area)) · near \(area(summary.proximity.near.area)) · far \(area(summary.proximity.far.area)) · unknown \(area(summary.proximity.unknown.area))"),
        ]
        if let weakest = summary.weakest {
            rows.append(("Weakest spot", "\(dBmText(weakest.rssi)) at (\(numberText(weakest.x)), \(numberText(weakest.y))) m, from \(weakest.beacon)"))
        }
        if !summary.unplacedBeacons.isEmpty {
            rows.append(("Not on the map (no position)", summary.unplacedBeacons.joined(separator: ", ")))
        }
        var out = "<h2>Summary</h2>\n<table>\n"
        for (label, value) in rows {
            out += "<tr><th>\(xmlEscaped(label))</th><td>\(xmlEscaped(value))</td></tr>\n"
        }
        return out + "</table>\n"
    }

    private func beaconSection() -> String {
        var out = "<h2>Beacons</h2>\n<p class=\"muted\">“Nearest over” is the area where the beacon is the strongest, where a phone would range it first. "
        out += "Proximity uses the measured power each beacon advertises (<code>auto</code>: TX power − 41 dB).</p>\n"
        out += "<table>\n<tr><th>beacon</th><th>zone</th><th class=\"number\">x, y (m)</th><th class=\"number\">TX power</th>"
        out += "<th class=\"number\">measured power</th><th class=\"number\">nearest over</th></tr>\n"
        for beacon in summary.beacons {
            out += "<tr><td><code>\(xmlEscaped(beacon.id))</code></td><td>\(xmlEscaped(beacon.zone ?? ""))</td>"
            out += "<td class=\"number\">\(numberText(beacon.x)), \(numberText(beacon.y))</td>"
            out += "<td class=\"number\">\(xmlEscaped(dBmText(beacon.txPower)))</td>"
            out += "<td class=\"number\">\(xmlEscaped(dBmText(beacon.measuredPower)))</td>"
            out += "<td class=\"number\">\(xmlEscaped(area(beacon.strongestArea)))</td></tr>\n"
        }
        return out + "</table>\n"
    }

    private func regionSection(_ title: String, _ zones: CoverageSummary.Zones, empty: String, explanation: String) -> String {
        var out = "<h2>\(xmlEscaped(title))</h2>\n"
        guard !zones.regions.isEmpty else { return out + "<p>\(xmlEscaped(empty))</p>\n" }
        out += "<p class=\"muted\">\(xmlEscaped(explanation))</p>\n<table>\n<tr>"
        let showsBeacons = zones.regions.contains { !$0.beacons.isEmpty }
        if showsBeacons { out += "<th>beacons</th>" }
        out += "<th class=\"number\">around (m)</th><th class=\"number\">area</th><th class=\"number\">extent x (m)</th><th class=\"number\">extent y (m)</th></tr>\n"
        for region in zones.regions {
            out += "<tr>"
            if showsBeacons { out += "<td>" + region.beacons.map { "<code>\(xmlEscaped($0))</code>" }.joined(separator: " / ") + "</td>" }
            out += "<td class=\"number\">\(numberText(region.x)), \(numberText(region.y))</td>"
            out += "<td class=\"number\">\(xmlEscaped(area(region.area)))</td>"
            out += "<td class=\"number\">\(numberText(region.minX))–\(numberText(region.maxX))</td>"
            out += "<td class=\"number\">\(numberText(region.minY))–\(numberText(region.maxY))</td></tr>\n"
        }
        out += "</table>\n"
        let hidden = zones.regionCount - zones.regions.count
        if hidden > 0 { out += "<p class=\"muted\">…and \(NumberText.count(hidden, "smaller region")).</p>\n" }
        return out
    }

    private func area(_ squareMetres: Double) -> String { "\(numberText(squareMetres, places: 1)) m²" }

}
