import Foundation
import MarkedTextTestKit
import Testing

@testable import FleetManifest

/// Manifest text with the expected diagnostics marked where they must point (`MarkedText`:
/// `⟨code⟩` right before a key or value says "a diagnostic with this code starts here",
/// `⟨#name⟩` names a position for notes).
struct MarkedFixture {
    typealias Expectation = MarkedText.Mark

    let text: String
    /// In the order the markers appear.
    let expectations: [Expectation]
    private let positions: [String: (line: Int, column: Int)]

    init(_ marked: String) {
        let parsed = MarkedText(marked)
        text = parsed.text
        expectations = parsed.marks
        positions = parsed.positions
    }

    var bytes: [UInt8] { Array(text.utf8) }

    /// The location of a `⟨#name⟩` marker in `file`.
    func location(_ name: String, file: String = "fleet.yaml") -> FleetManifest.SourceLocation? {
        positions[name].map { FleetManifest.SourceLocation(file: file, line: $0.line, column: $0.column) }
    }

    /// Loads the fixture from a resource file (markers included) of `Fixtures/`.
    static func resource(_ name: String) throws -> MarkedFixture {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return MarkedFixture(try String(contentsOf: url, encoding: .utf8))
    }
}

/// One diagnostic reduced to what fixtures assert: file, position and code.
struct DiagnosticKey: Hashable, CustomStringConvertible {
    var file: String
    var line: Int
    var column: Int
    var code: String
    var description: String { "\(file):\(line):\(column) \(code)" }
}

/// Loads the fixtures as one namespace and checks that the diagnostics are exactly the
/// marked ones: each expected code at its marker, and nothing else.
@discardableResult
func expectDiagnostics(
    _ files: [(name: String, fixture: MarkedFixture)], options: ValidationOptions = .init(),
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ManifestLoadResult {
    let result = ManifestLoader.load(
        sources: files.map { ($0.name, $0.fixture.bytes) }, options: options)
    let expected = files.flatMap { file in
        file.fixture.expectations.map {
            DiagnosticKey(file: file.name, line: $0.line, column: $0.column, code: $0.code)
        }
    }
    let actual = result.diagnostics.map {
        DiagnosticKey(file: $0.location.file, line: $0.location.line, column: $0.location.column, code: $0.code)
    }
    let missing = expected.filter { !actual.contains($0) }
    let unexpected = actual.filter { !expected.contains($0) }
    #expect(
        missing.isEmpty && unexpected.isEmpty && actual.count == expected.count,
        """
        missing: \(missing)
        unexpected: \(unexpected)
        all diagnostics:
        \(result.diagnostics.map(\.rendered).joined(separator: "\n"))
        """,
        sourceLocation: sourceLocation)
    return result
}

@discardableResult
func expectDiagnostics(
    _ fixture: MarkedFixture, file: String = "fleet.yaml", options: ValidationOptions = .init(),
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ManifestLoadResult {
    expectDiagnostics([(file, fixture)], options: options, sourceLocation: sourceLocation)
}

/// Loads plain text (no markers) as `fleet.yaml`.
func load(_ text: String, options: ValidationOptions = .init()) -> ManifestLoadResult {
    ManifestLoader.load(sources: [("fleet.yaml", Array(text.utf8))], options: options)
}

/// The one diagnostic with `code`, for tests that look at its message, notes or hint.
func diagnostic(_ code: String, in result: ManifestLoadResult, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> Diagnostic {
    let matching = result.diagnostics.filter { $0.code == code }
    #expect(matching.count == 1, "expected one \(code), got: \(result.diagnostics.map(\.rendered))", sourceLocation: sourceLocation)
    return try #require(matching.first, sourceLocation: sourceLocation)
}

/// A valid manifest header for fixtures that exercise a single rule below it.
let header = """
    version: 1
    fleet: jays-donuts
    uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3

    """
