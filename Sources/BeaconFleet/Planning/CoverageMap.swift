import BeaconCore


/// Every cell of a plan judged by the model of the air: which beacon is strongest there and
/// how strong, the runner-up, how many beacons are heard, and the proximity class a phone
/// would give the strongest one.
public struct CoverageMap: Sendable {
    public let venue: CoverageVenue
    public let settings: CoverageSettings
    public let grid: CoverageGrid

    /// Per cell (see `CoverageGrid.index`): index into `venue.beacons` of the strongest
    /// beacon, or `nil` when the venue has no positioned beacon.
    public private(set) var strongest: [Int?]
    /// Per cell: the strongest beacon's mean RSSI, dBm (−∞ without beacons).
    public private(set) var strongestRSSI: [Double]
    /// Per cell: the second strongest beacon, when there is one.
    public private(set) var runnerUp: [Int?]
    public private(set) var runnerUpRSSI: [Double]
    /// Per cell: how many beacons reach `settings.crowdedLevel`.
    public private(set) var heardCount: [Int]
    /// Per cell: the proximity class of the strongest beacon's distance estimate.
    public private(set) var proximity: [Proximity]

    /// Computes the map, or `nil` when the settings are unusable (`settings.problem`) or the
    /// grid too fine for the plan (`CoverageGrid.maximumCells`).
    public init?(venue: CoverageVenue, settings: CoverageSettings) {
        guard settings.problem == nil, let grid = CoverageGrid(plan: venue.plan, resolution: settings.resolution)
        else { return nil }
        self.venue = venue
        self.settings = settings
        self.grid = grid
        let count = grid.cellCount
        strongest = Array(repeating: nil, count: count)
        strongestRSSI = Array(repeating: -.infinity, count: count)
        runnerUp = Array(repeating: nil, count: count)
        runnerUpRSSI = Array(repeating: -.infinity, count: count)
        heardCount = Array(repeating: 0, count: count)
        proximity = Array(repeating: .unknown, count: count)
        fill()
    }

    private mutating func fill() {
        let model = settings.environment
        let ranging = settings.distanceModel
        let crowdedLevel = settings.crowdedLevel
        let radiated = venue.beacons.map(settings.radiatedPower)
        for cell in 0..<grid.cellCount {
            let receiver = grid.centre(of: cell)
            var best: (index: Int, rssi: Double)?
            var second: (index: Int, rssi: Double)?
            var heard = 0
            for (index, beacon) in venue.beacons.enumerated() {
                let rssi = model.meanRSSI(txPower: radiated[index], from: beacon.position, to: receiver)
                if rssi >= crowdedLevel { heard += 1 }
                if rssi > best?.rssi ?? -.infinity {
                    second = best
                    best = (index, rssi)
                } else if rssi > second?.rssi ?? -.infinity {
                    second = (index, rssi)
                }
            }
            heardCount[cell] = heard
            guard let best else { continue }
            strongest[cell] = best.index
            strongestRSSI[cell] = best.rssi
            runnerUp[cell] = second?.index
            runnerUpRSSI[cell] = second?.rssi ?? -.infinity
            // A phone hears nothing below the receiver's sensitivity, so it cannot range.
            if best.rssi >= model.receiverSensitivity {
                let measured = venue.beacons[best.index].measuredPower
                proximity[cell] = settings.proximity.classify(
                    distance: ranging.distance(rssi: best.rssi, measuredPower: measured))
            }
        }
    }

    public func isCovered(_ cell: Int) -> Bool { strongestRSSI[cell] >= settings.threshold }
    public func isDead(_ cell: Int) -> Bool { strongestRSSI[cell] < settings.deadBelow }
    public func isCrowded(_ cell: Int) -> Bool { heardCount[cell] >= settings.crowdedAt }

    /// The pair of beacons tying for strongest in a covered cell, smaller index first, or
    /// `nil`. A cell ties when its two strongest beacons are within `tieMargin` of each other,
    /// or when the strongest beacon changes to its runner-up across an edge and this cell
    /// is the nearer one to where they are equal: without that second rule a boundary that
    /// falls between cell centres (two beacons placed symmetrically) would show no tie at all.
    public func tie(at cell: Int) -> (Int, Int)? {
        guard isCovered(cell), let first = strongest[cell], let second = runnerUp[cell] else { return nil }
        let pair = (min(first, second), max(first, second))
        let gap = strongestRSSI[cell] - runnerUpRSSI[cell]
        if gap < settings.tieMargin { return pair }
        let column = grid.column(of: cell)
        let row = grid.row(of: cell)
        for (c, r) in [(column - 1, row), (column + 1, row), (column, row - 1), (column, row + 1)]
        where c >= 0 && c < grid.columns && r >= 0 && r < grid.rows {
            let other = grid.index(column: c, row: r)
            guard strongest[other] == second, runnerUp[other] == first else { continue }
            if gap <= strongestRSSI[other] - runnerUpRSSI[other] { return pair }
        }
        return nil
    }
}
