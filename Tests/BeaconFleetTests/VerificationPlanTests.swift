import BeaconTestKit
import BeaconCore
import FleetManifest
import Testing

@testable import BeaconFleet

@Suite("Verification plans from manifests")
struct VerificationPlanTests {
    static let manifest = """
        version: 1
        fleet: corner-shops
        uuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B
        defaults:
          measured_power: auto
          interval_ms: 100
        venues:
          - id: north
            major: 1
            host: north-pi
            beacons:
              - id: north-door
                minor: 1
                measured_power: -61
                mac: C0:11:22:33:44:55
              - id: north-till
                minor: 2
                interval_ms: 250
          - id: south
            major: 2
            host: south-pi
            beacons:
              - id: south-door
                minor: 1
        regions:
          - id: partner
            uuid: 11111111-2222-3333-4444-555555555555
        """

    private func fleet() throws -> Fleet {
        let loaded = ManifestLoader.load(sources: [(name: "shops.yaml", bytes: Array(Self.manifest.utf8))])
        try #require(loaded.errorCount == 0, "\(loaded.diagnostics.map(\.rendered))")
        return loaded.fleet
    }

    @Test("every beacon, with what the manifest says of each")
    func wholeFleet() throws {
        let plan = try VerificationPlan(fleet: try fleet())
        #expect(plan.expected.map(\.beaconID) == ["north-door", "north-till", "south-door"])
        #expect(plan.scope == "fleet corner-shops")
        let door = plan.expected[0]
        #expect(door.measuredPower == .calibrated(-61))
        #expect(door.expectedAddress?.description == "C0:11:22:33:44:55")
        #expect(door.location?.description.hasPrefix("shops.yaml:") == true)
        #expect(plan.expected[1].measuredPower == .plausible(-100 ... -30))
        #expect(plan.expected[1].intervalMilliseconds == 250)
        #expect(plan.otherKnown.isEmpty)
    }

    @Test("the fleet's UUIDs include those of its regions")
    func fleetUUIDs() throws {
        let plan = try VerificationPlan(fleet: try fleet())
        #expect(plan.fleetUUIDs.map(\.description).sorted() == [
            "04F6CBA0-321A-40F4-BDE2-A613959BBF4B", "11111111-2222-3333-4444-555555555555",
        ])
    }

    @Test("--venue keeps that venue's beacons; the others become known, not unexpected")
    func oneVenue() throws {
        let plan = try VerificationPlan(fleet: try fleet(), venueID: "south")
        #expect(plan.expected.map(\.beaconID) == ["south-door"])
        #expect(Set(plan.otherKnown.values) == ["north-door", "north-till"])
        #expect(plan.scope == "fleet corner-shops, venue south")
        // An unexpected identity is still placed by the other venues' majors.
        let uuid = try #require(plan.expected.first?.identity.uuid)
        #expect(plan.venueByMajor[.init(uuid: uuid, major: 1)] == "north")
    }

    @Test("an unknown venue names the known ones")
    func unknownVenue() throws {
        #expect(throws: VerificationPlanError.unknownVenue("west", known: ["north", "south"])) {
            try VerificationPlan(fleet: try fleet(), venueID: "west")
        }
        #expect(VerificationPlanError.unknownVenue("west", known: ["north", "south"]).description
            == "the manifest has no venue `west`; its venues: north, south")
    }

    @Test("--host keeps the beacons that host advertises, with the values it computed")
    func oneHost() throws {
        let fleet = try fleet()
        let till = try #require(fleet.beacons.first { $0.id == "north-till" })
        let plan = try VerificationPlan(fleet: fleet, host: "north-pi", advertisedMeasuredPower: [till.identity: -51])
        #expect(plan.expected.map(\.beaconID) == ["north-door", "north-till"])
        #expect(plan.expected.map(\.measuredPower) == [.calibrated(-61), .advertised(-51)])
        #expect(throws: VerificationPlanError.noBeaconsForHost("east-pi", known: ["north-pi", "south-pi"])) {
            try VerificationPlan(fleet: fleet, host: "east-pi")
        }
    }

    @Test("a plan refuses two beacons with one identity, and an empty list")
    func refusals() throws {
        let twins = [VerificationScript.beacon("a", minor: 1), VerificationScript.beacon("b", minor: 1)]
        #expect(throws: VerificationPlanError.sharedIdentity(VerificationScript.identity(minor: 1), first: "a", second: "b")) {
            try VerificationScript.plan(twins)
        }
        #expect(throws: VerificationPlanError.nothingToVerify(scope: "fleet test")) {
            try VerificationScript.plan([])
        }
    }

    @Test("policy problems name the bad value")
    func policyProblems() {
        #expect(VerificationPolicy().problem == nil)
        #expect(VerificationPolicy(timeout: nil).problem == nil)
        #expect(VerificationPolicy(requiredSightings: 0).problem == "required sightings must be at least 1; got 0")
        #expect(VerificationPolicy(timeout: .seconds(0)).problem == "the timeout must be a positive number of seconds; got 0.0")
        #expect(VerificationPolicy(timeout: .seconds(-1)).problem == "the timeout must be a positive number of seconds; got -1.0")
    }
}
