import BeaconCore
import Foundation
import Testing
import VirtualRadio

@testable import BeaconFleet

@Suite("Coverage maps")
struct CoverageMapTests {
    /// One beacon, free of walls, on a plan of `size` metres.
    func venue(_ beacons: [CoverageBeacon], width: Double, height: Double) -> CoverageVenue {
        CoverageVenue(id: "test", plan: PlanSize(width: width, height: height), beacons: beacons)
    }

    func beacon(_ id: String, _ x: Double, _ y: Double, txPower: Double = -8, measuredPower: Double? = nil) -> CoverageBeacon {
        CoverageBeacon(
            id: id, position: PlanPoint(x: x, y: y), txPower: txPower, measuredPower: measuredPower ?? txPower - 41)
    }

    /// Distance at which the model's mean RSSI falls to `rssi`: solve
    /// `tx − 41 − 10·n·log₁₀(d) = rssi`.
    func radius(txPower: Double, rssi: Double, exponent: Double) -> Double {
        pow(10, (txPower - 41 - rssi) / (10 * exponent))
    }

    /// The area of a circle of radius `r` centred in a square of side `2h`, for h ≤ r ≤ h√2:
    /// the disc minus the four circular segments cut off by the square's sides.
    func discInSquare(radius r: Double, halfSide h: Double) -> Double {
        let segment = r * r * acos(h / r) - h * (r * r - h * h).squareRoot()
        return Double.pi * r * r - 4 * segment
    }

    @Test("one beacon in the centre: covered and dead areas match the analytic circle")
    func centredBeaconMatchesCircle() throws {
        let settings = CoverageSettings(resolution: 0.25)
        let map = try #require(CoverageMap(venue: venue([beacon("centre", 20, 20)], width: 40, height: 40), settings: settings))
        let summary = map.summary

        let coveredRadius = radius(txPower: -8, rssi: -85, exponent: 3)  // 15.85 m
        let coveredArea = Double.pi * coveredRadius * coveredRadius
        // A cell counts whole or not at all, so the error is bounded by the cells the circle
        // crosses: about its circumference × resolution / 2 at worst, far less on average.
        #expect(abs(summary.coverage.area - coveredArea) < 2 * Double.pi * coveredRadius * 0.25 / 4)
        #expect(abs(summary.coverage.percent - 100 * coveredArea / 1600) < 0.5)

        let deadRadius = radius(txPower: -8, rssi: -90, exponent: 3)  // 23.3 m: past the sides, short of the corners
        #expect(deadRadius > 20 && deadRadius < 20 * 2.squareRoot())
        let deadArea = 1600 - discInSquare(radius: deadRadius, halfSide: 20)
        #expect(abs(summary.deadZones.area - deadArea) < 2 * Double.pi * deadRadius * 0.25 / 4)
        // The four corners, each its own region.
        #expect(summary.deadZones.regionCount == 4)
        #expect(summary.ties.regionCount == 0)
        #expect(summary.beacons.map(\.strongestArea) == [1600])
    }

    @Test("the weakest spot is the corner farthest from the beacon")
    func weakestSpotIsTheFarCorner() throws {
        let map = try #require(CoverageMap(venue: venue([beacon("b", 2, 2)], width: 10, height: 6), settings: .init()))
        let weakest = try #require(map.summary.weakest)
        #expect(weakest.x == 9.75 && weakest.y == 5.75)
        #expect(weakest.beacon == "b")
        let expected = -8 - 41 - 30 * log10(((9.75 - 2) * (9.75 - 2) + (5.75 - 2) * (5.75 - 2)).squareRoot())
        #expect(abs(weakest.rssi - expected) < 0.05)
    }

    @Test("two symmetric beacons tie along the bisector, and nowhere else")
    func symmetricBeaconsTieOnTheBisector() throws {
        let beacons = [beacon("west", 10, 10), beacon("east", 30, 10)]
        let map = try #require(CoverageMap(venue: venue(beacons, width: 40, height: 20), settings: .init()))
        let summary = map.summary
        #expect(summary.ties.regionCount == 1)
        let region = try #require(summary.ties.regions.first)
        #expect(region.beacons == ["west", "east"])
        // The bisector x = 20 falls on a cell edge: the cells on both sides tie, the full height.
        #expect(region.minX == 19.5 && region.maxX == 20.5)
        #expect(region.minY == 0 && region.maxY == 20)
        #expect(region.area == 20)
        #expect(abs(region.x - 20) <= 0.25)
        for cell in 0..<map.grid.cellCount where map.tie(at: cell) != nil {
            #expect(abs(map.grid.centre(of: cell).x - 20) < 0.5)
        }
        // Each is nearest over its half.
        #expect(summary.beacons.map(\.strongestArea) == [400, 400])
    }

    @Test("a tie margin widens the band where two beacons are within it")
    func tieMarginWidensTheBand() throws {
        let beacons = [beacon("west", 10, 10), beacon("east", 30, 10)]
        var settings = CoverageSettings()
        settings.tieMargin = 6
        let wide = try #require(CoverageMap(venue: venue(beacons, width: 40, height: 20), settings: settings)).summary
        #expect(wide.ties.area > 20)
        #expect(wide.ties.regions.first?.beacons == ["west", "east"])
    }

    @Test("a wall takes its loss from the cells behind it")
    func wallAttenuatesCellsBehindIt() throws {
        let wall = Obstacle(from: PlanPoint(x: 10, y: -1), to: PlanPoint(x: 10, y: 11), attenuation: 30)
        var settings = CoverageSettings()
        settings.environment.obstacles = [wall]
        let open = try #require(CoverageMap(venue: venue([beacon("b", 5, 5)], width: 20, height: 10), settings: .init()))
        let walled = try #require(CoverageMap(venue: venue([beacon("b", 5, 5)], width: 20, height: 10), settings: settings))
        for cell in 0..<open.grid.cellCount {
            let x = open.grid.centre(of: cell).x
            let loss = open.strongestRSSI[cell] - walled.strongestRSSI[cell]
            #expect(abs(loss - (x > 10 ? 30 : 0)) < 1e-9)
        }
        // Behind 30 dB of concrete nothing is usable: the whole east half is dead.
        #expect(walled.summary.deadZones.area == 100)
        #expect(open.summary.deadZones.area == 0)
    }

    @Test("crowded where enough beacons reach the crowding level")
    func crowdedZones() throws {
        let cluster = [beacon("a", 9, 10), beacon("b", 11, 10), beacon("c", 10, 11.7)]
        let map = try #require(CoverageMap(venue: venue(cluster, width: 30, height: 20), settings: .init()))
        let summary = map.summary
        // −70 dBm at −8 dBm TX and n = 3 is 5 m: the three overlap around the cluster only.
        #expect(summary.settings.crowdedThreshold == -70)
        #expect(summary.crowded.regionCount == 1)
        #expect(summary.crowded.area > 20 && summary.crowded.area < 200)
        for cell in 0..<map.grid.cellCount where map.isCrowded(cell) {
            let centre = map.grid.centre(of: cell)
            #expect(abs(centre.x - 10) < 6 && abs(centre.y - 10.5) < 6)
        }
        var four = CoverageSettings()
        four.crowdedAt = 4
        #expect(try #require(CoverageMap(venue: venue(cluster, width: 30, height: 20), settings: four)).summary.crowded.area == 0)
        var everywhere = CoverageSettings()
        everywhere.crowdedThreshold = -100
        #expect(try #require(CoverageMap(venue: venue(cluster, width: 30, height: 20), settings: everywhere)).summary.crowded.percent == 100)
    }

    @Test("proximity comes from the advertised measured power")
    func proximityUsesMeasuredPower() throws {
        let settings = CoverageSettings(resolution: 0.1)
        let honest = try #require(CoverageMap(venue: venue([beacon("b", 10, 10)], width: 20, height: 20), settings: settings))
        let proximity = honest.summary.proximity
        // With `auto` measured power and no walls the estimate is the true distance.
        #expect(abs(proximity.immediate.area - Double.pi * 0.25) < 0.1)
        #expect(abs(proximity.near.area - Double.pi * (9 - 0.25)) < 0.5)
        #expect(proximity.unknown.area == 0)

        // A measured power 12 dB under TX − 41 makes phones think the beacon is 2.5× nearer
        // (10^(12/30)): "near" then reaches 7.5 m.
        let calibrated = [beacon("b", 10, 10, measuredPower: -61)]
        let closer = try #require(CoverageMap(venue: venue(calibrated, width: 20, height: 20), settings: settings)).summary
        let nearRadius = 3 * pow(10, 12.0 / 30)
        #expect(abs(closer.proximity.near.area + closer.proximity.immediate.area - Double.pi * nearRadius * nearRadius) < 2)
    }

    @Test("the air can start from the measured power instead of the TX power")
    func airFromMeasuredPower() throws {
        // Calibrated at −61 dBm where TX − 41 would say −49: 12 dB quieter.
        let calibrated = [beacon("b", 20, 20, measuredPower: -61)]
        var settings = CoverageSettings(resolution: 0.25)
        let loud = try #require(CoverageMap(venue: venue(calibrated, width: 40, height: 40), settings: settings))
        settings.airFromMeasuredPower = true
        let quiet = try #require(CoverageMap(venue: venue(calibrated, width: 40, height: 40), settings: settings))
        for cell in stride(from: 0, to: loud.grid.cellCount, by: 97) {
            #expect(abs(loud.strongestRSSI[cell] - quiet.strongestRSSI[cell] - 12) < 1e-9)
        }
        let radius = pow(10, (-61 + 85) / 30.0)  // 6.3 m
        #expect(abs(quiet.summary.coverage.area - Double.pi * radius * radius) < 2 * Double.pi * radius * 0.25 / 4)
        // Ranged with the same measured power, the estimate is now exact: near is 3 m.
        #expect(abs(quiet.summary.proximity.near.area + quiet.summary.proximity.immediate.area - 9 * Double.pi) < 1)
        #expect(quiet.summary.settings.airFromMeasuredPower)
    }

    @Test("partial cells at the plan's edge count only their part")
    func partialCellsCountTheirPart() throws {
        let map = try #require(CoverageMap(venue: venue([beacon("b", 1, 1)], width: 2.3, height: 1.2), settings: .init()))
        #expect(map.grid.columns == 5 && map.grid.rows == 3)
        #expect(abs(map.grid.area(column: 4, row: 2) - 0.3 * 0.2) < 1e-12)
        #expect(abs(map.summary.coverage.area - 2.76) < 1e-9)
        #expect(map.summary.coverage.percent == 100)
    }

    @Test("a venue without beacons is all dead, without a weakest spot")
    func venueWithoutBeacons() throws {
        let map = try #require(CoverageMap(venue: venue([], width: 4, height: 3), settings: .init()))
        let summary = map.summary
        #expect(summary.deadZones.area == 12)
        #expect(summary.coverage.area == 0)
        #expect(summary.weakest == nil)
        #expect(summary.proximity.unknown.area == 12)
    }

    @Test("unusable settings and oversized grids give no map", arguments: [
        CoverageSettings(resolution: 0), CoverageSettings(resolution: .nan), CoverageSettings(threshold: -95),
        CoverageSettings(crowdedAt: 1), CoverageSettings(tieMargin: -1),
        CoverageSettings(environment: RadioEnvironment(pathLoss: PathLossModel(pathLossExponent: 0))),
        CoverageSettings(proximity: ProximityThresholds(immediateBelow: 3, nearBelow: 1)),
    ])
    func unusableSettings(_ settings: CoverageSettings) {
        #expect(settings.problem != nil)
        #expect(CoverageMap(venue: venue([], width: 10, height: 10), settings: settings) == nil)
    }

    @Test func oversizedGridIsRefused() {
        #expect(CoverageGrid(plan: PlanSize(width: 5000, height: 5000), resolution: 0.5) == nil)
        #expect(CoverageGrid(plan: PlanSize(width: 1e300, height: 1), resolution: 1e-300) == nil)
        #expect(CoverageGrid(plan: PlanSize(width: 24, height: 16), resolution: 0.1)?.cellCount == 240 * 160)
    }
}
