import BeaconCore
import FleetManifest
import Testing
import VirtualRadio

@testable import BeaconFleet

@Suite("Choosing what to map")
struct CoverageSelectionTests {
    let fleet: Fleet = {
        let manifest = """
            version: 1
            fleet: store
            uuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B
            venues:
              - id: big
                major: 1
                plan: {width: 30, height: 20}
                beacons:
                  - {id: big-door, minor: 1, zone: floor-g, position: [1, 1]}
                  - {id: big-till, minor: 2, zone: floor-g, position: [10, 10], measured_power: -60}
                  - {id: big-cafe, minor: 3, zone: floor-1, position: [20, 10]}
                  - {id: big-stock, minor: 4, zone: floor-1}
              - id: kiosk
                major: 2
                beacons:
                  - {id: kiosk-till, minor: 1}
            """
        return ManifestLoader.load(sources: [("store.yaml", Array(manifest.utf8))]).fleet
    }()

    @Test("every venue with a plan by default, with notes for the rest")
    func everyPlannedVenue() throws {
        let (jobs, notes) = try CoverageRequest().jobs(in: fleet)
        #expect(jobs.map(\.venue.id) == ["big"])
        #expect(jobs.first?.venue.beacons.map(\.id) == ["big-door", "big-till", "big-cafe"])
        #expect(jobs.first?.venue.beacons.map(\.measuredPower) == [-41, -60, -41])
        #expect(notes.contains { $0.hasPrefix("venue `kiosk` has no plan and is not mapped (store.yaml:") })
        #expect(notes.contains("big: big-stock has no position and is left off the map"))
    }

    @Test("one map per zone when zones are floors")
    func byZone() throws {
        let (jobs, _) = try CoverageRequest(byZone: true).jobs(in: fleet)
        #expect(jobs.map(\.venue.fileStem) == ["big-floor-g", "big-floor-1"])
        #expect(jobs.map { $0.venue.beacons.map(\.id) } == [["big-door", "big-till"], ["big-cafe"]])
        let (one, _) = try CoverageRequest(venueIDs: ["big"], zones: ["floor-1"]).jobs(in: fleet)
        #expect(one.map(\.venue.fileStem) == ["big-floor-1"])
    }

    @Test("walls go to their venue; walls for unknown venues are noted")
    func wallsPerVenue() throws {
        let wall = Obstacle(from: PlanPoint(x: 5, y: 0), to: PlanPoint(x: 5, y: 20), attenuation: 10)
        let request = CoverageRequest(walls: CoverageWalls(walls: ["big": [wall], "bigg": [wall]]))
        let (jobs, notes) = try request.jobs(in: fleet)
        #expect(jobs.first?.settings.environment.obstacles == [wall])
        #expect(notes.contains("the walls file names venue `bigg`, which is not in the manifest; its walls are ignored"))
    }

    @Test("unknown venues, venues without a plan and unknown zones are refused with what exists")
    func refusals() {
        #expect(throws: CoverageSelectionError.unknownVenues(["small"], known: ["big", "kiosk"])) {
            try CoverageRequest(venueIDs: ["small"]).jobs(in: fleet)
        }
        #expect(
            CoverageSelectionError.unknownVenues(["small"], known: ["big", "kiosk"]).description
                == "no venue `small` in the manifest; venues: big, kiosk")
        let error = #expect(throws: CoverageSelectionError.self) { try CoverageRequest(venueIDs: ["kiosk"]).jobs(in: fleet) }
        #expect(error?.description.hasPrefix("venue `kiosk` has no plan to map (store.yaml:") == true)
        #expect(error?.description.hasSuffix("add `plan: {width: W, height: H}` in metres to it") == true)
        #expect(throws: CoverageSelectionError.unknownZones(["floor-9"], venue: "big", known: ["floor-g", "floor-1"])) {
            try CoverageRequest(venueIDs: ["big"], zones: ["floor-9"]).jobs(in: fleet)
        }
        #expect(throws: CoverageSelectionError.zonesInNoVenue(["floor-9"])) {
            try CoverageRequest(zones: ["floor-9"]).jobs(in: fleet)
        }
    }
}
