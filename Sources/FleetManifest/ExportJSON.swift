import BeaconCore

/// JSON text for exported rows (RFC 8259).
enum ExportJSON {
    /// Appends `{"fleet": "…", "venue": "…", …}`, keys in column order, absent values `null`.
    static func appendObject(of beacon: ResolvedBeacon, reading reader: inout ExportValueReader, to text: inout String) {
        text += "{"
        for column in ExportColumn.allCases {
            if column != .fleet { text += ", " }
            JSONText.appendStringLiteral(column.name, to: &text)
            text += ": "
            append(reader.value(column, of: beacon), to: &text)
        }
        text += "}"
    }

    static func append(_ value: ExportValue, to text: inout String) {
        switch value {
        case .text(let string): JSONText.appendStringLiteral(string, to: &text)
        case .integer(let number): text += String(number)
        case .number(let number): text += ExportNumber.text(number) ?? "null"
        case .absent: text += "null"
        }
    }
}
