import BeaconCore
import Testing

@testable import FleetManifest

/// Inheritance (fleet defaults → venue → beacon) and the shape of the resolved fleet.
@Suite struct ResolutionTests {
    @Test func valuesInheritFleetThenVenueThenBeacon() throws {
        let result = expectDiagnostics(MarkedFixture("""
            version: 1
            fleet: jays-donuts
            uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
            defaults:
              measured_power: -59
              interval_ms: 200
              tx_power: -4
              host: pi-fleet
            venues:
              - id: cupertino
                name: Cupertino Main St
                major: 1
                interval_ms: 300
                host: pi-venue
                plan: {width: 24, height: 16}
                beacons:
                  - id: inherits
                    minor: 1
                  - id: overrides
                    name: Door
                    zone: entrance
                    uuid: 1C8C2E0E-7A5C-4E58-9E34-0B0C5F2F4A11
                    major: 9
                    minor: 2
                    measured_power: auto
                    interval_ms: 150
                    tx_power: 4
                    host: pi-door
                    position: [1, 2]
                    mac: "0a:1b:2c:3d:4e:5f"
            """))
        let beacons = result.fleet.beacons
        #expect(beacons.count == 2)
        let inherits = beacons[0]
        #expect(inherits.identity.description == "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/1/1")
        #expect(inherits.measuredPower == .dBm(-59))
        #expect(inherits.intervalMilliseconds == 300)
        #expect(inherits.txPower == -4)
        #expect(inherits.host == "pi-venue")
        #expect(inherits.venueID == "cupertino" && inherits.fleetName == "jays-donuts")
        #expect(inherits.name == nil && inherits.zone == nil && inherits.position == nil && inherits.expectedAddress == nil)
        #expect(inherits.location == FleetManifest.SourceLocation(file: "fleet.yaml", line: 17, column: 9))

        let overrides = beacons[1]
        #expect(overrides.identity.description == "1C8C2E0E-7A5C-4E58-9E34-0B0C5F2F4A11/9/2")
        #expect(overrides.measuredPower == .auto)
        #expect(overrides.intervalMilliseconds == 150 && overrides.txPower == 4 && overrides.host == "pi-door")
        #expect(overrides.name == "Door" && overrides.zone == "entrance")
        #expect(overrides.position == PlanPoint(x: 1, y: 2))
        #expect(overrides.expectedAddress?.description == "0A:1B:2C:3D:4E:5F")

        let venue = try #require(result.fleet.venues.first)
        #expect(venue.name == "Cupertino Main St" && venue.plan == PlanSize(width: 24, height: 16))
        #expect(venue.beacons == beacons)
        #expect(venue.location.line == 10)
    }

    @Test func builtInDefaultsApplyWhenNothingIsSet() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 1
            """))
        let beacon = try #require(result.fleet.beacons.first)
        #expect(beacon.measuredPower == .auto && beacon.intervalMilliseconds == 100 && beacon.txPower == 0)
        #expect(beacon.host == nil)
    }

    @Test func keyOrderDoesNotMatter() throws {
        // Fleet-level values after `venues`, venue values after `beacons`.
        let result = expectDiagnostics(MarkedFixture("""
            venues:
              - beacons:
                  - minor: 1
                    id: b
                major: 3
                id: v
            defaults:
              tx_power: -8
            uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
            fleet: late
            version: 1
            """))
        let beacon = try #require(result.fleet.beacons.first)
        #expect(beacon.identity.description == "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/3/1")
        #expect(beacon.txPower == -8 && beacon.fleetName == "late")
    }

    @Test func filesAreOneNamespaceInLoadOrder() throws {
        let result = ManifestLoader.load(sources: [
            ("b.yaml", Array((header + "venues:\n  - id: second\n    major: 2\n    beacons:\n      - {id: b, minor: 1}\n").utf8)),
            ("a.yaml", Array((header + "venues:\n  - id: first\n    major: 1\n    beacons:\n      - {id: a, minor: 1}\n").utf8)),
        ])
        #expect(result.diagnostics.isEmpty)
        #expect(result.fleet.files == ["b.yaml", "a.yaml"])
        #expect(result.fleet.venues.map(\.id) == ["second", "first"])
        #expect(result.fleet.beacons.map(\.id) == ["b", "a"])
    }

    @Test func beaconsWithErrorsAreLeftOutAndTheRestKept() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: good
                    minor: 1
                  - id: bad
                    minor: 2
                    interval_ms: ⟨value-out-of-range⟩5
                  - id: also-good
                    minor: 3
            """))
        #expect(result.fleet.beacons.map(\.id) == ["good", "also-good"])
        #expect(result.fleet.venues.first?.beacons.map(\.id) == ["good", "also-good"])
    }

    @Test func aVenueWithoutAnIDIsLeftOutButItsBeaconsAreChecked() {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - ⟨missing-field⟩major: 1
                beacons:
                  - id: a
                    minor: 1
                  - ⟨duplicate-identity⟩id: b
                    minor: 1
            """))
        #expect(result.fleet.venues.isEmpty && result.fleet.beacons.isEmpty)
    }

    @Test func resolvedBeaconsAreValuesDespiteSharedStorage() {
        let original = ResolvedBeacon(
            id: "a", venueID: "v", fleetName: "f",
            identity: BeaconIdentity(uuid: ProximityUUID(high: 1, low: 2), major: 3, minor: 4),
            location: FleetManifest.SourceLocation(file: "f.yaml", line: 1, column: 1))
        var copy = original
        #expect(copy == original)
        copy.identity.minor = 5
        copy.host = "pi"
        #expect(original.identity.minor == 4 && original.host == nil)
        #expect(copy != original)
        var sameAgain = copy
        sameAgain.identity.minor = 4
        sameAgain.host = nil
        #expect(sameAgain == original && sameAgain.hashValue == original.hashValue)
    }
}
