import BeaconCore
import Testing
import VirtualRadio

@testable import BeaconFleet

@Suite("Walls files")
struct CoverageWallsTests {
    @Test("walls, runs of walls, comments and both ways of writing dB")
    func readsWalls() throws {
        let text = """
            # venue   from   to     loss
            modern-art  7,0  7,8  12dB   # west room, north of the door

            modern-art  19,0 19,20 28,20  4 dB
            lab 0,5 10.5,5 3\r
            """
        let walls = try CoverageWalls.parse(text, file: "walls.txt")
        #expect(walls.walls(for: "modern-art") == [
            Obstacle(from: PlanPoint(x: 7, y: 0), to: PlanPoint(x: 7, y: 8), attenuation: 12),
            Obstacle(from: PlanPoint(x: 19, y: 0), to: PlanPoint(x: 19, y: 20), attenuation: 4),
            Obstacle(from: PlanPoint(x: 19, y: 20), to: PlanPoint(x: 28, y: 20), attenuation: 4),
        ])
        #expect(walls.walls(for: "lab") == [Obstacle(from: PlanPoint(x: 0, y: 5), to: PlanPoint(x: 10.5, y: 5), attenuation: 3)])
        #expect(walls.walls(for: "nowhere").isEmpty)
    }

    @Test("every bad line is reported at its line and column")
    func reportsEveryProblem() throws {
        let text = """
            hall 0,0 5,0 12dB
            hall 0,0 12dB
            hall 0,0 5;0 12dB
            hall 0,0 5,0 lots
            hall 0,0 0,0 12dB
            hall 0,0 5,0 120dB
            hall 0,0 5,0 nan
            """
        let failure = try #require(throws: CoverageWalls.ParseFailure.self) {
            try CoverageWalls.parse(text, file: "walls.txt")
        }
        #expect(failure.errors.map { "\($0.line):\($0.column)" } == ["2:10", "3:10", "4:14", "5:10", "6:14", "7:14"])
        #expect(failure.errors[0].description.hasPrefix("walls.txt:2:10: error: a wall needs a venue id, at least two points"))
        #expect(failure.errors[1].message.contains("`5;0` is not a point"))
        #expect(failure.errors[2].message.contains("`lots` is not a wall loss"))
        #expect(failure.errors[3].message.contains("repeats the one before it"))
    }
}
