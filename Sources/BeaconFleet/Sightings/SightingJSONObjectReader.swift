/// Reads one JSON object (RFC 8259) from the bytes of one line and hands back its members.
///
/// A sighting line is a flat object of strings, numbers, booleans and nulls, so that is
/// what this reader keeps; nested arrays and objects are checked and skipped (a newer
/// writer may add them). It exists because Foundation's JSONDecoder on Linux reports any
/// malformed number or stray byte as "not valid JSON" without a position, and a user
/// fixing a sighting file needs the column. It never traps: every read checks the end.
struct SightingJSONObjectReader {
    enum Value: Equatable {
        case string(String)
        /// The number's text exactly as written (validated against the JSON grammar).
        case number(String)
        case bool(Bool)
        case null
        /// An array or object, skipped.
        case nested
    }

    struct Failure: Error, Equatable {
        /// 1-based column (in bytes) where the problem is.
        var column: Int
        var reason: String
    }

    /// Nesting deeper than this is refused rather than followed: a line of 100,000 `[`
    /// must not cost a deep recursion.
    static let maximumDepth = 32

    private let bytes: [UInt8]
    private var position = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The members of the object in `line`, in order. Duplicate keys are an error: which
    /// one counts is ambiguous.
    static func members(of line: [UInt8]) throws(Failure) -> [(key: String, value: Value)] {
        var reader = SightingJSONObjectReader(line)
        reader.skipWhitespace()
        guard reader.peek() == UInt8(ascii: "{") else {
            throw reader.failure("expected a JSON object starting with '{'")
        }
        let members = try reader.readObjectMembers()
        reader.skipWhitespace()
        guard reader.position == reader.bytes.count else {
            throw reader.failure("unexpected text after the end of the object")
        }
        return members
    }

    // MARK: Structure

    private mutating func readObjectMembers() throws(Failure) -> [(key: String, value: Value)] {
        position += 1  // {
        var members: [(key: String, value: Value)] = []
        var seen = Set<String>()
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            return members
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a field name in double quotes") }
            let keyColumn = position + 1
            let key = try readString()
            guard seen.insert(key).inserted else {
                throw Failure(column: keyColumn, reason: "field \"\(key)\" appears twice")
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':' after the field name \"\(key)\"") }
            position += 1
            skipWhitespace()
            members.append((key, try readValue(depth: 1)))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                return members
            default:
                throw failure("expected ',' or '}' after the value of \"\(key)\"")
            }
        }
    }

    private mutating func readValue(depth: Int) throws(Failure) -> Value {
        guard let byte = peek() else { throw failure("the line ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try readNumber())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            try skipNested(depth: depth)
            return .nested
        default:
            throw failure("unexpected character \(Self.describe(byte)) where a value was expected")
        }
    }

    /// Checks and skips an array or object.
    private mutating func skipNested(depth: Int) throws(Failure) {
        guard depth <= Self.maximumDepth else { throw failure("values nested more than \(Self.maximumDepth) deep") }
        let isObject = peek() == UInt8(ascii: "{")
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        position += 1
        skipWhitespace()
        if peek() == close {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            if isObject {
                guard peek() == UInt8(ascii: "\"") else { throw failure("expected a field name in double quotes") }
                _ = try readString()
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { throw failure("expected ':' after a field name") }
                position += 1
                skipWhitespace()
            }
            _ = try readValue(depth: depth + 1)
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                position += 1
            } else if peek() == close {
                position += 1
                return
            } else {
                throw failure("expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
        }
    }

    // MARK: Scalars

    private mutating func expectLiteral(_ literal: String) throws(Failure) {
        let expected = Array(literal.utf8)
        guard bytes.count - position >= expected.count,
              bytes[position..<(position + expected.count)].elementsEqual(expected)
        else { throw failure("expected \(literal)") }
        position += expected.count
    }

    /// A number per RFC 8259 section 6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func readNumber() throws(Failure) -> String {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw failure("a number needs a digit here") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), Self.isDigit(next) { throw failure("numbers must not have leading zeros") }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let digit = peek(), Self.isDigit(digit) else { throw failure("a digit must follow the decimal point") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), Self.isDigit(digit) else { throw failure("a digit must follow the exponent") }
            skipDigits()
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func readString() throws(Failure) -> String {
        position += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = position
        let source = bytes
        // Unescaped runs are copied whole; invalid UTF-8 in them becomes U+FFFD.
        func flushRun(upTo end: Int) {
            scalars.append(contentsOf: String(decoding: source[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\""):
                flushRun(upTo: position)
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flushRun(upTo: position)
                position += 1
                scalars.append(try readEscape())
                runStart = position
            case 0x00..<0x20:
                throw failure("control character \(Self.describe(byte)) inside a string; write it as an escape")
            default:
                position += 1
            }
        }
        throw failure("the string is not closed before the end of the line")
    }

    private mutating func readEscape() throws(Failure) -> Unicode.Scalar {
        guard let byte = peek() else { throw failure("the line ends inside an escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try readHexUnit()
            // A high surrogate must be followed by \u and a low one (RFC 8259 section 7).
            if (0xD800...0xDBFF).contains(unit) {
                guard peek() == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw failure("a high surrogate \\u escape must be followed by a low surrogate")
                }
                position += 2
                let low = try readHexUnit()
                guard (0xDC00...0xDFFF).contains(low),
                      let scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                else { throw failure("invalid surrogate pair in a \\u escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(UInt32(unit)) else {
                throw failure("a lone low surrogate \\u escape is not a character")
            }
            return scalar
        default:
            position -= 1
            throw failure("unknown escape \\\(Character(Unicode.Scalar(byte)))")
        }
    }

    private mutating func readHexUnit() throws(Failure) -> UInt16 {
        guard bytes.count - position >= 4 else { throw failure("a \\u escape needs four hexadecimal digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    // MARK: Bytes

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            position += 1
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { position += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private func failure(_ reason: String) -> Failure {
        Failure(column: position + 1, reason: reason)
    }

    /// `'x'` for printable ASCII, `byte 0x07` otherwise.
    private static func describe(_ byte: UInt8) -> String {
        if (0x21..<0x7F).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (byte < 0x10 ? "0" : "") + hex
    }
}
