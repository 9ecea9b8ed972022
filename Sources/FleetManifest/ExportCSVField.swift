/// CSV cell and record rendering after RFC 4180 section 2.
public enum CSVField {
    /// The cell as written: enclosed in double quotes, with each quote doubled, when it holds
    /// a comma, a quote or a line break (rules 6 and 7); as is otherwise.
    public static func render(_ text: String) -> String {
        var result = ""
        append(text, to: &result)
        return result
    }

    static func append(_ text: String, to result: inout String) {
        let needsQuotes = text.utf8.contains {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
        }
        guard needsQuotes else {
            result += text
            return
        }
        result += "\""
        result += text.replacing("\"", with: "\"\"")
        result += "\""
    }

    /// One record: cells joined by commas, ended by CRLF as RFC 4180 rule 1 asks (spreadsheet
    /// programs and Python's csv module write the same).
    public static func record(_ cells: [String]) -> String {
        cells.map(render).joined(separator: ",") + "\r\n"
    }
}
