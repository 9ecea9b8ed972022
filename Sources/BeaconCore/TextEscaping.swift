/// JSON string literals (RFC 8259 section 7) for the places that write JSON by hand
/// because they stream it line by line or need a fixed key order.
public enum JSONText {
    /// Appends `string` as a JSON string literal: quotes, backslashes and control
    /// characters escaped, everything else as it is (UTF-8).
    public static func appendStringLiteral(_ string: String, to text: inout String) {
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

    /// `string` as a JSON string literal.
    public static func stringLiteral(_ string: String) -> String {
        var text = ""
        appendStringLiteral(string, to: &text)
        return text
    }
}

/// Text made safe for XML 1.0 character data and attribute values (SVG, HTML, JUnit).
public enum XMLText {
    /// Escapes markup characters, keeps tabs and line breaks (as character references in
    /// attributes, where a parser would otherwise normalise them to spaces) and replaces
    /// what XML 1.0 cannot carry at all (control characters, U+FFFE, U+FFFF) with U+FFFD.
    /// XML 1.0 section 2.2 (Char) and 3.3.3 (attribute-value normalisation).
    public static func escaped(_ text: String, inAttribute: Bool) -> String {
        // Most text has none of the bytes that start anything replaced below (0xEF starts
        // U+FFFE and U+FFFF): returned as it is, without a walk by scalars.
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { byte in
                byte < 0x20 || byte == 0xEF || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<")
                    || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
            }
        }
        if plain == true { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where inAttribute: result += "&quot;"
            case "'" where inAttribute: result += "&apos;"
            case "\t" where inAttribute: result += "&#9;"
            case "\n" where inAttribute: result += "&#10;"
            case "\r": result += "&#13;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// Control characters in text shown to people: C0 (U+0000–U+001F, tab and line breaks
/// included), DEL (U+007F) and C1 (U+0080–U+009F). They move a terminal's cursor or change
/// its colours (ESC), split log lines (newline) and cut C strings short (NUL).
public enum ControlCharacters {
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `text` with each control character written as an escape (`\n`, `\t`, `\u{1B}`): one
    /// line stays one line, and nothing reaches a terminal as a command.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += scalar.escaped(asASCII: true)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
