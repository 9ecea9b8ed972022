/// Problems particular to reading a CSV export back. Problems with a value itself (a bad
/// UUID, a number out of range) use the manifest's codes, so a code means one thing
/// whichever file it was found in. These are listed in `docs/manifest.md` (Export and
/// import), the manifest's in `docs/diagnostics.md`.
enum ImportDiagnosticCode: String, CaseIterable, Sendable {
    /// The text cannot be split into cells: a quote left open, a stray quote.
    case csvSyntax = "csv-syntax"
    /// The file is empty: not even a header row.
    case csvMissingHeader = "csv-missing-header"
    /// A header row and no beacon rows after it.
    case csvNoRows = "csv-no-rows"
    /// A header cell is not a known column.
    case csvUnknownColumn = "csv-unknown-column"
    /// A column appears twice in the header.
    case csvDuplicateColumn = "csv-duplicate-column"
    /// A column a manifest cannot do without is not in the header.
    case csvMissingColumn = "csv-missing-column"
    /// A row has more or fewer cells than the header.
    case csvCellCount = "csv-cell-count"
    /// A required value (fleet, venue, beacon id, uuid, major, minor) is an empty cell.
    case csvMissingValue = "csv-missing-value"
    /// `x` without `y` or the other way round.
    case csvIncompletePosition = "csv-incomplete-position"
    /// Rows of several fleets where one manifest was asked for.
    case csvMultipleFleets = "csv-multiple-fleets"

    var severity: DiagnosticSeverity { .error }
}

extension Diagnostic {
    init(_ code: ImportDiagnosticCode, _ message: String, at location: SourceLocation, hint: String? = nil) {
        self.init(severity: code.severity, code: code.rawValue, message: message, location: location, hint: hint)
    }

    init(_ code: DiagnosticCode, _ message: String, at location: SourceLocation, hint: String? = nil) {
        self.init(severity: code.severity, code: code.rawValue, message: message, location: location, hint: hint)
    }
}
