/// A manifest written from the rows of one fleet of an imported CSV.
public struct ImportedManifest: Hashable, Sendable {
    /// The fleet's name, as in the CSV's `fleet` column.
    public var fleet: String
    /// Schema v1 YAML text.
    public var yaml: String

    public init(fleet: String, yaml: String) {
        self.fleet = fleet
        self.yaml = yaml
    }
}

/// CSV in the layout `FleetExport.csv` writes → fleet manifests.
///
/// The header row is required and names the columns, in any order; `fleet`, `venue`,
/// `beacon`, `uuid`, `major` and `minor` must be among them, and a name that is not an
/// export column is an error. An empty cell is an absent value: no name, no position, or
/// the built-in default for measured power, interval and TX power.
///
/// The manifest written is checked by loading it back with `ManifestLoader`, and whatever
/// the loader finds (duplicate ids or identities, a vendor's default UUID, an overloaded
/// host…) is reported at the CSV cell the offending value came from. A manifest is
/// returned only when there is no error; warnings come with it.
public enum FleetImport {
    /// One manifest from a CSV whose rows all belong to one fleet. Rows of several fleets
    /// are an error (`csv-multiple-fleets`); `manifests(fromCSV:file:)` writes one each.
    /// `file` names the CSV in diagnostics.
    public static func manifest(fromCSV text: String, file: String) -> (yaml: String?, diagnostics: [Diagnostic]) {
        var run = ImportRun(file: file)
        run.read(text)
        if run.fleets.count > 1, let second = run.fleets.dropFirst().first {
            let names = run.fleets.map { "`\($0.name)`" }.joined(separator: ", ")
            run.diagnostics.append(Diagnostic(
                .csvMultipleFleets,
                "rows belong to \(run.fleets.count) fleets (\(names)); a manifest holds one fleet",
                at: second.firstRow,
                hint: "split the CSV by fleet, or import it as one manifest per fleet"))
        }
        let manifests = run.finish()
        guard manifests.count == 1, let only = manifests.first else { return (nil, run.sortedDiagnostics) }
        return (only.yaml, run.sortedDiagnostics)
    }

    /// One manifest per fleet named in the CSV, in order of first appearance; none when
    /// there is any error. `file` names the CSV in diagnostics.
    public static func manifests(fromCSV text: String, file: String) -> (manifests: [ImportedManifest], diagnostics: [Diagnostic]) {
        var run = ImportRun(file: file)
        run.read(text)
        let manifests = run.finish()
        return (manifests, run.sortedDiagnostics)
    }
}

/// The steps of one import: split, read the header and rows, write a manifest per fleet,
/// load them back and map what the loader says onto the CSV.
private struct ImportRun {
    struct FleetRows {
        var name: String
        var rows: [ImportedRow]
        /// Where the fleet's first row starts, for messages about the fleet as a whole.
        var firstRow: SourceLocation
    }

    let file: String
    var fleets: [FleetRows] = []
    var diagnostics: [Diagnostic] = []

    init(file: String) {
        self.file = file
    }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// By position in the CSV; diagnostics at one cell keep the order they were found in.
    var sortedDiagnostics: [Diagnostic] {
        diagnostics.enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
    }

    mutating func read(_ text: String) {
        let records: [CSVRecord]
        switch CSVReader.records(in: text) {
        case .success(let read):
            records = read
        case .failure(let error):
            diagnostics.append(Diagnostic(
                .csvSyntax, error.message, at: SourceLocation(file: file, line: error.line, column: error.column)))
            return
        }
        guard let headerRecord = records.first else {
            diagnostics.append(Diagnostic(
                .csvMissingHeader, "the file is empty; a fleet CSV starts with a header row",
                at: SourceLocation(file: file, line: 1, column: 1),
                hint: "the first row names the columns: \(ExportColumn.allCases.map(\.name).joined(separator: ","))"))
            return
        }
        let (header, headerProblems) = ImportHeader.read(headerRecord, file: file)
        diagnostics += headerProblems
        // Without a usable header no cell can be interpreted.
        guard let header else { return }
        guard records.count > 1 else {
            diagnostics.append(Diagnostic(
                .csvNoRows, "the file has a header but no beacon rows",
                at: SourceLocation(file: file, line: headerRecord.line, column: 1)))
            return
        }
        let reader = ImportRowReader(header: header, file: file)
        var fleetIndex: [String: Int] = [:]
        for record in records.dropFirst() {
            let (row, problems) = reader.read(record)
            diagnostics += problems
            guard let row else { continue }
            if let index = fleetIndex[row.fleet] {
                fleets[index].rows.append(row)
            } else {
                fleetIndex[row.fleet] = fleets.count
                fleets.append(FleetRows(
                    name: row.fleet, rows: [row], firstRow: SourceLocation(file: file, line: record.line, column: 1)))
            }
        }
    }

    /// Writes and checks the manifests; returns them only when nothing is wrong.
    mutating func finish() -> [ImportedManifest] {
        guard !fleets.isEmpty else { return [] }
        let written = fleets.map { ImportManifestWriter(rows: $0.rows).write() }
        // Loaded together, as one namespace, so ids and identities are checked across
        // fleets as `fleet validate` would check the folder they end up in.
        let sources = written.enumerated().map { index, lines in
            (name: String(index), bytes: Array(lines.text.utf8))
        }
        let loaded = ManifestLoader.load(sources: sources)
        for diagnostic in loaded.diagnostics {
            diagnostics.append(mapped(diagnostic, through: written))
        }
        guard !hasErrors else { return [] }
        return zip(fleets, written).map { ImportedManifest(fleet: $0.name, yaml: $1.text) }
    }

    /// The diagnostic with its locations moved from the written manifest to the CSV cells
    /// the values came from (the whole CSV when a line holds no value of a cell).
    private func mapped(_ diagnostic: Diagnostic, through written: [ManifestLines]) -> Diagnostic {
        var result = diagnostic
        result.location = csvLocation(of: diagnostic.location, through: written)
        result.notes = diagnostic.notes.map { note in
            DiagnosticNote(location: note.location.map { csvLocation(of: $0, through: written) }, message: note.message)
        }
        return result
    }

    private func csvLocation(of location: SourceLocation, through written: [ManifestLines]) -> SourceLocation {
        guard let index = Int(location.file), written.indices.contains(index),
              let origin = written[index].origin(ofLine: location.line)
        else { return .wholeFile(file) }
        return origin
    }
}
