/// What YAML makes of a scalar's text and style. Readers decide types from this,
/// never from a YAML 1.1 or 1.2 resolver, so that `010`, `0x1F`, `yes` or `"5"` can be named
/// for what they are instead of silently becoming something else.
public enum ScalarKind: Equatable, Sendable {
    /// Plain empty, `~`, `null`, `Null`, `NULL`.
    case null
    /// `true`/`false` (also `True`, `TRUE`…): booleans in YAML 1.1 and 1.2 alike.
    case boolean(Bool)
    /// `yes`, `no`, `on`, `off`, `y`, `n` (any case YAML 1.1 allows): booleans to YAML 1.1
    /// readers, text to YAML 1.2 readers.
    case yaml11Boolean
    /// A decimal integer without sign clutter or leading zeros: `0`, `42`, `-59`.
    case integer(Int)
    /// Decimal integer digits beyond the range of `Int`.
    case integerOverflow(negative: Bool)
    /// A decimal number with a fraction and/or exponent: `3.5`, `-0.25`, `1e3`, `.5`.
    case decimal(Double, hasExponent: Bool)
    /// `.inf`, `-.inf`, `.nan` and their case variants.
    case nonFinite
    /// Digits with a leading zero (`010`): octal to YAML 1.1, decimal to YAML 1.2.
    case leadingZero
    /// `0x1F`, `0o17`, `0b101`: base-prefixed integers; `value` when it fits `Int`.
    case prefixedInteger(base: Int, value: Int?)
    /// Digits with `_` separators (`1_000`): a number to YAML 1.1, text to YAML 1.2.
    case digitSeparators(value: Double?)
    /// A number with a leading `+` (`+5`): a number to YAML's core schemas, text to its
    /// JSON schema.
    case plusSign(value: Double?)
    /// Any other plain text.
    case text
    /// A quoted scalar (`"5"`, `'auto'`): always a string.
    case quoted
    /// A literal or folded block scalar (`|`, `>`): always a string.
    case block

    public init(of token: ScalarToken) {
        switch token.style {
        case .quoted: self = .quoted
        case .block: self = .block
        case .plain: self = ScalarKind.classifyPlain(token.bytes)
        }
    }

    private static func classifyPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> ScalarKind {
        guard let first = bytes.first else { return .null }
        // Most manifest scalars are names, UUIDs and small integers; a first-byte check
        // sends names straight to `.text`.
        switch first {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."):
            return classifyNumeric(bytes)
        case UInt8(ascii: "~"):
            return bytes.count == 1 ? .null : .text
        default:
            return classifyWord(bytes)
        }
    }

    private static func classifyWord(_ bytes: UnsafeBufferPointer<UInt8>) -> ScalarKind {
        // Every word below is at most five letters and starts with one of these.
        guard bytes.count <= 5 else { return .text }
        switch bytes[0] | 0x20 {
        case UInt8(ascii: "n"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "y"), UInt8(ascii: "o"): break
        default: return .text
        }
        switch String(decoding: bytes, as: UTF8.self) {
        case "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .boolean(true)
        case "false", "False", "FALSE": return .boolean(false)
        case "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
            "y", "Y", "n", "N":
            return .yaml11Boolean
        default: return .text
        }
    }

    private static func classifyNumeric(_ bytes: UnsafeBufferPointer<UInt8>) -> ScalarKind {
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        let body = UnsafeBufferPointer(rebasing: bytes[index...])
        if body.isEmpty { return .text }

        if bytes[0] == UInt8(ascii: "+") {
            let rest = classifyNumeric(body)
            switch rest {
            case .integer(let value): return .plusSign(value: Double(value))
            case .decimal(let value, _): return .plusSign(value: value)
            case .integerOverflow, .leadingZero: return .plusSign(value: nil)
            case .nonFinite, .prefixedInteger, .digitSeparators: return rest
            default: return .text
            }
        }
        if let special = nonFinite(body) { return special }
        if body.count > 2, body[0] == UInt8(ascii: "0"), let base = prefixBase(body[1]) {
            return prefixed(UnsafeBufferPointer(rebasing: body[2...]), base: base, negative: negative)
        }

        var digits = 0
        var hasDot = false
        var hasExponent = false
        var hasUnderscore = false
        var position = 0
        while position < body.count {
            let byte = body[position]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
            case UInt8(ascii: "_") where !hasDot && !hasExponent && digits > 0:
                hasUnderscore = true
            case UInt8(ascii: ".") where !hasDot && !hasExponent:
                hasDot = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard !hasExponent, digits > 0 else { return .text }
                hasExponent = true
                // An exponent may carry its own sign and needs at least one digit.
                if position + 1 < body.count,
                    body[position + 1] == UInt8(ascii: "+") || body[position + 1] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard position + 1 < body.count else { return .text }
            default:
                return .text
            }
            position += 1
        }
        guard digits > 0 else { return .text }

        if hasUnderscore {
            let cleaned = bytes.filter { $0 != UInt8(ascii: "_") }
            return .digitSeparators(value: Double(String(decoding: cleaned, as: UTF8.self)))
        }
        if hasDot || hasExponent {
            if let value = exactDecimal(body, negative: negative) {
                return .decimal(value, hasExponent: hasExponent)
            }
            guard let value = Double(String(decoding: bytes, as: UTF8.self)) else { return .text }
            return .decimal(value, hasExponent: hasExponent)
        }
        if body.count > 1 && body[0] == UInt8(ascii: "0") { return .leadingZero }
        return decimalInteger(body, negative: negative)
    }

    /// Powers of ten that a Double holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The common case of a decimal such as `12.5` or `1e3`, without a trip through
    /// `strtod`: when the digits form an integer below 2^53 and the power of ten is exact,
    /// one multiplication or division gives the correctly rounded value (Clinger's fast
    /// path). `nil` sends anything else to the general conversion. `body` has been checked
    /// to be digits, at most one dot and at most one exponent.
    private static func exactDecimal(_ body: UnsafeBufferPointer<UInt8>, negative: Bool) -> Double? {
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var inFraction = false
        var position = 0
        while position < body.count {
            let byte = body[position]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                break
            } else {
                digits += 1
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte &- UInt8(ascii: "0"))
                if inFraction { fractionDigits += 1 }
            }
            position += 1
        }
        var exponent = 0
        if position < body.count {
            position += 1
            guard position < body.count else { return nil }
            var exponentNegative = false
            if body[position] == UInt8(ascii: "-") || body[position] == UInt8(ascii: "+") {
                exponentNegative = body[position] == UInt8(ascii: "-")
                position += 1
                guard position < body.count else { return nil }
            }
            while position < body.count {
                exponent = exponent * 10 + Int(body[position] &- UInt8(ascii: "0"))
                guard exponent <= 1000 else { return nil }
                position += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        let scale = exponent - fractionDigits
        guard abs(scale) < exactPowersOfTen.count else { return nil }
        let magnitude =
            scale < 0 ? Double(mantissa) / exactPowersOfTen[-scale] : Double(mantissa) * exactPowersOfTen[scale]
        return negative ? -magnitude : magnitude
    }

    private static func decimalInteger(_ digits: UnsafeBufferPointer<UInt8>, negative: Bool) -> ScalarKind {
        var value = 0
        for digit in digits {
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let digitValue = Int(digit &- UInt8(ascii: "0"))
            let (next, overflowB) =
                negative
                ? shifted.subtractingReportingOverflow(digitValue)
                : shifted.addingReportingOverflow(digitValue)
            if overflowA || overflowB { return .integerOverflow(negative: negative) }
            value = next
        }
        return .integer(value)
    }

    private static func prefixBase(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "x"), UInt8(ascii: "X"): return 16
        case UInt8(ascii: "o"), UInt8(ascii: "O"): return 8
        case UInt8(ascii: "b"), UInt8(ascii: "B"): return 2
        default: return nil
        }
    }

    private static func prefixed(_ digits: UnsafeBufferPointer<UInt8>, base: Int, negative: Bool) -> ScalarKind {
        let text = String(decoding: digits.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        guard !text.isEmpty, let magnitude = Int(text, radix: base) else {
            // Not even valid digits for the base: then it is just text.
            let allValid = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit }
            return allValid ? .prefixedInteger(base: base, value: nil) : .text
        }
        return .prefixedInteger(base: base, value: negative ? -magnitude : magnitude)
    }

    private static func nonFinite(_ body: UnsafeBufferPointer<UInt8>) -> ScalarKind? {
        guard body.count == 4, body[0] == UInt8(ascii: ".") else { return nil }
        switch String(decoding: body, as: UTF8.self) {
        case ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN": return .nonFinite
        default: return nil
        }
    }
}
