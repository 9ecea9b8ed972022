import BeaconCore

/// One beacon read from a CSV row, every value checked, and where each value came from so
/// that later complaints (from the manifest loader) can point back into the CSV.
struct ImportedRow {
    var fleet: String
    var venue: String
    var beacon: String
    var name: String?
    var zone: String?
    var identity: BeaconIdentity
    var measuredPower: MeasuredPower
    var intervalMilliseconds: Int
    var txPower: Int
    var position: PlanPoint?
    var host: String?
    var mac: BluetoothAddress?
    /// The cell each value was read from.
    var origins: CellOrigins

    func origin(_ column: ExportColumn) -> SourceLocation? { origins[column] }
}

/// Where each column's cell of a row starts, by column.
struct CellOrigins {
    private var locations = [SourceLocation?](repeating: nil, count: ExportColumn.allCases.count)

    subscript(column: ExportColumn) -> SourceLocation? {
        get { locations[column.rawValue] }
        set { locations[column.rawValue] = newValue }
    }
}

/// Turns a record into an `ImportedRow`, reporting every bad cell of it.
struct ImportRowReader {
    let header: ImportHeader
    let file: String

    func read(_ record: CSVRecord) -> (row: ImportedRow?, diagnostics: [Diagnostic]) {
        guard record.cells.count == header.columns.count else {
            let count = record.cells.count
            let hint = count > header.columns.count
                ? "a comma inside a value needs the value in double quotes: \"Harbour, east\""
                : "every row has a cell for each column of the header; an empty value is nothing between two commas"
            return (nil, [Diagnostic(
                .csvCellCount,
                "this row has \(NumberText.count(count, "cell")) but the header has \(header.columns.count)",
                at: SourceLocation(file: file, line: record.line, column: 1), hint: hint)])
        }
        var cells = CellReader(record: record, header: header, file: file)
        let fleet = cells.requiredText(.fleet)
        let venue = cells.requiredText(.venue)
        let beacon = cells.requiredText(.beacon)
        let name = cells.text(.name)
        let zone = cells.text(.zone)
        let uuid = cells.uuid()
        let major = cells.integer(.major, in: 0...65535, required: true).flatMap(UInt16.init(exactly:))
        let minor = cells.integer(.minor, in: 0...65535, required: true).flatMap(UInt16.init(exactly:))
        let measuredPower = cells.measuredPower()
        let interval = cells.integer(.intervalMilliseconds, in: 20...10240, unit: " ms", required: false)
        let txPower = cells.integer(.txPower, in: TransmitPower.validRange, unit: " dBm", required: false)
        let position = cells.position()
        let host = cells.text(.host)
        let mac = cells.mac()
        guard cells.diagnostics.isEmpty,
              let fleet, let venue, let beacon, let uuid, let major, let minor
        else { return (nil, cells.diagnostics) }
        // An empty cell is an absent value, which in a manifest means the built-in default.
        let row = ImportedRow(
            fleet: fleet, venue: venue, beacon: beacon, name: name, zone: zone,
            identity: BeaconIdentity(uuid: uuid, major: major, minor: minor),
            measuredPower: measuredPower ?? DocumentResolver.builtInMeasuredPower,
            intervalMilliseconds: interval ?? DocumentResolver.builtInIntervalMilliseconds,
            txPower: txPower ?? DocumentResolver.builtInTxPower,
            position: position, host: host, mac: mac, origins: cells.origins)
        return (row, [])
    }
}

/// Reads the cells of one row by column, collecting diagnostics and origins as it goes.
private struct CellReader {
    let record: CSVRecord
    let header: ImportHeader
    let file: String
    var diagnostics: [Diagnostic] = []
    var origins = CellOrigins()

    init(record: CSVRecord, header: ImportHeader, file: String) {
        self.record = record
        self.header = header
        self.file = file
    }

    private var rowStart: SourceLocation { SourceLocation(file: file, line: record.line, column: 1) }

    /// The cell of `column` (`nil` when the header lacks the column), its origin noted.
    private mutating func cell(_ column: ExportColumn) -> CSVCell? {
        guard let index = header.positions[column], index < record.cells.count else { return nil }
        let cell = record.cells[index]
        origins[column] = cell.location(in: file)
        return cell
    }

    private mutating func report(_ code: DiagnosticCode, _ message: String, _ cell: CSVCell, hint: String? = nil) {
        diagnostics.append(Diagnostic(code, message, at: cell.location(in: file), hint: hint))
    }

    /// Free text, kept exactly as written; `nil` when empty.
    mutating func text(_ column: ExportColumn) -> String? {
        guard let cell = cell(column), !cell.text.isEmpty else { return nil }
        return cell.text
    }

    mutating func requiredText(_ column: ExportColumn) -> String? {
        if let text = text(column) { return text }
        diagnostics.append(Diagnostic(
            .csvMissingValue, "the `\(column.name)` cell is empty; every beacon needs one",
            at: origins[column] ?? rowStart))
        return nil
    }

    /// A cell meant to hold a number or code: surrounding spaces do not count.
    private mutating func trimmed(_ column: ExportColumn) -> (cell: CSVCell, text: String)? {
        guard let cell = cell(column) else { return nil }
        let text = cell.text.trimmingASCIISpaces()
        return text.isEmpty ? nil : (cell, text)
    }

    mutating func uuid() -> ProximityUUID? {
        guard let (cell, text) = trimmed(.uuid) else {
            diagnostics.append(Diagnostic(
                .csvMissingValue, "the `uuid` cell is empty; every beacon needs one",
                at: origins[.uuid] ?? rowStart))
            return nil
        }
        let uuid: ProximityUUID
        do {
            uuid = try ProximityUUID(parsing: text)
        } catch {
            report(.invalidUUID, "`uuid` `\(text)` is not a UUID: \(error)", cell)
            return nil
        }
        guard !uuid.isZero else {
            report(.nilUUID, "`uuid` is the nil UUID, which unconfigured beacons send and apps cannot tell apart", cell,
                   hint: "generate a UUID for the fleet (uuidgen) and use it everywhere")
            return nil
        }
        return uuid
    }

    mutating func integer(_ column: ExportColumn, in range: ClosedRange<Int>, unit: String = "", required: Bool) -> Int? {
        guard let (cell, text) = trimmed(column) else {
            if required {
                diagnostics.append(Diagnostic(
                    .csvMissingValue, "the `\(column.name)` cell is empty; every beacon needs one",
                    at: origins[column] ?? rowStart))
            }
            return nil
        }
        let expectation = "an integer \(range.lowerBound)…\(range.upperBound)\(unit)"
        guard ImportNumberSyntax.isInteger(text) else {
            report(.wrongType, "`\(column.name)` is `\(text)`; it must be \(expectation)", cell)
            return nil
        }
        guard let value = Int(text), range.contains(value) else {
            report(.valueOutOfRange, "`\(column.name)` is \(text); it must be \(expectation)", cell)
            return nil
        }
        return value
    }

    mutating func measuredPower() -> MeasuredPower? {
        guard let (cell, text) = trimmed(.measuredPower) else { return nil }
        if text == "auto" || text.lowercased() == "auto" { return .auto }
        let expectation = "`auto` or an integer −127…−1 (dBm at 1 m)"
        guard ImportNumberSyntax.isInteger(text) else {
            report(.wrongType, "`measured_power` is `\(text)`; it must be \(expectation)", cell)
            return nil
        }
        guard let value = Int(text), MeasuredPower.validRange ~= value, let dBm = Int8(exactly: value) else {
            report(.valueOutOfRange, "`measured_power` is \(text); it must be \(expectation)", cell)
            return nil
        }
        return .dBm(dBm)
    }

    /// `x` and `y` together, in metres; one without the other is an error.
    mutating func position() -> PlanPoint? {
        let x = coordinate(.x)
        let y = coordinate(.y)
        switch (x, y) {
        case (.value(let x), .value(let y)):
            return PlanPoint(x: x, y: y)
        case (.value, .empty), (.empty, .value):
            diagnostics.append(Diagnostic(
                .csvIncompletePosition, "the row has only one of `x` and `y`",
                at: origins[.x] ?? origins[.y] ?? rowStart,
                hint: "give both coordinates (metres on the venue's plan), or neither"))
            return nil
        default:
            return nil
        }
    }

    private enum Coordinate {
        case value(Double)
        case empty
        case invalid
    }

    private mutating func coordinate(_ column: ExportColumn) -> Coordinate {
        guard let (cell, text) = trimmed(column) else { return .empty }
        guard ImportNumberSyntax.isDecimal(text), let value = Double(text), value.isFinite else {
            let hint = text.contains(",") ? "write the decimal separator as a point: 3.5, not 3,5" : nil
            report(.wrongType, "`\(column.name)` is `\(text)`; it must be a number of metres", cell, hint: hint)
            return .invalid
        }
        return .value(value)
    }

    mutating func mac() -> BluetoothAddress? {
        guard let (cell, text) = trimmed(.mac) else { return nil }
        switch BluetoothAddress.parse(text) {
        case .success(let address):
            return address
        case .failure(let problem):
            report(.invalidMAC, "`mac` `\(text)` is not a Bluetooth address: \(problem)", cell)
            return nil
        }
    }
}

/// The number forms a CSV cell may use. Stricter than `Int(_:)` and `Double(_:)`, which also
/// take `nan`, `inf` and hexadecimal floats that no spreadsheet means.
enum ImportNumberSyntax {
    /// An optional sign and decimal digits.
    static func isInteger(_ text: String) -> Bool {
        isInteger(text.utf8[...])
    }

    /// An optional sign, digits with an optional fraction (`3`, `3.5`, `.5`, `3.`), and an
    /// optional exponent (`1e-3`).
    static func isDecimal(_ text: String) -> Bool {
        var rest = text.utf8[...]
        if let first = rest.first, isSign(first) { rest = rest.dropFirst() }
        let mantissa = rest.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        let exponent = rest.dropFirst(mantissa.count)
        let parts = mantissa.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ $0.allSatisfy(isDigit) }), parts.contains(where: { !$0.isEmpty }) else { return false }
        guard !exponent.isEmpty else { return true }
        return isInteger(exponent.dropFirst())
    }

    private static func isInteger(_ bytes: Substring.UTF8View) -> Bool {
        var digits = bytes
        if let first = digits.first, isSign(first) { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.allSatisfy(isDigit)
    }

    private static func isSign(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
