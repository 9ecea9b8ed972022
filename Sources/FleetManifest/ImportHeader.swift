import BeaconCore

/// The header row of an imported CSV: which column each cell position holds.
struct ImportHeader {
    /// The column at each cell position of a row.
    let columns: [ExportColumn]
    /// The cell position of each column present.
    let positions: [ExportColumn: Int]

    /// Columns without which no beacon can be written: where it belongs and its identity.
    static let required: [ExportColumn] = [.fleet, .venue, .beacon, .uuid, .major, .minor]

    /// Reads the header. Names are matched ignoring surrounding spaces and case, since
    /// spreadsheets like to capitalise; any other difference is an unknown column.
    static func read(_ record: CSVRecord, file: String) -> (header: ImportHeader?, diagnostics: [Diagnostic]) {
        var columns: [ExportColumn] = []
        var positions: [ExportColumn: Int] = [:]
        var unknown: [CSVCell] = []
        var diagnostics: [Diagnostic] = []
        for (index, cell) in record.cells.enumerated() {
            let name = cell.text.trimmingASCIISpaces().lowercased()
            guard let column = ExportColumn(name: name) else {
                unknown.append(cell)
                continue
            }
            if positions[column] != nil {
                diagnostics.append(Diagnostic(
                    .csvDuplicateColumn, "column `\(column.name)` appears twice in the header",
                    at: cell.location(in: file), hint: "remove one of the two columns"))
                continue
            }
            positions[column] = index
            columns.append(column)
        }
        if let first = unknown.first {
            // An empty header cell usually comes from a trailing comma.
            let names = unknown.map { $0.text.isEmpty ? "`` (empty)" : "`\($0.text)`" }.joined(separator: ", ")
            let noun = NumberText.noun("column", for: unknown.count)
            diagnostics.append(Diagnostic(
                .csvUnknownColumn, "unknown \(noun) \(names) in the header",
                at: first.location(in: file),
                hint: "the columns are \(ExportColumn.allCases.map(\.name).joined(separator: ", ")); remove or rename the others"))
        }
        let missing = required.filter { positions[$0] == nil }
        if !missing.isEmpty {
            let names = missing.map { "`\($0.name)`" }.joined(separator: ", ")
            diagnostics.append(Diagnostic(
                .csvMissingColumn, "the header has no \(names) \(NumberText.noun("column", for: missing.count))",
                at: SourceLocation(file: file, line: record.line, column: 1),
                hint: "every beacon needs its fleet, venue, beacon id, uuid, major and minor; the first row must name the columns"))
        }
        guard diagnostics.isEmpty else { return (nil, diagnostics) }
        return (ImportHeader(columns: columns, positions: positions), [])
    }
}

extension CSVCell {
    func location(in file: String) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column)
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs; other whitespace is content.
    func trimmingASCIISpaces() -> String {
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let bytes = utf8
        // Almost every cell has nothing to trim.
        guard let first = bytes.first, let last = bytes.last, isSpace(first) || isSpace(last) else { return self }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let end = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }
}
