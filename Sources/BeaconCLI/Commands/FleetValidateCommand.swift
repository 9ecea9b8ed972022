import ArgumentParser
import BeaconCore
import FleetManifest
import Foundation

struct FleetValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check manifests: syntax, types, ranges, and identities unique across the namespace.",
        discussion: """
            Reports every problem as `file:line:col: error[code]: message` (codes are listed in \
            docs/diagnostics.md). Exit 0 when clean, 1 when there are errors (or warnings under \
            --strict), 2 when an input cannot be read.
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var input: ManifestInput

    @Option(help: "Output format: text (for people) or json (for programs).")
    var format: OutputFormat = .text

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    func run() async throws {
        try UnexpectedErrorProbe.reached("fleet validate")
        let result = try await input.load()
        let diagnostics = strict ? result.diagnostics.map(Self.promotingWarning) : result.diagnostics
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count

        switch format {
        case .text:
            printText(diagnostics, result: result, errors: errors, warnings: warnings)
        case .json:
            try printJSON(diagnostics, result: result, errors: errors, warnings: warnings)
        }

        KeptUntilExit.keep(result)
        if !result.unreadableInputs.isEmpty { throw ExitStatus.usageOrInput.exitCode }
        if errors > 0 { throw ExitStatus.findings.exitCode }
    }

    private static func promotingWarning(_ diagnostic: Diagnostic) -> Diagnostic {
        guard diagnostic.severity == .warning else { return diagnostic }
        var promoted = diagnostic
        promoted.severity = .error
        return promoted
    }

    private func printText(_ diagnostics: [Diagnostic], result: ManifestLoadResult, errors: Int, warnings: Int) {
        let console = Console.current
        let style = globals.style()
        for diagnostic in diagnostics {
            console.line(style.rendered(diagnostic))
        }
        let fleet = result.fleet
        let summary = "\(NumberText.count(fleet.files.count, "file")), \(NumberText.count(fleet.beacons.count, "beacon")) in "
            + "\(NumberText.count(fleet.venues.count, "venue")), \(NumberText.count(fleet.regions.count, "region")): "
            + "\(NumberText.count(errors, "error")), \(NumberText.count(warnings, "warning"))"
        if errors == 0 && warnings == 0 && result.unreadableInputs.isEmpty {
            console.line(style.success("ok") + ": " + summary)
        } else {
            console.line(summary)
        }
    }

    private func printJSON(_ diagnostics: [Diagnostic], result: ManifestLoadResult, errors: Int, warnings: Int) throws {
        let report = ValidationReport(
            files: result.fleet.files,
            unreadable: result.unreadableInputs,
            summary: .init(
                errors: errors, warnings: warnings, beacons: result.fleet.beacons.count,
                venues: result.fleet.venues.count, regions: result.fleet.regions.count),
            diagnostics: diagnostics.map(ValidationReport.Entry.init))
        Console.current.line(try JSONOutput.document(report))
    }
}

/// The `--format json` shape of `fleet validate` (documented in docs/diagnostics.md).
struct ValidationReport: Encodable {
    struct Summary: Encodable {
        var errors: Int
        var warnings: Int
        var beacons: Int
        var venues: Int
        var regions: Int
    }
    struct Position: Encodable {
        var file: String
        var line: Int
        var column: Int
        init(_ location: SourceLocation) {
            file = location.file
            line = location.line
            column = location.column
        }
    }
    struct Note: Encodable {
        var location: Position?
        var message: String
    }
    struct Entry: Encodable {
        var severity: String
        var code: String
        var message: String
        var location: Position
        var notes: [Note]
        var hint: String?

        init(_ diagnostic: Diagnostic) {
            severity = diagnostic.severity.rawValue
            code = diagnostic.code
            message = diagnostic.message
            location = Position(diagnostic.location)
            notes = diagnostic.notes.map { Note(location: $0.location.map(Position.init), message: $0.message) }
            hint = diagnostic.hint
        }
    }
    var files: [String]
    var unreadable: [String]
    var summary: Summary
    var diagnostics: [Entry]
}
