import Foundation
import Testing

@testable import FleetManifest

/// The report as a whole: every rule together, rendering, order, documentation.
@Suite struct DiagnosticReportTests {
    @Test func brokenFleetReportsEveryProblemAtItsPlace() throws {
        let fixture = try MarkedFixture.resource("broken-fleet.yaml")
        let result = expectDiagnostics(fixture)
        // Nothing slips through: only beacons without errors are in the fleet (kyoto itself
        // is fine, its only beacon is not).
        #expect(result.fleet.venues.map(\.id) == ["cupertino", "kyoto"])
        #expect(result.fleet.beacons.map(\.id) == ["cupertino-register"])
        let duplicateMAC = try diagnostic("duplicate-mac", in: result)
        #expect(duplicateMAC.notes.first?.location == fixture.location("mac"))
    }

    @Test func renderedFormat() {
        let diagnostic = Diagnostic(
            severity: .error, code: "duplicate-identity", message: "beacon `b` repeats beacon `a`",
            location: FleetManifest.SourceLocation(file: "fleets/a.yaml", line: 12, column: 9),
            notes: [
                DiagnosticNote(location: FleetManifest.SourceLocation(file: "fleets/b.yaml", line: 3, column: 5), message: "first here"),
                DiagnosticNote(location: nil, message: "no position"),
            ],
            hint: "change a minor")
        #expect(diagnostic.rendered == """
            fleets/a.yaml:12:9: error[duplicate-identity]: beacon `b` repeats beacon `a`
            fleets/b.yaml:3:5: note: first here
            note: no position
              hint: change a minor
            """)
        let whole = Diagnostic(severity: .warning, code: "x", message: "m", location: .wholeFile("f.yaml"))
        #expect(whole.rendered == "f.yaml: warning[x]: m")
    }

    @Test func diagnosticsAreSortedByFileLineAndColumn() {
        let result = ManifestLoader.load(sources: [
            ("b.yaml", Array((header + "zzz: 1\naaa: 2\n").utf8)),
            ("a.yaml", Array((header + "yyy: 1\n").utf8)),
        ])
        let locations = result.diagnostics.map(\.location)
        #expect(locations == locations.sorted())
        #expect(locations.map(\.description) == ["a.yaml:4:1", "b.yaml:4:1", "b.yaml:5:1"])
    }

    @Test func sourceLocationsCompareByFileThenPosition() {
        let a = FleetManifest.SourceLocation(file: "a", line: 9, column: 9)
        let b = FleetManifest.SourceLocation(file: "b", line: 1, column: 1)
        let b2 = FleetManifest.SourceLocation(file: "b", line: 1, column: 2)
        #expect(a < b && b < b2 && !(b2 < b))
    }

    @Test func columnsCountCharactersLikeLibyaml() throws {
        // Two-byte and three-byte characters before the value: columns stay characters.
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                name: "Café ☕"
                major: 1
                beacons:
                  - {id: b, name: "☕é", minor: ⟨value-out-of-range⟩-1}
            """))
        // 36 characters in, 39 bytes in.
        #expect(result.diagnostics.first?.location.column == 36)
    }

    @Test func everyCodeIsDocumentedWithAnExample() throws {
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/diagnostics.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for code in DiagnosticCode.allCases {
            // Each code has its own section with a YAML example and the rendered output.
            let heading = "### `\(code.rawValue)`"
            #expect(text.contains(heading), "docs/diagnostics.md lacks \(heading)")
            #expect(text.contains("[\(code.rawValue)]"), "docs/diagnostics.md shows no rendered \(code.rawValue)")
        }
    }

    @Test func everyCodeHasAFixedSeverity() {
        let warnings = DiagnosticCode.allCases.filter { $0.severity == .warning }.map(\.rawValue)
        #expect(warnings == [
            "link-not-followed", "vendor-default-uuid", "implausible-measured-power", "short-interval", "host-over-capacity",
            "position-outside-plan", "unmatched-region", "region-budget",
        ])
    }
}
