import FleetManifest

/// A manifest's bytes split into lines, for edits that leave every other byte alone.
/// Only block-style YAML is understood here; the loader's source locations say where each
/// venue and beacon starts, and indentation says where it ends.
struct ManifestText {
    let bytes: [UInt8]
    /// Byte range of each line, its terminator included.
    let lines: [Range<Int>]
    /// `"\r\n"` when the file's first line ends that way, else `"\n"`.
    let newline: String

    /// Where the text starts: after a UTF-8 byte-order mark, which is not part of line 1
    /// (the loader's columns do not count it).
    let start: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var lines: [Range<Int>] = []
        // The mark's bytes (EF BB BF) hold no line break: the first line starts after it.
        var start = ByteOrderMark.utf8Length(of: bytes)
        self.start = start
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            lines.append(start..<(index + 1))
            start = index + 1
        }
        if start < bytes.count { lines.append(start..<bytes.count) }
        self.lines = lines
        if let first = lines.first, first.count >= 2, bytes[first.upperBound - 1] == UInt8(ascii: "\n"),
            bytes[first.upperBound - 2] == UInt8(ascii: "\r")
        {
            newline = "\r\n"
        } else {
            newline = "\n"
        }
    }

    /// The line's bytes without its terminator.
    func content(_ line: Int) -> ArraySlice<UInt8> {
        var range = lines[line]
        while range.count > 0, bytes[range.upperBound - 1] == UInt8(ascii: "\n") || bytes[range.upperBound - 1] == UInt8(ascii: "\r") {
            range = range.lowerBound..<(range.upperBound - 1)
        }
        return bytes[range]
    }

    /// Leading spaces of a line.
    func indentation(_ line: Int) -> Int {
        content(line).prefix { $0 == UInt8(ascii: " ") }.count
    }

    /// Blank, or nothing but a comment: says nothing about structure.
    func isBlankOrComment(_ line: Int) -> Bool {
        let rest = content(line).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        return rest.first == nil || rest.first == UInt8(ascii: "#")
    }

    /// The column (0-based) of the `-` that opens the sequence item whose first key is at
    /// `keyColumn` (0-based) on `line`, or `nil` when the item is not written `- key:` in
    /// block style (a flow mapping `- {…}`, or a layout this editor does not follow).
    func dashColumn(line: Int, keyColumn: Int) -> Int? {
        let text = Array(content(line))
        guard keyColumn < text.count, text[keyColumn] != UInt8(ascii: "{") else { return nil }
        var column = keyColumn - 1
        while column >= 0, text[column] == UInt8(ascii: " ") { column -= 1 }
        guard column >= 0, text[column] == UInt8(ascii: "-"), column < keyColumn - 1 else { return nil }
        // Only spaces may come before the dash: `- - id:` nesting is not a manifest layout.
        guard text[0..<column].allSatisfy({ $0 == UInt8(ascii: " ") }) else { return nil }
        return column
    }

    /// The last line (0-based) holding content of the block that starts on `line` with a
    /// `-` at `dashColumn`: later lines belong to it while they are indented deeper.
    /// Blank lines and comments after its last content stay outside, with what follows.
    func lastLine(ofItemAt line: Int, dashColumn: Int) -> Int {
        var last = line
        var next = line + 1
        while next < lines.count {
            if !isBlankOrComment(next) {
                if indentation(next) <= dashColumn { break }
                last = next
            }
            next += 1
        }
        return last
    }

    /// Lines of the block of keys at `keyColumn` from `line` through `last` that start
    /// with `key:` (the key itself at `keyColumn`).
    func keyLine(_ key: String, column keyColumn: Int, from line: Int, through last: Int) -> Int? {
        let pattern = Array(key.utf8) + [UInt8(ascii: ":")]
        for candidate in line...last {
            let text = Array(content(candidate))
            guard text.count >= keyColumn + pattern.count,
                Array(text[keyColumn..<(keyColumn + pattern.count)]) == pattern
            else { continue }
            // `- key:` on the item's first line, or only spaces before the key.
            let before = text[0..<keyColumn]
            if before.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "-") }) { return candidate }
        }
        return nil
    }

    /// The value after `key:` on `line`, without a trailing comment, trimmed, and without
    /// the quotes of a quoted scalar (escapes are not interpreted: numbers and UUIDs need none).
    func value(afterKeyOn line: Int, keyColumn: Int, key: String) -> String {
        let text = Array(content(line))
        let start = min(text.count, keyColumn + key.utf8.count + 1)
        var value = Array(text[start...])
        if let hash = value.indices.first(where: { index in
            value[index] == UInt8(ascii: "#") && (index == 0 || value[index - 1] == UInt8(ascii: " "))
        }) {
            value = Array(value[..<hash])
        }
        let trimmed = String(decoding: value, as: UTF8.self).trimmingSpaces
        for quote in ["\"", "'"] where trimmed.count >= 2 && trimmed.hasPrefix(quote) && trimmed.hasSuffix(quote) {
            return String(trimmed.dropFirst().dropLast())
        }
        return trimmed
    }

    /// Whether a blank line comes before `line`, above any comment lines that introduce it.
    func isPrecededByBlankLine(_ line: Int) -> Bool {
        var previous = line - 1
        while previous >= 0 {
            if content(previous).allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return true }
            guard isBlankOrComment(previous) else { return false }
            previous -= 1
        }
        return false
    }

    /// Byte offset just after `line`'s terminator (the end of the file for the last line).
    func offset(after line: Int) -> Int { lines[line].upperBound }

    /// Whether the last line lacks a terminator.
    var lacksFinalNewline: Bool {
        guard let last = lines.last else { return false }
        return bytes[last.upperBound - 1] != UInt8(ascii: "\n")
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
