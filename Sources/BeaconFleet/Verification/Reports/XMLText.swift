/// Text made safe for XML 1.0 character data and attribute values.
enum XMLText {
    /// Escapes markup characters, keeps tabs and line breaks (as character references in
    /// attributes, where a parser would otherwise normalise them to spaces) and replaces
    /// what XML 1.0 cannot carry at all (control characters, U+FFFE, U+FFFF) with U+FFFD.
    /// XML 1.0 section 2.2 (Char) and 3.3.3 (attribute-value normalisation).
    static func escaped(_ text: String, inAttribute: Bool) -> String {
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
