import BeaconCore
import Testing

@testable import VirtualRadio

@Suite("Walks and air time")
struct WalkTests {
    @Test("a walk moves at its speed through its waypoints and stops at the last")
    func walkPositions() throws {
        let walk = try Walk(waypoints: [PlanPoint(x: 0, y: 0), PlanPoint(x: 4, y: 0), PlanPoint(x: 4, y: 3)], speed: 2)
        #expect(walk.length == 7)
        #expect(walk.position(afterSeconds: 0) == PlanPoint(x: 0, y: 0))
        #expect(walk.position(afterSeconds: 1) == PlanPoint(x: 2, y: 0))
        #expect(walk.position(afterSeconds: 2.75) == PlanPoint(x: 4, y: 1.5))
        #expect(walk.position(afterSeconds: 60) == PlanPoint(x: 4, y: 3))
        #expect(walk.position(afterSeconds: -1) == PlanPoint(x: 0, y: 0))
    }

    @Test("a looping walk comes back to its start and goes round again")
    func loopingWalk() throws {
        let walk = try Walk(waypoints: [PlanPoint(x: 0, y: 0), PlanPoint(x: 3, y: 0), PlanPoint(x: 3, y: 4)], speed: 1, loops: true)
        #expect(walk.length == 12)
        // Back from (3, 4) to the start along the 5 m closing segment.
        #expect(walk.position(afterSeconds: 9.5) == PlanPoint(x: 1.5, y: 2))
        #expect(walk.position(afterSeconds: 12 + 1) == PlanPoint(x: 1, y: 0))
    }

    @Test("walks refuse what cannot be walked")
    func invalidWalks() {
        #expect(throws: VirtualRadioError.self) { try Walk(waypoints: []) }
        #expect(throws: VirtualRadioError.self) { try Walk(waypoints: [PlanPoint(x: 0, y: 0)], speed: 0) }
        #expect(throws: VirtualRadioError.self) { try Walk(waypoints: [PlanPoint(x: .nan, y: 0)]) }
        #expect(throws: VirtualRadioError.self) { try Walk(waypoints: [PlanPoint(x: 0, y: 0)], speed: .infinity) }
    }

    @Test("air time arithmetic never runs backwards and prints in seconds")
    func airTime() {
        let time = AirTime(microseconds: 1_500_042)
        #expect(time.description == "1.500042 s")
        #expect(time.advanced(by: .milliseconds(-5)) == time)
        #expect(time.advanced(by: .milliseconds(2)) == AirTime(microseconds: 1_502_042))
        #expect(AirTime.zero.duration(since: time) == .zero)
        #expect(time.duration(since: .zero) == .microseconds(1_500_042))
        #expect(AirTime(microseconds: .max).advanced(by: .seconds(1)) == AirTime(microseconds: .max))
    }
}
