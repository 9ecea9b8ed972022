import BeaconFleet

/// Beacons on the map: markers, and ids placed where they overlap least.
extension CoverageSVG {
    /// A marker per beacon and its id beside it, on a white halo so it reads on any band.
    func beacons() -> String {
        var out = "<g id=\"beacons\" font-size=\"12\">\n"
        let labels = labelPlacements()
        for (beacon, label) in zip(map.venue.beacons, labels) {
            let x = mapLeft + beacon.position.x * pixelsPerMetre
            let y = mapTop + beacon.position.y * pixelsPerMetre
            var tooltip = "\(beacon.id): TX \(numberText(beacon.txPower)) dBm, measured power \(numberText(beacon.measuredPower)) dBm"
            if let zone = beacon.zone { tooltip += ", zone \(zone)" }
            out += "<g class=\"beacon\"><title>\(xmlEscaped(tooltip))</title>"
            out += "<circle cx=\"\(numberText(x))\" cy=\"\(numberText(y))\" r=\"5.5\" fill=\"#ffffff\" stroke=\"#111\" stroke-width=\"2\"/>"
            out += "<circle cx=\"\(numberText(x))\" cy=\"\(numberText(y))\" r=\"1.8\" fill=\"#111\"/>"
            out += "<text x=\"\(numberText(label.x))\" y=\"\(numberText(label.y))\" text-anchor=\"\(label.anchor)\" "
            out += "fill=\"#111\" stroke=\"#ffffff\" stroke-width=\"3.5\" stroke-linejoin=\"round\" paint-order=\"stroke\">"
            out += "\(xmlEscaped(beacon.id))</text></g>\n"
        }
        return out + "</g>\n"
    }

    /// Where each beacon's id goes: beside the marker, or above or below it, wherever it
    /// overlaps the markers and the labels placed so far least (right of the marker when
    /// nothing is in the way). Widths are estimated without a font engine, generously.
    private func labelPlacements() -> [(x: Double, y: Double, anchor: String)] {
        struct Box {
            var minX, minY, maxX, maxY: Double
            func overlap(_ other: Box) -> Double {
                max(0, min(maxX, other.maxX) - max(minX, other.minX)) * max(0, min(maxY, other.maxY) - max(minY, other.minY))
            }
        }
        let points = map.venue.beacons.map { beacon in
            (x: mapLeft + beacon.position.x * pixelsPerMetre, y: mapTop + beacon.position.y * pixelsPerMetre)
        }
        let markers = points.map { Box(minX: $0.x - 6, minY: $0.y - 6, maxX: $0.x + 6, maxY: $0.y + 6) }
        let map = Box(minX: mapLeft - 2, minY: mapTop - 2, maxX: mapLeft + mapWidth + 2, maxY: mapTop + mapHeight + 2)
        var placed: [Box] = []
        var result: [(x: Double, y: Double, anchor: String)] = []
        for (index, point) in points.enumerated() {
            let (x, y) = point
            let width = Double(self.map.venue.beacons[index].id.count) * 6.8
            func box(_ left: Double, _ baseline: Double) -> Box {
                Box(minX: left, minY: baseline - 11, maxX: left + width, maxY: baseline + 3)
            }
            // (text x, baseline, anchor, box): right, left, above, below, then the diagonals.
            let candidates: [(Double, Double, String, Box)] = [
                (x + 9, y + 4, "start", box(x + 9, y + 4)),
                (x - 9, y + 4, "end", box(x - 9 - width, y + 4)),
                (x, y - 10, "middle", box(x - width / 2, y - 10)),
                (x, y + 19, "middle", box(x - width / 2, y + 19)),
                (x + 5, y - 9, "start", box(x + 5, y - 9)),
                (x + 5, y + 18, "start", box(x + 5, y + 18)),
                (x - 5, y - 9, "end", box(x - 5 - width, y - 9)),
                (x - 5, y + 18, "end", box(x - 5 - width, y + 18)),
            ]
            func cost(_ candidate: Box) -> Double {
                let offMap = candidate.minX < map.minX || candidate.maxX > map.maxX
                    || candidate.minY < map.minY || candidate.maxY > map.maxY
                let labels = placed.reduce(0) { $0 + $1.overlap(candidate) }
                let others = markers.enumerated().reduce(0) { $0 + ($1.offset == index ? 0 : 4 * $1.element.overlap(candidate)) }
                return (offMap ? 1e9 : 0) + labels + others
            }
            var best = candidates[0]
            var bestCost = cost(best.3)
            for candidate in candidates.dropFirst() where bestCost > 0 {
                let candidateCost = cost(candidate.3)
                if candidateCost < bestCost {
                    best = candidate
                    bestCost = candidateCost
                }
            }
            placed.append(best.3)
            result.append((best.0, best.1, best.2))
        }
        return result
    }
}
