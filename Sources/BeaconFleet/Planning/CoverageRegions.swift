import BeaconCore

/// A patch of cells that belong together: touching (edges or corners) and sharing a key,
/// such as "dead" or "beacons 2 and 5 tie here".
public struct CoverageRegion: Hashable, Sendable {
    public var key: Int
    public var cells: [Int]
    public var area: Double
    /// The centre of the region's cell nearest to its centroid: a point inside the region
    /// to point a person at, even when the region is curved (a centroid may fall outside).
    public var representative: PlanPoint
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double
}

extension CoverageGrid {
    /// Groups the cells with a key into regions of touching cells sharing that key, largest
    /// area first (ties broken by position, so the order is stable).
    public func regions(keys: [Int?]) -> [CoverageRegion] {
        var visited = [Bool](repeating: false, count: cellCount)
        var regions: [CoverageRegion] = []
        for start in 0..<min(cellCount, keys.count) where !visited[start] {
            guard let key = keys[start] else { continue }
            visited[start] = true
            var members = [start]
            var next = 0
            while next < members.count {
                for neighbour in neighbours(of: members[next]) where !visited[neighbour] && keys[neighbour] == key {
                    visited[neighbour] = true
                    members.append(neighbour)
                }
                next += 1
            }
            regions.append(region(key: key, cells: members))
        }
        return regions.sorted { ($0.area, $1.cells[0]) > ($1.area, $0.cells[0]) }
    }

    private func region(key: Int, cells: [Int]) -> CoverageRegion {
        var area = 0.0
        var sumX = 0.0
        var sumY = 0.0
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for cell in cells {
            let cellArea = self.area(of: cell)
            let centre = self.centre(of: cell)
            area += cellArea
            sumX += centre.x * cellArea
            sumY += centre.y * cellArea
            let box = bounds(column: column(of: cell), row: row(of: cell))
            minX = min(minX, box.minX)
            minY = min(minY, box.minY)
            maxX = max(maxX, box.maxX)
            maxY = max(maxY, box.maxY)
        }
        let centroid = PlanPoint(x: sumX / area, y: sumY / area)
        var representative = centre(of: cells[0])
        var bestDistance = Double.infinity
        for cell in cells {
            let point = centre(of: cell)
            let distance = (point.x - centroid.x) * (point.x - centroid.x) + (point.y - centroid.y) * (point.y - centroid.y)
            if distance < bestDistance {
                bestDistance = distance
                representative = point
            }
        }
        return CoverageRegion(
            key: key, cells: cells, area: area, representative: representative, minX: minX, minY: minY,
            maxX: maxX, maxY: maxY)
    }
}
