import BeaconCore
import Testing

@testable import FleetManifest

/// UUIDs, identities and their uniqueness across the namespace.
@Suite struct IdentityTests {
    @Test(arguments: [
        ("89D6E936-F61F-4227-BCD2-6E94C5A6B2E", "a UUID has 36 characters in the form 8-4-4-4-12 (e.g. 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3); this has 35"),
        ("89D6E936F61F4227BCD26E94C5A6B2E3", "UUID has 32 hex digits but no hyphens; write it as 8-4-4-4-12"),
        ("\"{89D6E936-F61F-4227-BCD2-6E94C5A6B2E3}\"", "UUID is wrapped in braces or angle brackets; write the bare 8-4-4-4-12 form"),
        ("89D6E936-F61F-4227-BCD2_6E94C5A6B2E3", "expected '-' at character 24 of the UUID (form 8-4-4-4-12)"),
        ("89D6E936-F61F-4227-BCD2-6E94C5A6B2G3", "'G' at character 35 is not a hexadecimal digit"),
    ])
    func malformedUUIDsSayPreciselyWhatIsWrong(_ value: String, reason: String) throws {
        let result = expectDiagnostics(MarkedFixture("""
            version: 1
            fleet: jays-donuts
            uuid: ⟨invalid-uuid⟩\(value)
            """))
        let found = try diagnostic("invalid-uuid", in: result)
        let shown = value.hasPrefix("\"") ? String(value.dropFirst().dropLast()) : value
        #expect(found.message == "`uuid` `\(shown)` is not a UUID: \(reason)")
    }

    @Test func lowerCaseUUIDsAreAccepted() throws {
        let result = expectDiagnostics(MarkedFixture("""
            version: 1
            fleet: jays-donuts
            uuid: 89d6e936-f61f-4227-bcd2-6e94c5a6b2e3
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 1
            """))
        #expect(result.fleet.beacons.first?.identity.uuid.description == "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3")
    }

    @Test func theNilUUIDIsAnError() {
        expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                uuid: ⟨nil-uuid⟩00000000-0000-0000-0000-000000000000
                beacons:
                  - id: b
                    minor: 1
            """))
    }

    @Test(arguments: [
        ("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "Apple's AirLocate sample code"),
        ("B9407F30-F5F8-466E-AFF9-25556B57FE6D", "Estimote"),
        ("F7826DA6-4FA2-4E98-8024-BC5B71E0893E", "Kontakt.io"),
        ("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6", "Radius Networks"),
        ("fda50693-a4e2-4fb1-afcf-c6eb07647825", "WeChat"),
    ])
    func vendorDefaultUUIDsWarnAndNameTheVendor(_ uuid: String, vendor: String) throws {
        let result = expectDiagnostics(MarkedFixture("""
            version: 1
            fleet: jays-donuts
            uuid: ⟨vendor-default-uuid⟩\(uuid)
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 1
            """))
        let warning = try diagnostic("vendor-default-uuid", in: result)
        #expect(warning.severity == .warning)
        #expect(warning.message.contains(vendor))
        #expect(result.fleet.beacons.count == 1, "a warning does not take the beacon out")
    }

    @Test func everyVendorTableEntryParses() {
        // The table is literal text: all 18 entries must have survived parsing.
        #expect(VendorUUIDs.known.count == 18)
    }

    @Test func missingIdentityNamesWhatIsMissingAndWhereToSetIt() throws {
        let result = expectDiagnostics(MarkedFixture("""
            version: 1
            fleet: jays-donuts
            venues:
              - id: cupertino
                beacons:
                  - ⟨missing-identity⟩id: register
                    minor: 1
              - id: soho
                uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
                beacons:
                  - ⟨missing-identity⟩id: door
                    minor: 1
            """))
        let messages = result.diagnostics.map(\.message)
        let hints = result.diagnostics.map { $0.hint ?? "" }
        #expect(messages == [
            "beacon `register` has no `uuid` or `major`: its identity is incomplete",
            "beacon `door` has no `major`: its identity is incomplete",
        ])
        #expect(hints == [
            "set uuid and major on the beacon, on venue `cupertino`, or at the top of the file",
            "set major on the beacon or on venue `soho`",
        ])
    }

    @Test func anInvalidInheritedValueDoesNotAlsoReportItMissing() {
        // The venue's major is wrong: that is the one error; its beacons are left out.
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: ⟨value-out-of-range⟩65536
                beacons:
                  - id: a
                    minor: 1
                  - id: b
                    minor: 2
            """))
        #expect(result.fleet.beacons.isEmpty)
        #expect(result.fleet.venues.map(\.id) == ["v"])
    }

    @Test func duplicateIdentityAcrossFilesPointsAtTheFirst() throws {
        let first = MarkedFixture(header + """
            venues:
              - id: cupertino
                major: 1
                beacons:
                  - ⟨#first⟩id: register
                    minor: 2
            """)
        let second = MarkedFixture(header + """
            venues:
              - id: soho
                major: 1
                beacons:
                  - ⟨duplicate-identity⟩id: door
                    minor: 2
                  - id: window
                    major: 2
                    minor: 2
            """)
        let result = expectDiagnostics([("a.yaml", first), ("b.yaml", second)])
        let found = try diagnostic("duplicate-identity", in: result)
        #expect(found.message == "beacon `door` has identity 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/1/2, already used by beacon `register`; apps cannot tell them apart")
        #expect(found.notes.map(\.location) == [first.location("first", file: "a.yaml")])
        // The first keeps its place; the second is left out.
        #expect(result.fleet.beacons.map(\.id) == ["register", "window"])
    }

    @Test func everyRepeatOfAnIdentityIsReported() {
        expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 7
                beacons:
                  - id: a
                    minor: 1
                  - ⟨duplicate-identity⟩id: b
                    minor: 1
                  - ⟨duplicate-identity⟩id: c
                    uuid: 89d6e936-f61f-4227-bcd2-6e94c5a6b2e3
                    minor: 1
                  - id: d
                    uuid: 1C8C2E0E-7A5C-4E58-9E34-0B0C5F2F4A11
                    minor: 1
            """))
    }

    @Test func aBeaconWithOtherErrorsStillTakesPartInTheIdentityCheck() {
        expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 7
                beacons:
                  - id: a
                    minor: 1
                    tx_power: ⟨value-out-of-range⟩99
                  - ⟨duplicate-identity⟩id: b
                    minor: 1
            """))
    }

    @Test func duplicateIDs() throws {
        let fixture = MarkedFixture(header + """
            venues:
              - ⟨#venue⟩id: v
                major: 1
                beacons:
                  - ⟨#beacon⟩id: same
                    minor: 1
              - ⟨duplicate-id⟩id: v
                major: 2
                beacons:
                  - ⟨duplicate-id⟩id: same
                    minor: 2
                  - id: other
                    minor: 3
            regions:
              - id: r
              - ⟨duplicate-id⟩id: r
            """)
        let result = expectDiagnostics(fixture)
        let duplicates = result.diagnostics.filter { $0.code == "duplicate-id" }
        #expect(duplicates.map(\.message) == [
            "venue id `v` is already used by another venue",
            "beacon id `same` is already used by another beacon",
            "region id `r` is already used by another region",
        ])
        #expect(duplicates[0].notes.first?.location == fixture.location("venue"))
        #expect(duplicates[1].notes.first?.location == fixture.location("beacon"))
        // The second venue is left out with its beacons.
        #expect(result.fleet.venues.map(\.id) == ["v"])
        #expect(result.fleet.beacons.map(\.id) == ["same"])
        #expect(result.fleet.regions.count == 1)
    }

    @Test func regionsInheritTheFleetUUID() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 2
            regions:
              - id: fleet
              - id: venue
                major: 1
              - id: beacon
                major: 1
                minor: 2
                notify_state_on_start: true
              - id: broken
                minor: ⟨minor-without-major⟩2
            """))
        let regions = result.fleet.regions
        #expect(regions.map(\.region.identifier) == ["fleet", "venue", "beacon"])
        #expect(regions.allSatisfy { $0.region.uuid.description == "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3" })
        #expect(regions[2].region.major == 1 && regions[2].region.minor == 2)
        #expect(regions[2].notifyOnEntry && regions[2].notifyOnExit && regions[2].notifyStateOnStart)
        #expect(!regions[0].notifyStateOnStart)
    }

    @Test func aRegionWithoutAnyUUID() throws {
        let result = expectDiagnostics(MarkedFixture("""
            version: 1
            fleet: jays-donuts
            regions:
              - ⟨missing-field⟩id: lonely
            """))
        #expect(try diagnostic("missing-field", in: result).message
            == "region `lonely` has no `uuid` and the manifest sets none at the top")
    }

    @Test func unmatchedRegionsWarn() {
        expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 2
            regions:
              - id: uuid-only
              - ⟨unmatched-region⟩id: other-uuid
                uuid: 1C8C2E0E-7A5C-4E58-9E34-0B0C5F2F4A11
              - ⟨unmatched-region⟩id: other-major
                major: 2
              - ⟨unmatched-region⟩id: other-minor
                major: 1
                minor: 3
            """))
    }
}
