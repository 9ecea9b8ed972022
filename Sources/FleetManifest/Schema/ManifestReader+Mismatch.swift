import BeaconCore
import YAMLDocument

/// Messages for a scalar that is not what its field wants: each says what the value is
/// instead, in the terms YAML readers would use, and how to write what was meant.
extension ManifestReader {
    /// The type a field wants, which decides how a mismatch is explained.
    enum ValueType {
        case integer, number, boolean
    }

    /// Reports a scalar that is not of the expected type, naming what it is instead.
    /// `expectation` words the requirement ("an integer 0…65535"); `subject` replaces the
    /// field name when the value is part of one (a coordinate of `position`).
    func reportMismatch(
        _ kind: ScalarKind, _ token: ScalarToken, field: ManifestField, wants type: ValueType,
        expectation: String, subject: String? = nil
    ) {
        let wantsInteger = type == .integer
        let name = subject ?? "`\(field.key)`"
        let written = "`\(token.excerpt)`"
        switch kind {
        case .null:
            report(.emptyValue, "\(name) has no value; it must be \(expectation)", at: token.mark)
        case .quoted:
            if token.bytes.isEmpty {
                report(.emptyValue, "\(name) is empty; it must be \(expectation)", at: token.mark)
                return
            }
            let unquoted = ScalarKind(of: ScalarToken(bytes: token.bytes, style: .plain, mark: token.mark))
            let looksRight: Bool
            switch unquoted {
            case .integer: looksRight = true
            case .decimal: looksRight = !wantsInteger
            case .boolean: looksRight = type == .boolean
            default: looksRight = false
            }
            report(
                .wrongType, "\(name) must be \(expectation), not the quoted text \"\(token.excerpt)\"",
                at: token.mark, hint: looksRight ? "remove the quotes: quoted values are always text" : nil)
        case .block:
            report(.wrongType, "\(name) must be \(expectation), not a block of text", at: token.mark)
        case .boolean:
            report(.wrongType, "\(name) must be \(expectation), not the boolean \(written)", at: token.mark)
        case .yaml11Boolean:
            report(
                .wrongType,
                "\(name) must be \(expectation), not \(written) (a boolean to YAML 1.1 readers, text to YAML 1.2 readers)",
                at: token.mark)
        case .leadingZero:
            let negative = token.text.hasPrefix("-")
            let digits = token.text.drop { $0 == "-" || $0 == "0" }
            let decimal = (negative ? "-" : "") + (digits.isEmpty ? "0" : String(digits))
            let octal = Int(token.text, radix: 8).map(String.init)
            let yaml11 = octal.map { "octal \($0)" } ?? "text"
            report(
                .ambiguousNumber,
                "\(name) is written \(written): with a leading zero YAML 1.1 reads \(yaml11) and YAML 1.2 reads decimal \(decimal)",
                at: token.mark, hint: octal.map { "write \(decimal) (or \($0) if octal was meant)" } ?? "write \(decimal)")
        case .prefixedInteger(let base, let value):
            let baseName = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary"
            report(
                .ambiguousNumber,
                "\(name) is written in \(baseName) (\(written)); manifests take decimal numbers, which every YAML reader agrees on",
                at: token.mark, hint: value.map { "write \($0)" })
        case .digitSeparators(let value):
            report(
                .ambiguousNumber,
                "\(name) is written with digit separators (\(written)): a number to YAML 1.1 readers, text to YAML 1.2 readers",
                at: token.mark, hint: value.map { "write \(Self.plainNumber($0))" })
        case .plusSign(let value):
            report(
                .ambiguousNumber,
                "\(name) is written with a plus sign (\(written)), which YAML's JSON schema reads as text",
                at: token.mark, hint: value.map { "write \(Self.plainNumber($0))" })
        case .decimal(let value, let hasExponent):
            if hasExponent && wantsInteger {
                report(
                    .ambiguousNumber,
                    "\(name) is written with an exponent (\(written)): a floating-point number to YAML 1.2 readers, text to YAML 1.1 readers; it must be \(expectation)",
                    at: token.mark,
                    hint: value.rounded() == value && abs(value) < 1e15 ? "write \(Self.plainNumber(value))" : nil)
            } else {
                report(
                    .wrongType, "\(name) must be \(expectation), not the fractional number \(written)",
                    at: token.mark,
                    hint: value.rounded() == value && abs(value) < 1e15 ? "write \(Self.plainNumber(value))" : nil)
            }
        case .nonFinite:
            report(.wrongType, "\(name) must be \(expectation), not \(written)", at: token.mark)
        case .integer, .integerOverflow:
            report(.wrongType, "\(name) must be \(expectation), not the number \(written)", at: token.mark)
        case .text:
            report(.wrongType, "\(name) must be \(expectation), not the text \(written)", at: token.mark)
        }
    }

    /// `1000` rather than `1000.0` when the value is whole.
    private static func plainNumber(_ value: Double) -> String {
        return NumberText.plain(value)
    }
}
