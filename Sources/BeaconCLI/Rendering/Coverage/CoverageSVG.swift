import BeaconCore
import BeaconFleet

/// Draws a coverage map as a standalone SVG: title, heat map of the strongest beacon's mean
/// RSSI in stepped colours, dead zones hatched, crowded zones outlined, walls, beacons with
/// their ids, the plan's border, a scale bar and the colour key.
public struct CoverageSVG {
    public let map: CoverageMap
    let summary: CoverageSummary
    let scale: CoverageColorScale
    /// Pixels per metre.
    let pixelsPerMetre: Double
    /// Left edge of the text; the map sits further right to leave room for the y labels.
    let margin = 24.0
    let mapLeft = 56.0
    /// What the map assumes, in one or two lines under the title.
    let detailLines: [String]
    /// The map starts under the heading: title, detail lines, headline numbers.
    let mapTop: Double

    /// The largest map drawn, in pixels: fits a laptop screen and a README column zoomed out.
    static let maximumMapWidth = 880.0
    static let maximumMapHeight = 560.0
    static let crowdedColour = "#d6006f"
    /// The key needs this width whatever the plan's shape.
    static let minimumWidth = 760.0
    /// Rough width of a character of the 11.5 px key text, to lay the key out without a
    /// font engine.
    static let keyCharacterWidth = 6.3

    public init(map: CoverageMap, summary: CoverageSummary? = nil) {
        self.map = map
        self.summary = summary ?? map.summary
        scale = CoverageColorScale(threshold: map.settings.threshold, deadBelow: map.settings.deadBelow)
        let plan = map.venue.plan
        pixelsPerMetre = min(Self.maximumMapWidth / plan.width, Self.maximumMapHeight / plan.height)
        let width = max(mapLeft + plan.width * pixelsPerMetre + margin, Self.minimumWidth)
        detailLines = Self.detailLines(map, width: width - 2 * margin)
        mapTop = 104 + 16 * Double(detailLines.count - 1)
    }

    var mapWidth: Double { map.venue.plan.width * pixelsPerMetre }
    var mapHeight: Double { map.venue.plan.height * pixelsPerMetre }
    var width: Double { max(mapLeft + mapWidth + margin, Self.minimumWidth) }
    var height: Double { keyTop + 48 + Double(symbolRows.count) * 20 + 10 }
    var keyTop: Double { mapTop + mapHeight + 34 }

    func px(_ x: Double) -> String { numberText(mapLeft + x * pixelsPerMetre) }
    func py(_ y: Double) -> String { numberText(mapTop + y * pixelsPerMetre) }
    func length(_ metres: Double) -> String { numberText(metres * pixelsPerMetre) }

    /// The document, with an XML declaration.
    public func render() -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + renderElement()
    }

    /// The `<svg>` element alone, for embedding in an HTML page.
    public func renderElement() -> String {
        var out = ""
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(numberText(width))\" height=\"\(numberText(height))\" "
        out += "viewBox=\"0 0 \(numberText(width)) \(numberText(height))\" font-family=\"Helvetica, Arial, sans-serif\" "
        out += "role=\"img\" aria-labelledby=\"coverage-title\">\n"
        out += "<title id=\"coverage-title\">\(xmlEscaped(titleText))</title>\n"
        out += definitions()
        out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        out += heading()
        out += heatMap()
        out += axes()
        out += overlay(id: "dead-zones", fill: "url(#dead-hatch)") { map.isDead($0) }
        out += overlay(id: "crowded-dots", fill: "url(#crowded-dots)") { map.isCrowded($0) }
        out += crowdedOutline()
        out += walls()
        out += border()
        out += beacons()
        out += key()
        out += "</svg>\n"
        return out
    }

    var titleText: String {
        let venue = map.venue
        var title = "Coverage of " + (venue.name ?? venue.id)
        if let floor = venue.floor { title += ", \(floor)" }
        return title
    }

    private func definitions() -> String {
        """
        <defs>
        <pattern id="dead-hatch" patternUnits="userSpaceOnUse" width="8" height="8" patternTransform="rotate(45)">
        <rect width="8" height="8" fill="\(CoverageColorScale.deadFill)"/>
        <line x1="0" y1="0" x2="0" y2="8" stroke="\(CoverageColorScale.deadHatch)" stroke-width="2.5"/>
        </pattern>
        <pattern id="crowded-dots" patternUnits="userSpaceOnUse" width="9" height="9">
        <circle cx="4.5" cy="4.5" r="1.6" fill="\(Self.crowdedColour)" stroke="#ffffff" stroke-width="0.6"/>
        </pattern>
        </defs>

        """
    }

    /// What the map assumes, in as many lines as `room` pixels need (one or two).
    private static func detailLines(_ map: CoverageMap, width room: Double) -> [String] {
        let settings = map.settings
        let venue = map.venue
        let walls = settings.environment.obstacles.count
        var parts = [
            venue.id, "\(numberText(venue.plan.width)) × \(numberText(venue.plan.height)) m plan",
            "\(NumberText.count(venue.beacons.count, "beacon"))",
            "path-loss exponent \(numberText(settings.environment.pathLoss.pathLossExponent))",
            walls == 0 ? "no walls" : "\(NumberText.count(walls, "wall"))",
        ]
        if settings.airFromMeasuredPower { parts.append("1 m RSSI = measured power") }
        parts.append("\(numberText(settings.resolution)) m grid")
        // 6.6 px per character of 12.5 px text, rounded up: an estimate without a font engine.
        let characters = Int(saturating: room / 6.6, rounding: .towardZero)
        var lines = [""]
        for part in parts {
            let candidate = lines[lines.count - 1].isEmpty ? part : lines[lines.count - 1] + " · " + part
            if candidate.count > characters, !lines[lines.count - 1].isEmpty, lines.count < 2 {
                lines.append(part)
            } else {
                lines[lines.count - 1] = candidate
            }
        }
        return lines
    }

    private func heading() -> String {
        let settings = map.settings
        let crowdedArea = summary.crowded.area >= summary.plan.area - 1e-6
            ? "everywhere" : "\(numberText(summary.crowded.area, places: 1)) m²"
        let headline = "Covered (≥ \(dBmText(settings.threshold))): \(numberText(summary.coverage.percent, places: 1)) %"
            + "   ·   dead (< \(dBmText(settings.deadBelow))): \(numberText(summary.deadZones.area, places: 1)) m²"
            + "   ·   crowded (\(settings.crowdedAt)+ beacons at ≥ \(dBmText(settings.crowdedLevel))): \(crowdedArea)"
        var out = "<text x=\"\(numberText(margin))\" y=\"30\" font-size=\"20\" font-weight=\"bold\" fill=\"#111\">\(xmlEscaped(titleText))</text>\n"
        for (index, line) in detailLines.enumerated() {
            out += "<text x=\"\(numberText(margin))\" y=\"\(52 + 16 * index)\" font-size=\"12.5\" fill=\"#444\">\(xmlEscaped(line))</text>\n"
        }
        out += "<text x=\"\(numberText(margin))\" y=\"\(numberText(mapTop - 32))\" font-size=\"13\" font-weight=\"bold\" fill=\"#111\">\(xmlEscaped(headline))</text>\n"
        return out
    }

    /// Metre ticks along the top and left edges, with faint lines across the map, so a
    /// position from the summary can be found on the picture.
    private func axes() -> String {
        let plan = map.venue.plan
        let step = Self.niceLength(near: max(plan.width, plan.height) / 8)
        var lines = ""
        var labels = ""
        var x = 0.0
        while x <= plan.width + 1e-9 {
            if x > 0 && x < plan.width - 1e-9 { lines += "M\(px(x)) \(py(0))V\(py(plan.height))" }
            labels += "<text x=\"\(px(x))\" y=\"\(numberText(mapTop - 8))\" text-anchor=\"middle\">\(numberText(x))</text>"
            x += step
        }
        var y = 0.0
        while y <= plan.height + 1e-9 {
            if y > 0 && y < plan.height - 1e-9 { lines += "M\(px(0)) \(py(y))H\(px(plan.width))" }
            labels += "<text x=\"\(numberText(mapLeft - 7))\" y=\"\(numberText(mapTop + y * pixelsPerMetre + 4))\" text-anchor=\"end\">\(numberText(y))</text>"
            y += step
        }
        var out = ""
        if !lines.isEmpty {
            out += "<path id=\"metre-grid\" d=\"\(lines)\" stroke=\"#ffffff\" stroke-opacity=\"0.35\" stroke-width=\"1\" fill=\"none\"/>\n"
        }
        out += "<g id=\"axes\" font-size=\"11\" fill=\"#555\">\(labels)"
        out += "<text x=\"\(numberText(mapLeft - 7))\" y=\"\(numberText(mapTop - 8))\" text-anchor=\"end\">m</text></g>\n"
        return out
    }

    /// One path per colour band, each a rectangle per run of same-band cells in a row:
    /// a small fraction of the size of a rectangle element per cell.
    private func heatMap() -> String {
        let bands = runs { cell in
            let band = scale.band(for: map.strongestRSSI[cell])
            return band == scale.deadBand ? nil : band
        }
        var out = "<g id=\"heat-map\" shape-rendering=\"crispEdges\">\n"
        for band in bands.keys.sorted() {
            out += "<path fill=\"\(scale.bands[band].fill)\" d=\"\(bands[band] ?? "")\"/>\n"
        }
        return out + "</g>\n"
    }

    /// Cells where `included` holds, as one path filled with `fill`.
    private func overlay(id: String, fill: String, where included: (Int) -> Bool) -> String {
        guard let path = runs({ included($0) ? 0 : nil })[0] else { return "" }
        return "<path id=\"\(id)\" shape-rendering=\"crispEdges\" fill=\"\(fill)\" d=\"\(path)\"/>\n"
    }

    /// Path data per key: a closed rectangle for each run of cells with that key in a row.
    private func runs(_ key: (Int) -> Int?) -> [Int: String] {
        let grid = map.grid
        var paths: [Int: String] = [:]
        for row in 0..<grid.rows {
            var column = 0
            while column < grid.columns {
                guard let value = key(grid.index(column: column, row: row)) else {
                    column += 1
                    continue
                }
                var end = column + 1
                while end < grid.columns, key(grid.index(column: end, row: row)) == value { end += 1 }
                let first = grid.bounds(column: column, row: row)
                let last = grid.bounds(column: end - 1, row: row)
                let width = length(last.maxX - first.minX)
                paths[value, default: ""] += "M\(px(first.minX)) \(py(first.minY))h\(width)v\(length(first.maxY - first.minY))h-\(width)z"
                column = end
            }
        }
        return paths
    }

    /// The border of the crowded cells as one path: every cell edge between a crowded cell
    /// and a non-crowded one (or the plan's edge), joined into runs along each grid line.
    private func crowdedOutline() -> String {
        let grid = map.grid
        func crowded(_ column: Int, _ row: Int) -> Bool {
            column >= 0 && column < grid.columns && row >= 0 && row < grid.rows
                && map.isCrowded(grid.index(column: column, row: row))
        }
        var path = ""
        // Horizontal edges: the line above row `row` (row == rows is the bottom edge).
        for row in 0...grid.rows {
            var column = 0
            while column < grid.columns {
                guard crowded(column, row - 1) != crowded(column, row) else {
                    column += 1
                    continue
                }
                var end = column + 1
                while end < grid.columns, crowded(end, row - 1) != crowded(end, row) { end += 1 }
                let y = row == grid.rows ? map.venue.plan.height : Double(row) * grid.resolution
                let x0 = Double(column) * grid.resolution
                let x1 = min(Double(end) * grid.resolution, map.venue.plan.width)
                path += "M\(px(x0)) \(py(y))H\(px(x1))"
                column = end
            }
        }
        // Vertical edges: the line left of column `column`.
        for column in 0...grid.columns {
            var row = 0
            while row < grid.rows {
                guard crowded(column - 1, row) != crowded(column, row) else {
                    row += 1
                    continue
                }
                var end = row + 1
                while end < grid.rows, crowded(column - 1, end) != crowded(column, end) { end += 1 }
                let x = column == grid.columns ? map.venue.plan.width : Double(column) * grid.resolution
                let y0 = Double(row) * grid.resolution
                let y1 = min(Double(end) * grid.resolution, map.venue.plan.height)
                path += "M\(px(x)) \(py(y0))V\(py(y1))"
                row = end
            }
        }
        guard !path.isEmpty else { return "" }
        // A white line under a dark dashed one: visible on dark and bright bands alike.
        return """
            <g id="crowded-zones" fill="none">
            <path d="\(path)" stroke="#ffffff" stroke-width="3.5"/>
            <path d="\(path)" stroke="\(Self.crowdedColour)" stroke-width="2" stroke-dasharray="7 4"/>
            </g>

            """
    }

    private func walls() -> String {
        let obstacles = map.settings.environment.obstacles
        guard !obstacles.isEmpty else { return "" }
        var out = "<g id=\"walls\" stroke=\"#222\" stroke-width=\"4\" stroke-linecap=\"round\">\n"
        for wall in obstacles {
            out += "<line x1=\"\(px(wall.from.x))\" y1=\"\(py(wall.from.y))\" x2=\"\(px(wall.to.x))\" y2=\"\(py(wall.to.y))\">"
            out += "<title>wall, \(numberText(wall.attenuation, places: 1)) dB</title></line>\n"
        }
        return out + "</g>\n"
    }

    private func border() -> String {
        "<rect id=\"plan-border\" x=\"\(px(0))\" y=\"\(py(0))\" width=\"\(length(map.venue.plan.width))\" "
            + "height=\"\(length(map.venue.plan.height))\" fill=\"none\" stroke=\"#111\" stroke-width=\"2\"/>\n"
    }
}

