/// JSON text for exported rows (RFC 8259).
enum ExportJSON {
    /// Appends `{"fleet": "…", "venue": "…", …}`, keys in column order, absent values `null`.
    static func appendObject(of beacon: ResolvedBeacon, reading reader: inout ExportValueReader, to text: inout String) {
        text += "{"
        for column in ExportColumn.allCases {
            if column != .fleet { text += ", " }
            appendString(column.name, to: &text)
            text += ": "
            append(reader.value(column, of: beacon), to: &text)
        }
        text += "}"
    }

    static func append(_ value: ExportValue, to text: inout String) {
        switch value {
        case .text(let string): appendString(string, to: &text)
        case .integer(let number): text += String(number)
        case .number(let number): text += ExportNumber.text(number) ?? "null"
        case .absent: text += "null"
        }
    }

    /// A JSON string: quote, backslash and the control characters U+0000–U+001F escaped
    /// (RFC 8259 section 7); everything else as UTF-8.
    static func appendString(_ string: String, to text: inout String) {
        text += "\""
        defer { text += "\"" }
        // Most values need no escape at all: copy them whole.
        let needsEscaping = string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard needsEscaping else {
            text += string
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
    }
}
