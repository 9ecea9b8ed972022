/// JSON text for exported rows (RFC 8259).
enum ExportJSON {
    /// `{"fleet": "…", "venue": "…", …}` with the keys in column order, absent values as `null`.
    static func object(_ values: [ExportValue]) -> String {
        let members = zip(ExportColumn.allCases, values).map { column, value in
            string(column.rawValue) + ": " + render(value)
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func render(_ value: ExportValue) -> String {
        switch value {
        case .text(let text): return string(text)
        case .integer(let number): return String(number)
        case .number(let number): return ExportNumber.text(number) ?? "null"
        case .absent: return "null"
        }
    }

    /// A JSON string: quote, backslash and the control characters U+0000–U+001F escaped
    /// (RFC 8259 section 7); everything else as UTF-8.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
