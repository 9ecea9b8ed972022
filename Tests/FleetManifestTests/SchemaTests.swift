import Testing

@testable import FleetManifest

/// Fields: unknown, missing, repeated, of the wrong shape; the schema version.
@Suite struct SchemaTests {
    @Test func validManifestHasNoDiagnostics() {
        let result = expectDiagnostics(MarkedFixture(header + """
            max_beacons_per_host: 16
            defaults:
              measured_power: auto
              interval_ms: 100
              tx_power: 0
              host: pi-1
            venues:
              - id: cupertino
                name: Cupertino Main St
                major: 1
                plan: {width: 24, height: 16}
                beacons:
                  - id: cupertino-register
                    name: Register
                    zone: register
                    minor: 2
                    position: [3.5, 12.0]
                    mac: "AA:BB:CC:DD:EE:FF"
            regions:
              - id: any-jays
                notify_on_entry: true
                notify_on_exit: true
                notify_state_on_start: false
            """))
        #expect(result.fleet.beacons.count == 1)
        #expect(result.errorCount == 0 && result.warningCount == 0)
    }

    @Test func unknownFieldsSuggestTheClosestField() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: cupertino
                major: 1
                beacons:
                  - ⟨missing-field⟩id: register
                    ⟨unknown-field⟩minr: 2
                    ⟨unknown-field⟩measuredPower: -59
                    ⟨unknown-field⟩plan: {width: 1, height: 1}
                    ⟨unknown-field⟩colour: red
            """))
        let hints = result.diagnostics.filter { $0.code == "unknown-field" }.map { $0.hint ?? "" }
        #expect(hints[0] == "did you mean `minor`?")
        #expect(hints[1] == "did you mean `measured_power`?")
        #expect(hints[2] == "`plan` belongs to a venue, not a beacon")
        #expect(hints[3].hasPrefix("fields of a beacon: id, name, zone, uuid, major, minor"))
        // The beacon with unknown fields is left out: it has errors, and its minor is missing.
        #expect(result.fleet.beacons.isEmpty)
        #expect(result.diagnostics[1].message == "unknown field `minr` in a beacon")
    }

    @Test func unknownTopLevelField() {
        expectDiagnostics(MarkedFixture(header + """
            ⟨unknown-field⟩venue:
              - id: cupertino
            """))
    }

    @Test func duplicateKeysPointAtTheFirstOccurrence() throws {
        let fixture = MarkedFixture(header + """
            venues:
              - id: cupertino
                major: 1
                ⟨#first⟩beacons:
                  - id: register
                    ⟨#minor⟩minor: 2
                    ⟨duplicate-key⟩minor: 3
                ⟨duplicate-key⟩beacons:
                  - id: door
                    minor: 4
            """)
        let result = expectDiagnostics(fixture)
        let duplicates = result.diagnostics.filter { $0.code == "duplicate-key" }
        #expect(duplicates[0].notes.first?.location == fixture.location("minor"))
        #expect(duplicates[1].notes.first?.location == fixture.location("first"))
        #expect(duplicates[1].notes.first?.message == "first `beacons` is here")
    }

    @Test func missingRequiredFields() {
        expectDiagnostics(MarkedFixture("""
            ⟨missing-field,missing-field⟩uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
            venues:
              - ⟨missing-field⟩major: 1
                beacons:
                  - ⟨missing-field⟩name: no id
                    minor: 1
                  - ⟨missing-field⟩id: no-minor
            regions:
              - ⟨missing-field⟩uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
            """))
    }

    @Test func missingFieldMessagesSayWhatToAdd() throws {
        let result = load("fleet: x\nvenues: []\n")
        let missing = try diagnostic("missing-field", in: result)
        #expect(missing.message == "the manifest has no `version`")
        #expect(missing.hint == "add `version: 1` at the top of the file")
    }

    @Test func wrongShapes() {
        expectDiagnostics(MarkedFixture(header + """
            defaults: ⟨wrong-type⟩[1, 2]
            venues:
              - id: cupertino
                major: 1
                plan: ⟨wrong-type⟩24x16
                beacons:
                  - id: register
                    minor: ⟨wrong-type⟩{value: 2}
                  - ⟨wrong-type⟩just-a-name
                  - id: door
                    minor: 3
                    position: ⟨wrong-type⟩[1, 2, 3]
                  - id: window
                    minor: 4
                    position: ⟨wrong-type⟩here
            regions: ⟨wrong-type⟩any-jays
            """))
    }

    @Test func rootMustBeAMapping() throws {
        let result = expectDiagnostics(MarkedFixture("⟨wrong-type⟩- version: 1\n"))
        #expect(result.diagnostics.first?.message.hasPrefix("a manifest is a mapping of fields") == true)
    }

    @Test func versionOtherThanOneSaysWhichVersionsAreRead() throws {
        // The rest of a version-2 file is not judged by version 1's rules.
        let result = expectDiagnostics(MarkedFixture("""
            version: ⟨unsupported-version⟩2
            fleet: jays-donuts
            some_field_of_v2: true
            """))
        let message = try diagnostic("unsupported-version", in: result).message
        #expect(message == "manifest version 2 is not supported; this build reads version 1")
    }

    @Test func versionMustBeAnInteger() {
        expectDiagnostics(MarkedFixture("""
            version: ⟨wrong-type⟩"1"
            fleet: jays-donuts
            """))
        expectDiagnostics(MarkedFixture("""
            version: ⟨wrong-type⟩1.0
            fleet: jays-donuts
            """))
    }

    @Test func emptyValues() {
        expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: ⟨empty-value⟩""
                major: 1
                plan:⟨empty-value⟩
                beacons:
                  - id: register
                    minor:⟨empty-value⟩
                    name: ⟨empty-value⟩~
            """))
    }

    @Test func emptyListsAreAllowed() {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
            regions:
            """))
        #expect(result.fleet.venues.isEmpty && result.fleet.regions.isEmpty)
    }

    @Test func everyProblemIsReportedInOneRun() {
        // Errors in one beacon do not hide errors in the next, nor in later venues.
        expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: a
                major: ⟨value-out-of-range⟩70000
                beacons:
                  - id: a1
                    minor: ⟨ambiguous-number⟩010
                  - id: a2
                    minor: 1
                    tx_power: ⟨value-out-of-range⟩30
              - id: b
                major: 2
                beacons:
                  - id: b1
                    ⟨unknown-field⟩mnior: 1
                    minor: 1
                    mac: ⟨invalid-mac⟩AA-BB
            """))
    }
}
