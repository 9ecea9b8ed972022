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
/// encoder sorts them. A constant key (`StaticString`) is written as it is: it must be a
/// plain name, nothing in it to escape. Values that JSON cannot carry (infinity, NaN) are the caller's to
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

    mutating func beginObject() { open("{\n") }
    mutating func endObject() { close("}") }
    mutating func beginArray() { open("[\n") }
    mutating func endArray() { close("]") }

    /// The line break that ends a document written to a file or a terminal.
    mutating func endDocument() { sink.write("\n" as StaticString) }

    /// Starts a member of the open object: its value comes next.
    mutating func key(named key: String) {
        startElement()
        writeQuoted(key)
        sink.write(" : " as StaticString)
    }

    mutating func key(_ key: StaticString) {
        startElement()
        sink.write("\"" as StaticString)
        sink.write(key)
        sink.write("\" : " as StaticString)
    }

    /// Starts an element of the open array: its value comes next.
    mutating func element() {
        startElement()
    }

    mutating func value(_ text: String) { writeQuoted(text) }
    mutating func value(_ number: Int) { sink.write(String(number)) }
    mutating func value(_ number: Double) { sink.write(Self.number(number)) }
    mutating func value(_ flag: Bool) { sink.write(flag ? "true" as StaticString : "false") }

    /// A member whose value is a string, an integer, a number or a flag; left out when `nil`
    /// (as the encoder leaves out an absent optional).
    mutating func member(_ name: StaticString, _ text: String?) {
        guard let text else { return }
        key(name)
        value(text)
    }

    mutating func member(_ name: StaticString, _ number: Int?) {
        guard let number else { return }
        key(name)
        value(number)
    }

    mutating func member(_ name: StaticString, _ number: Double?) {
        guard let number else { return }
        key(name)
        value(number)
    }

    mutating func member(_ name: StaticString, _ flag: Bool) {
        key(name)
        value(flag)
    }

    /// An array of strings or integers, each element on its own line.
    mutating func member(_ name: StaticString, strings: [String]) {
        key(name)
        beginArray()
        for text in strings {
            element()
            value(text)
        }
        endArray()
    }

    mutating func member(_ name: StaticString, integers: [Int]) {
        key(name)
        beginArray()
        for number in integers {
            element()
            value(number)
        }
        endArray()
    }

    /// `bracket`: the opening bracket and its line break.
    private mutating func open(_ bracket: StaticString) {
        sink.write(bracket)
        outer.append(isEmpty)
        isEmpty = true
        depth += 1
    }

    private mutating func close(_ bracket: StaticString) {
        depth -= 1
        sink.write("\n" as StaticString)
        writeIndent()
        sink.write(bracket)
        isEmpty = outer.popLast() ?? true
    }

    private mutating func startElement() {
        if !isEmpty { sink.write(",\n" as StaticString) }
        writeIndent()
        isEmpty = false
    }

    /// Two spaces a level (a report nests seven deep at most; deeper is written a level at a time).
    private func writeIndent() {
        let spaces: StaticString = "                "
        var left = depth
        while left > 0 {
            let levels = min(left, spaces.utf8CodeUnitCount / 2)
            sink.write(spaces, prefix: 2 * levels)
            left -= levels
        }
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
            sink.write("\"" as StaticString)
            sink.write(text)
            sink.write("\"" as StaticString)
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
