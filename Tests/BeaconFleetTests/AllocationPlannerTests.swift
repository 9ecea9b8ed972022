import BeaconCore
import FleetManifest
import Testing

@testable import BeaconFleet

/// A namespace of two fleets: the donut chain's stores 1 and 2 (and a region waiting for
/// store 7), and a museum with its own UUID.
let allocationNamespace = """
    version: 1
    fleet: donuts
    uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
    venues:
      - id: store-1
        major: 1
        beacons:
          - id: store-1-entrance
            zone: entrance
            minor: 1
          - id: store-1-register
            zone: register
            minor: 2
          - id: store-1-pickup
            zone: pickup
            minor: 3
          - id: store-1-promo
            zone: promotions
            minor: 10
      - id: store-2
        major: 2
        beacons:
          - id: store-2-entrance
            zone: entrance
            minor: 1
      - id: store-3
        major: 3
    regions:
      - id: store-7-opening
        major: 7
    """

let museumNamespace = """
    version: 1
    fleet: museum
    uuid: 20E5F07A-9C64-4FB5-A28F-91A58612F4CE
    venues:
      - id: hall
        beacons:
          - {id: hall-ground-1, zone: ground, major: 40, minor: 10}
          - {id: hall-ground-2, zone: ground, major: 40, minor: 11}
          - {id: hall-upper-1, zone: upper, major: 41, minor: 10}
    """

func loadFleet(_ documents: [String: String]) throws -> Fleet {
    let result = ManifestLoader.load(sources: documents.sorted { $0.key < $1.key }.map { ($0.key, Array($0.value.utf8)) })
    #expect(result.errorCount == 0, "\(result.diagnostics.map(\.rendered))")
    return result.fleet
}

@Suite("Allocating identities")
struct AllocationPlannerTests {
    let fleet: Fleet
    let donutsUUID = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"

    init() throws {
        fleet = try loadFleet(["donuts.yaml": allocationNamespace, "museum.yaml": museumNamespace])
    }

    func plan(_ request: AllocationRequest) throws -> AllocationPlan {
        try AllocationPlanner.plan(request, in: fleet)
    }

    func minors(_ plan: AllocationPlan) -> [UInt16] { plan.beacons.map(\.identity.minor) }

    @Test("a new venue gets the major after every one in use, regions' majors included")
    func newVenueMajorSkipsRegions() throws {
        let allocation = try plan(AllocationRequest(
            fleetName: "donuts", venueID: "store-8", groups: [.init(zone: "entrance", count: 1), .init(zone: "register", count: 2)]))
        #expect(allocation.venue.isNew && !allocation.isNewFleet)
        // Store 3 has no beacons but region `store-7-opening` watches major 7.
        #expect(allocation.venue.major == 8)
        #expect(allocation.beacons.map(\.id) == ["store-8-entrance", "store-8-register-1", "store-8-register-2"])
        #expect(allocation.beacons.map(\.identity.description) == [
            "\(donutsUUID)/8/1", "\(donutsUUID)/8/2", "\(donutsUUID)/8/3",
        ])
        #expect(allocation.beacons.allSatisfy { !$0.writesMajor })
        #expect(allocation.venue.uuid == nil)
    }

    @Test("an explicit major must be free")
    func explicitMajorMustBeFree() throws {
        #expect(throws: AllocationError.majorTaken(7, by: "region `store-7-opening`")) {
            try plan(AllocationRequest(fleetName: "donuts", venueID: "store-9", groups: [.init(zone: "a", count: 1)], major: 7))
        }
        #expect(throws: AllocationError.majorTaken(2, by: "venue `store-2` (beacon `store-2-entrance`)")) {
            try plan(AllocationRequest(fleetName: "donuts", venueID: "store-9", groups: [.init(zone: "a", count: 1)], major: 2))
        }
        let free = try plan(AllocationRequest(fleetName: "donuts", venueID: "store-9", groups: [.init(zone: "a", count: 1)], major: 12))
        #expect(free.venue.major == 12)
    }

    @Test("minor steps and gaps leave room after each zone")
    func stepsAndGaps() throws {
        let allocation = try plan(AllocationRequest(
            fleetName: "donuts", venueID: "store-9",
            groups: [.init(zone: "a", count: 2), .init(zone: "b", count: 2), .init(zone: "c", count: 1)],
            minorStep: 10, zoneGap: 1))
        // a: 1, 11; one free slot (21); b: 31, 41; one free slot (51); c: 61.
        #expect(minors(allocation) == [1, 11, 31, 41, 61])
    }

    @Test("aligned zones start at multiples, like department codes")
    func alignedZones() throws {
        let allocation = try plan(AllocationRequest(
            fleetName: "donuts", venueID: "store-9",
            groups: [.init(zone: "cosmetics", count: 2), .init(zone: "fragrance", count: 3), .init(zone: "shoes", count: 1)],
            zoneAlignment: 10))
        #expect(minors(allocation) == [10, 11, 20, 21, 22, 30])
        let gapped = try plan(AllocationRequest(
            fleetName: "donuts", venueID: "store-9", groups: [.init(zone: "a", count: 9), .init(zone: "b", count: 1)],
            zoneGap: 2, zoneAlignment: 10))
        // a ends at 18; two free slots (19, 20) push b past 20 to the next multiple.
        #expect(minors(gapped).suffix(1) == [30])
    }

    @Test("an existing zone grows into the gap after it, skipping minors in use")
    func existingZoneGrows() throws {
        let allocation = try plan(AllocationRequest(
            venueID: "store-1", groups: [.init(zone: "register", count: 2), .init(zone: "promotions", count: 1)],
            declaredVenueMajor: 1))
        #expect(allocation.fleetName == "donuts")
        #expect(!allocation.venue.isNew && allocation.venue.major == nil)
        // register has 2; 3 is the pickup shelf's, so 4 and 5. promotions has 10: 11.
        #expect(minors(allocation) == [4, 5, 11])
        #expect(allocation.beacons.map(\.id) == ["store-1-register-2", "store-1-register-3", "store-1-promotions-2"])
        #expect(allocation.notes == ["zone `register` skipped minors already in use in major 1: 3 (`store-1-pickup`)"])
        #expect(allocation.beacons.allSatisfy { $0.identity.major == 1 && !$0.writesMajor })
    }

    @Test("a new zone in an existing venue starts after its highest minor and gap")
    func newZoneInExistingVenue() throws {
        let allocation = try plan(AllocationRequest(
            venueID: "store-1", groups: [.init(zone: "drive-thru", count: 2)], declaredVenueMajor: 1, zoneGap: 2))
        #expect(minors(allocation) == [13, 14])
        #expect(allocation.beacons.map(\.id) == ["store-1-drive-thru-1", "store-1-drive-thru-2"])
    }

    @Test("a first minor in the middle of used ones skips them and says so")
    func firstMinorSkipsUsed() throws {
        let allocation = try plan(AllocationRequest(
            venueID: "store-1", groups: [.init(zone: "extra", count: 3)], declaredVenueMajor: 1, firstMinor: 2))
        #expect(minors(allocation) == [4, 5, 6])
        #expect(allocation.notes.first?.contains("2 (`store-1-register`), 3 (`store-1-pickup`)") == true)
    }

    @Test("minors run out at 65535")
    func minorsRunOut() {
        #expect(throws: AllocationError.noFreeMinor(major: 8, zone: "a")) {
            try plan(AllocationRequest(fleetName: "donuts", venueID: "store-9", groups: [.init(zone: "a", count: 3)], firstMinor: 65534))
        }
    }

    @Test("explicit ids must be new; generated ids step around taken ones")
    func beaconIDs() throws {
        let taken = try #require(fleet.beacons.first { $0.id == "store-2-entrance" })
        #expect(throws: AllocationError.beaconIDTaken("store-2-entrance", location: taken.location)) {
            try plan(AllocationRequest(venueID: "store-1", groups: [.init(zone: nil, beaconIDs: ["store-2-entrance"])]))
        }
        #expect(throws: AllocationError.beaconIDRepeated("a")) {
            try plan(AllocationRequest(venueID: "store-1", groups: [.init(zone: nil, beaconIDs: ["a", "a"])]))
        }
        let generated = try plan(AllocationRequest(
            venueID: "store-2", groups: [.init(zone: "Drive-thru Window", count: 1), .init(zone: "entrance", count: 1)],
            declaredVenueMajor: 2))
        #expect(generated.beacons.map(\.id) == ["store-2-drive-thru-window", "store-2-entrance-2"])
        #expect(generated.beacons.first?.zone == "Drive-thru Window")
    }

    @Test("one major per zone: new zones get new majors, existing zones keep theirs")
    func majorPerZone() throws {
        let allocation = try plan(AllocationRequest(
            venueID: "hall", groups: [.init(zone: "ground", count: 1), .init(zone: "roof", count: 2)], majorScheme: .zone,
            zoneAlignment: 10))
        #expect(allocation.beacons.map(\.identity.major) == [40, 42, 42])
        #expect(allocation.beacons.map(\.identity.minor) == [12, 10, 11])
        #expect(allocation.beacons.allSatisfy { $0.writesMajor })
        #expect(throws: AllocationError.majorWithZoneScheme) {
            try plan(AllocationRequest(venueID: "hall", groups: [.init(zone: "x", count: 1)], majorScheme: .zone, major: 50))
        }
    }

    @Test("requests that make no sense are refused with what to do")
    func refusals() throws {
        #expect(throws: AllocationError.nothingToAllocate) { try plan(AllocationRequest(venueID: "x", groups: [])) }
        #expect(throws: AllocationError.fleetNotNamed) { try plan(AllocationRequest(venueID: "x", groups: [.init(zone: "a", count: 1)])) }
        #expect(throws: AllocationError.venueInAnotherFleet(venue: "hall", fleet: "museum", asked: "donuts")) {
            try plan(AllocationRequest(fleetName: "donuts", venueID: "hall", groups: [.init(zone: "a", count: 1)]))
        }
        let store1 = try #require(fleet.venues.first { $0.id == "store-1" })
        #expect(throws: AllocationError.newVenueOptionOnExistingVenue(venue: "store-1", options: ["the plan setting"], location: store1.location)) {
            try plan(AllocationRequest(venueID: "store-1", plan: PlanSize(width: 1, height: 1), groups: [.init(zone: "a", count: 1)]))
        }
        #expect(throws: AllocationError.unknownFleet("bakery", known: ["donuts", "museum"])) {
            try plan(AllocationRequest(fleetName: "bakery", venueID: "x", groups: [.init(zone: "a", count: 1)]))
        }
        #expect(throws: AllocationError.badSetting("the minor-step setting must be 1…10000; got 0")) {
            try plan(AllocationRequest(fleetName: "donuts", venueID: "x", groups: [.init(zone: "a", count: 1)], minorStep: 0))
        }
        #expect(AllocationError.unknownFleet("bakery", known: ["donuts"]).description.contains("the uuid setting (make one with `uuidgen`)"))
    }

    @Test("a new fleet gets a complete manifest that validates")
    func newFleet() throws {
        let uuid = try ProximityUUID(parsing: "3F1E6A52-7C1B-4C0B-9D0F-0B6C2A9B8E11")
        let allocation = try plan(AllocationRequest(
            fleetName: "bakery", venueID: "bakery-1", venueName: "Bakery: Main St", plan: PlanSize(width: 12.5, height: 8),
            host: "bakery-pi", uuid: uuid, groups: [.init(zone: "door", count: 1), .init(zone: "till", count: 1)]))
        #expect(allocation.isNewFleet)
        #expect(allocation.venue.major == 1)
        let manifest = AllocationYAML.manifest(allocation)
        #expect(manifest == """
            version: 1
            fleet: bakery
            uuid: 3F1E6A52-7C1B-4C0B-9D0F-0B6C2A9B8E11
            venues:
              - id: bakery-1
                name: "Bakery: Main St"
                major: 1
                host: bakery-pi
                plan: {width: 12.5, height: 8}
                beacons:
                  - id: bakery-1-door
                    zone: door
                    minor: 1
                  - id: bakery-1-till
                    zone: till
                    minor: 2

            """)
        let reloaded = try loadFleet(["bakery.yaml": manifest, "donuts.yaml": allocationNamespace])
        #expect(reloaded.beacons.filter { $0.fleetName == "bakery" }.map(\.identity) == allocation.beacons.map(\.identity))
    }

    @Test("YAML scalars are quoted only when they must be")
    func scalars() {
        #expect(YAMLScalar.render("cupertino-entrance") == "cupertino-entrance")
        #expect(YAMLScalar.render("Café du Monde") == "Café du Monde")
        #expect(YAMLScalar.render("yes") == "\"yes\"")
        #expect(YAMLScalar.render("010") == "\"010\"")
        #expect(YAMLScalar.render("Display: main") == "\"Display: main\"")
        #expect(YAMLScalar.render("#1 \"best\"") == "\"#1 \\\"best\\\"\"")
        #expect(YAMLScalar.render("tab\there") == "\"tab\\there\"")
    }
}
