import Foundation
import Testing

@testable import FleetManifest

/// What text in a manifest may hold, and how the bytes around it are read.
@Suite("Text values and the byte-order mark")
struct TextValueTests {
    /// Loads `fixture` as `fleet.yaml` behind a UTF-8 byte-order mark and checks the marked
    /// diagnostics: positions count from the first character after the mark.
    @discardableResult
    private func expectDiagnosticsWithByteOrderMark(
        _ fixture: MarkedFixture, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> ManifestLoadResult {
        let result = ManifestLoader.load(sources: [("fleet.yaml", [0xEF, 0xBB, 0xBF] + fixture.bytes)])
        let expected = fixture.expectations.map { "\($0.line):\($0.column) \($0.code)" }
        let actual = result.diagnostics.map { "\($0.location.line):\($0.location.column) \($0.code)" }
        #expect(actual == expected, "\(result.diagnostics.map(\.rendered))", sourceLocation: sourceLocation)
        return result
    }

    @Test("a leading byte-order mark is skipped; positions on line 1 and below stay right")
    func byteOrderMark() {
        let clean = expectDiagnosticsWithByteOrderMark(MarkedFixture(header + """
            venues:
              - id: cupertino
                major: 1
                beacons:
                  - {id: door, minor: 1}
            ⟨unknown-field⟩colour: red
            """))
        #expect(clean.fleet.venues.map(\.fleetName) == ["jays-donuts"])
        #expect(clean.fleet.beacons.map(\.id) == ["door"])

        // On line 1 itself the mark takes no column.
        expectDiagnosticsWithByteOrderMark(MarkedFixture(
            "{version: 1, fleet: jays-donuts, uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3, ⟨unknown-field⟩colour: red}\n"))
    }

    @Test("control characters in text fields: one error at the field's value, the entry left out")
    func controlCharacters() {
        // Escapes in double quotes are the way a control character gets into a value
        // (raw control bytes are refused as encoding errors before that).
        let result = expectDiagnostics(MarkedFixture(#"""
            version: 1
            fleet: ⟨control-character⟩"jays\ndonuts"
            uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
            defaults:
              host: ⟨control-character⟩"pi\e[2J"
            venues:
              - id: ⟨control-character⟩"cupertino\0"
                major: 1
                beacons:
                  - {id: door, minor: 1}
              - id: soho
                name: ⟨control-character⟩"Soho\x85"
                host: ⟨control-character⟩"pi\r"
                major: 2
                beacons:
                  - id: ⟨control-character⟩"till\n"
                    minor: 1
                  - id: window
                    minor: 2
                    zone: ⟨control-character⟩"front\twindow"
                  - id: counter
                    minor: 3
                    name: ⟨control-character⟩"counter\x7F"
                  - id: ok
                    minor: 4
                    name: "Café — counter"
            regions:
              - id: ⟨control-character⟩"any\e"
            """#))
        // The fleet's name and default host are unusable: no beacon can be resolved.
        #expect(result.fleet.beacons.isEmpty)

        // Only the beacon with the bad value is left out.
        let one = expectDiagnostics(MarkedFixture(header + #"""
            venues:
              - id: soho
                major: 2
                beacons:
                  - {id: till, minor: 1, zone: ⟨control-character⟩"front\ndesk"}
                  - {id: door, minor: 2, zone: "front desk"}
            """#))
        #expect(one.fleet.beacons.map(\.id) == ["door"])
    }

    @Test("the messages name the character and show the value escaped")
    func controlCharacterMessages() throws {
        for (escape, shown, name) in [
            (#"\n"#, #"a\nb"#, "a newline (U+000A)"),
            (#"\0"#, #"a\0b"#, "a NUL character (U+0000)"),
            (#"\e"#, #"a\u{1B}b"#, "an escape character (U+001B)"),
        ] {
            let result = load(header + "venues:\n  - id: v\n    major: 1\n    beacons:\n      - {id: b, minor: 1, zone: \"a\(escape)b\"}\n")
            let found = try diagnostic("control-character", in: result)
            #expect(found.rendered == """
                fleet.yaml:8:33: error[control-character]: `zone` `\(shown)` contains \(name); text in a manifest is printed in logs and terminals and passed to programs, where control characters do harm
                  hint: remove it (a quoted value may spell it as an escape such as \\n, \\0 or \\e)
                """)
            #expect(result.fleet.beacons.isEmpty)
        }
    }

    @Test("a key with control characters is quoted escaped in the unknown-field message")
    func controlCharacterInKey() throws {
        let result = load(header + "\"colour\\e[31m\": red\n")
        let found = try diagnostic("unknown-field", in: result)
        #expect(found.message == #"unknown field `colour\u{1B}[31m` in the top level of a manifest"#)
    }
}
