#if canImport(Glibc)
import BeaconFleet
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The key under the map: scale bar, colour bands, symbols.
extension CoverageSVG {
    /// Under the map: the scale bar on the left, the colour key on the right, and a row
    /// (or two) explaining the symbols.
    func key() -> String {
        var out = "<g id=\"key\" font-size=\"11.5\" fill=\"#222\">\n"
        out += scaleBar(top: keyTop)
        out += colourKey(top: keyTop)
        for (row, items) in symbolRows.enumerated() {
            var x = margin
            let y = keyTop + 52 + Double(row) * 20
            for item in items {
                out += symbol(item.kind, x: x, y: y)
                out += "<text x=\"\(numberText(x + 26))\" y=\"\(numberText(y + 4))\">\(xmlEscaped(item.text))</text>\n"
                x += item.width
            }
        }
        return out + "</g>\n"
    }

    func scaleBar(top: Double) -> String {
        let metres = Self.niceLength(near: map.venue.plan.width / 4)
        let half = metres / 2 * pixelsPerMetre
        var out = "<rect x=\"\(numberText(margin))\" y=\"\(numberText(top))\" width=\"\(numberText(half))\" height=\"8\" fill=\"#111\"/>"
        out += "<rect x=\"\(numberText(margin + half))\" y=\"\(numberText(top))\" width=\"\(numberText(half))\" height=\"8\" fill=\"#ffffff\" stroke=\"#111\"/>\n"
        for (offset, label) in [(0.0, "0"), (half, numberText(metres / 2)), (2 * half, numberText(metres) + " m")] {
            out += "<text x=\"\(numberText(margin + offset))\" y=\"\(numberText(top + 24))\" text-anchor=\"\(offset == 0 ? "start" : "middle")\">\(label)</text>"
        }
        return out + "\n"
    }

    /// A round length (1, 2 or 5 × a power of ten) nearest to `target` metres.
    static func niceLength(near target: Double) -> Double {
        guard target.isFinite, target > 0 else { return 1 }
        var power = 1.0
        while power * 10 <= target { power *= 10 }
        while power > target { power /= 10 }
        let candidates = [power, 2 * power, 5 * power, 10 * power]
        return candidates.min { abs(log10($0 / target)) < abs(log10($1 / target)) } ?? power
    }

    /// A row of swatches, one per band, labelled at the boundaries where each band starts.
    func colourKey(top: Double) -> String {
        let swatch = 44.0
        let left = width - margin - 28 - swatch * Double(scale.bands.count)
        var out = "<text x=\"\(numberText(left))\" y=\"\(numberText(top - 7))\" font-weight=\"bold\">strongest beacon's mean RSSI (dBm)</text>\n"
        for (index, band) in scale.bands.enumerated() {
            let x = left + Double(index) * swatch
            let fill = index == scale.deadBand ? "url(#dead-hatch)" : band.fill
            out += "<rect x=\"\(numberText(x))\" y=\"\(numberText(top))\" width=\"\(numberText(swatch))\" height=\"14\" fill=\"\(fill)\" stroke=\"#666\" stroke-width=\"0.5\"/>"
            if let lower = band.lower {
                out += "<text x=\"\(numberText(x))\" y=\"\(numberText(top + 28))\" text-anchor=\"middle\">\(signedText(lower))</text>"
            }
            out += "\n"
        }
        return out
    }

    enum SymbolKind { case dead, marginal, crowded, beacon, wall }

    /// The symbol explanations, laid out in rows that fit the picture's width.
    var symbolRows: [[(kind: SymbolKind, text: String, width: Double)]] {
        let settings = map.settings
        var items: [(SymbolKind, String)] = [
            (.dead, "dead zone: nothing at \(dBmText(settings.deadBelow)) or better"),
            (.marginal, "heard, below the \(dBmText(settings.threshold)) threshold"),
            (.crowded, "crowded: \(settings.crowdedAt)+ beacons at \(dBmText(settings.crowdedLevel)) or better"),
            (.beacon, "beacon"),
        ]
        if !settings.environment.obstacles.isEmpty { items.append((.wall, "wall")) }
        var rows: [[(kind: SymbolKind, text: String, width: Double)]] = [[]]
        var used = margin
        for (kind, text) in items {
            let itemWidth = 26 + Double(text.count) * Self.keyCharacterWidth + 22
            if used + itemWidth > width - margin, !(rows[rows.count - 1].isEmpty) {
                rows.append([])
                used = margin
            }
            rows[rows.count - 1].append((kind, text, itemWidth))
            used += itemWidth
        }
        return rows
    }

    func symbol(_ kind: SymbolKind, x: Double, y: Double) -> String {
        let left = numberText(x)
        switch kind {
        case .dead, .marginal:
            let fill = kind == .dead ? "url(#dead-hatch)" : CoverageColorScale.marginalFill
            return "<rect x=\"\(left)\" y=\"\(numberText(y - 6))\" width=\"20\" height=\"12\" fill=\"\(fill)\" stroke=\"#666\" stroke-width=\"0.5\"/>"
        case .crowded:
            return "<rect x=\"\(left)\" y=\"\(numberText(y - 6))\" width=\"20\" height=\"12\" fill=\"url(#crowded-dots)\" stroke=\"#ffffff\" stroke-width=\"3.5\"/>"
                + "<rect x=\"\(left)\" y=\"\(numberText(y - 6))\" width=\"20\" height=\"12\" fill=\"none\" stroke=\"\(Self.crowdedColour)\" stroke-width=\"2\" stroke-dasharray=\"7 4\"/>"
        case .beacon:
            return "<circle cx=\"\(numberText(x + 10))\" cy=\"\(numberText(y))\" r=\"5.5\" fill=\"#ffffff\" stroke=\"#111\" stroke-width=\"2\"/>"
                + "<circle cx=\"\(numberText(x + 10))\" cy=\"\(numberText(y))\" r=\"1.8\" fill=\"#111\"/>"
        case .wall:
            return "<path d=\"M\(numberText(x + 2)) \(numberText(y))h16\" stroke=\"#222\" stroke-width=\"4\" stroke-linecap=\"round\"/>"
        }
    }
}
