/// Renders strings as YAML scalars that every YAML reader takes back as the same string: the
/// one quoter for everything beaconctl writes into manifests (import, plan, write-back).
///
/// A plain (unquoted) scalar is used only for text that cannot be mistaken for anything
/// else: it starts with a letter (of any script: `Café du Monde` stays readable), holds only
/// letters, ASCII digits and `-_./` and spaces in between,
/// and is none of the words YAML 1.1 readers turn into booleans or null (`yes`, `off`, `~`…).
/// Everything else is double-quoted (YAML 1.2 section 7.3.1) with escapes for the quote, the
/// backslash and control characters, so names with `: `, `#`, quotes or line breaks survive.
public enum YAMLScalar {
    public static func render(_ text: String) -> String {
        isSafePlain(text) ? text : doubleQuoted(text)
    }

    public static func doubleQuoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}", "\u{FEFF}":
                // C0/C1 controls, the Unicode line separators and the byte order mark are
                // not printable in YAML (1.2 section 5.1): escape them by code point.
                result += "\\u" + hex(scalar.value, digits: 4)
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Words that YAML 1.1 resolves to booleans or null when left plain (YAML 1.1 types
    /// "bool" and "null"); libyaml-based readers and many tools still follow 1.1.
    private static let reservedWords: Set<String> = [
        "y", "yes", "n", "no", "true", "false", "on", "off", "null", "~",
    ]

    private static func isSafePlain(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, first.properties.isAlphabetic, scalars.last != " " else { return false }
        for scalar in scalars.dropFirst() {
            let allowed = scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./ ".unicodeScalars.contains(scalar)
            guard allowed else { return false }
        }
        // The reserved words are short; only short text needs the (allocating) comparison.
        return text.utf8.count > 5 || !reservedWords.contains(text.lowercased())
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
