/// A JSON document written piece by piece, byte for byte as `JSONOutput.document` writes a
/// whole value (Foundation's JSONEncoder with `.prettyPrinted`, `.sortedKeys` and
/// `.withoutEscapingSlashes`), so that a report can be streamed without changing a byte:
/// - two spaces an indentation level, `"key" : value`, elements separated by `,` and a
///   line break, an empty container written as its opening bracket, an empty line and its
///   closing bracket;
/// - strings escaped as the encoder escapes them: `"` and `\`, `\b \f \n \r \t`, other
///   control characters as `\u00XX` in lower-case hex; `/` and every other character,
///   non-ASCII included, as they are;
/// - a `Double` as its Swift description without a trailing `.0` (`0`, `0.505`, `1e-05`),
///   an integer in decimal.
/// Keys are written in the order given: callers give them sorted by their UTF-8 bytes, as the
/// encoder sorts them. Values that JSON cannot carry (infinity, NaN) are the caller's to
/// leave out.
struct StreamingJSONWriter {
    private let sink: ReportSink
    private var depth = 0
    /// Whether the innermost open container has no element yet.
    private var isEmpty = true
    /// `isEmpty` of each container around the innermost.
    private var outer: [Bool] = []

    init(_ sink: ReportSink) {
        self.sink = sink
    }

    mutating func beginObject() { open("{") }
    mutating func endObject() { close("}") }
    mutating func beginArray() { open("[") }
    mutating func endArray() { close("]") }

    /// The line break that ends a document written to a file or a terminal.
    mutating func endDocument() { sink.write("\n") }

    /// Starts a member of the open object: its value comes next.
    mutating func key(_ key: String) {
        startElement()
        writeQuoted(key)
        sink.write(" : ")
    }

    /// Starts an element of the open array: its value comes next.
    mutating func element() {
        startElement()
    }

    mutating func value(_ text: String) { writeQuoted(text) }
    mutating func value(_ number: Int) { sink.write(String(number)) }
    mutating func value(_ number: Double) { sink.write(Self.number(number)) }
    mutating func value(_ flag: Bool) { sink.write(flag ? "true" : "false") }

    /// A member whose value is a string, an integer, a number or a flag; left out when `nil`
    /// (as the encoder leaves out an absent optional).
    mutating func member(_ name: String, _ text: String?) {
        guard let text else { return }
        key(name)
        value(text)
    }

    mutating func member(_ name: String, _ number: Int?) {
        guard let number else { return }
        key(name)
        value(number)
    }

    mutating func member(_ name: String, _ number: Double?) {
        guard let number else { return }
        key(name)
        value(number)
    }

    mutating func member(_ name: String, _ flag: Bool) {
        key(name)
        value(flag)
    }

    /// An array of strings or integers, each element on its own line.
    mutating func member(_ name: String, strings: [String]) {
        key(name)
        beginArray()
        for text in strings {
            element()
            value(text)
        }
        endArray()
    }

    mutating func member(_ name: String, integers: [Int]) {
        key(name)
        beginArray()
        for number in integers {
            element()
            value(number)
        }
        endArray()
    }

    private mutating func open(_ bracket: String) {
        sink.write(bracket)
        sink.write("\n")
        outer.append(isEmpty)
        isEmpty = true
        depth += 1
    }

    private mutating func close(_ bracket: String) {
        depth -= 1
        sink.write("\n")
        sink.write(Self.indent(depth))
        sink.write(bracket)
        isEmpty = outer.popLast() ?? true
    }

    private mutating func startElement() {
        if !isEmpty { sink.write(",\n") }
        sink.write(Self.indent(depth))
        isEmpty = false
    }

    private static let indents = (0..<16).map { String(repeating: "  ", count: $0) }

    private static func indent(_ depth: Int) -> String {
        depth < indents.count ? indents[depth] : String(repeating: "  ", count: max(0, depth))
    }

    /// The Swift description, less a trailing `.0`: what the encoder writes for a `Double`.
    static func number(_ value: Double) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// Writes `text` quoted, in pieces: most strings need no escape, and no copy then.
    private func writeQuoted(_ text: String) {
        if Self.needsEscape(text) {
            sink.write(Self.quoted(text))
        } else {
            sink.write("\"")
            sink.write(text)
            sink.write("\"")
        }
    }

    private static func needsEscape(_ text: String) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        }
        return found ?? text.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    /// `text` as a JSON string, quotes included, escaped as the encoder escapes it.
    static func quoted(_ text: String) -> String {
        guard needsEscape(text) else { return "\"" + text + "\"" }
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(text.utf8.count + 8)
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
            case 0x08: bytes += Array(#"\b"#.utf8)
            case 0x0C: bytes += Array(#"\f"#.utf8)
            case 0x0A: bytes += Array(#"\n"#.utf8)
            case 0x0D: bytes += Array(#"\r"#.utf8)
            case 0x09: bytes += Array(#"\t"#.utf8)
            case 0x00..<0x20: bytes += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }
}
