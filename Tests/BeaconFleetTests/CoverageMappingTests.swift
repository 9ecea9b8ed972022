import BeaconCore
import FleetManifest
import Testing

@testable import BeaconFleet

/// `plan coverage` as a use case: the maps drawn for a request, the notes told before any map
/// is drawn, and the refusals.
struct CoverageMappingTests {
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
                  - {id: big-cafe, minor: 3, zone: floor-1, position: [20, 10]}
              - id: kiosk
                major: 2
                beacons:
                  - {id: kiosk-till, minor: 1}
            """
        return ManifestLoader.load(sources: [("store.yaml", Array(manifest.utf8))]).fleet
    }()

    @Test("one map per venue with a plan (per zone with byZone), each with its summary; the notes come first")
    func maps() throws {
        var told: [[String]] = []
        let reports = try CoverageMapping.maps(CoverageRequest(), in: fleet) { told.append($0) }
        #expect(reports.map(\.map.venue.id) == ["big"])
        #expect(reports.map(\.summary.venue) == ["big"])
        #expect(told.count == 1)
        #expect(told.first?.contains { $0.hasPrefix("venue `kiosk` has no plan") } == true)

        let byZone = try CoverageMapping.maps(CoverageRequest(byZone: true), in: fleet)
        #expect(byZone.map(\.map.venue.floor) == ["floor-g", "floor-1"])
    }

    @Test("a grid too fine for the plan is refused after the notes were told; a venue not in the manifest before")
    func refusals() throws {
        var told = 0
        #expect {
            try CoverageMapping.maps(CoverageRequest(settings: CoverageSettings(resolution: 0.001)), in: fleet) { _ in told += 1 }
        } throws: { error in
            guard case .gridTooFine(let venue, let resolution) = error as? CoverageMappingError else { return false }
            return venue.id == "big" && resolution == 0.001
                && (error as? CoverageMappingError)?.description.hasPrefix("big: a 0.001 m grid over 30.0 × 20.0 m is more than") == true
        }
        #expect(told == 1)
        #expect {
            try CoverageMapping.maps(CoverageRequest(venueIDs: ["nowhere"]), in: fleet) { _ in told += 1 }
        } throws: { error in
            guard case .selection(.unknownVenues(let unknown, _)) = error as? CoverageMappingError else { return false }
            return unknown == ["nowhere"]
        }
        #expect(told == 1)
    }
}
