import BeaconCore

/// The plan cut into square cells of `resolution` metres, row by row from the top-left
/// corner. The last column and row are narrower when the plan is not a whole number of
/// cells: each cell's area and centre are those of its part on the plan.
public struct CoverageGrid: Hashable, Sendable {
    public let plan: PlanSize
    public let resolution: Double
    public let columns: Int
    public let rows: Int

    /// More cells than this take seconds per beacon and draw pictures nobody can open.
    public static let maximumCells = 4_000_000

    /// `nil` when the plan or resolution is not positive and finite, or the grid would
    /// exceed `maximumCells`.
    public init?(plan: PlanSize, resolution: Double) {
        guard plan.width.isFinite, plan.height.isFinite, plan.width > 0, plan.height > 0,
            resolution.isFinite, resolution > 0
        else { return nil }
        let columnCount = Self.count(plan.width, resolution)
        let rowCount = Self.count(plan.height, resolution)
        guard columnCount <= Self.maximumCells, rowCount <= Self.maximumCells,
            columnCount * rowCount <= Self.maximumCells
        else { return nil }
        self.plan = plan
        self.resolution = resolution
        columns = columnCount
        rows = rowCount
    }

    /// Cells needed to cover `length`; a sliver under a millionth of a cell (rounding in
    /// `24 / 0.1`) does not get a cell of its own.
    private static func count(_ length: Double, _ resolution: Double) -> Int {
        let exact = length / resolution
        guard exact < Double(maximumCells) + 1 else { return maximumCells + 1 }
        return max(1, Int((exact - 1e-6).rounded(.up)))
    }

    public var cellCount: Int { columns * rows }

    public func index(column: Int, row: Int) -> Int { row * columns + column }

    public func column(of index: Int) -> Int { index % columns }
    public func row(of index: Int) -> Int { index / columns }

    /// Left, top, right and bottom edges of a cell in metres, clipped to the plan.
    public func bounds(column: Int, row: Int) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let minX = Double(column) * resolution
        let minY = Double(row) * resolution
        return (minX, minY, min(minX + resolution, plan.width), min(minY + resolution, plan.height))
    }

    public func centre(column: Int, row: Int) -> PlanPoint {
        let box = bounds(column: column, row: row)
        return PlanPoint(x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2)
    }

    public func area(column: Int, row: Int) -> Double {
        let box = bounds(column: column, row: row)
        return (box.maxX - box.minX) * (box.maxY - box.minY)
    }

    public func centre(of index: Int) -> PlanPoint { centre(column: column(of: index), row: row(of: index)) }
    public func area(of index: Int) -> Double { area(column: column(of: index), row: row(of: index)) }

    /// The up-to-8 cells touching `index`, edges and corners.
    public func neighbours(of index: Int) -> [Int] {
        let column = column(of: index)
        let row = row(of: index)
        var result: [Int] = []
        result.reserveCapacity(8)
        for rowStep in -1...1 {
            for columnStep in -1...1 where rowStep != 0 || columnStep != 0 {
                let c = column + columnStep
                let r = row + rowStep
                if c >= 0, c < columns, r >= 0, r < rows { result.append(self.index(column: c, row: r)) }
            }
        }
        return result
    }
}
