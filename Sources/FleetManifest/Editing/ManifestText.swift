import YAMLDocument

/// A manifest's bytes split into lines, for edits that leave every other byte alone: the
/// one home of line arithmetic for every writer that edits a manifest in place (a value
/// set from libyaml's marks, `BeaconMappingLayout`; entries appended after the loader's
/// source locations, the allocation planner).
///
/// Lines are counted as libyaml counts its marks: `\n`, `\r\n` and a lone `\r` each end a
/// line, and line 1 starts after a UTF-8 byte-order mark, which libyaml reads as the
/// encoding and not as a character. A mark's column counts characters (UTF-8 lead bytes);
/// the line helpers below (`content`, `dashColumn`, `keyLine`, …) index bytes, which is the
/// same for what they look at: block-style keys after spaces.
package struct ManifestText {
    package let bytes: [UInt8]
    /// Byte range of each line, its line break included.
    package let lines: [Range<Int>]
    /// The file's first line break (`\n`, `\r\n` or `\r`); `\n` when it has none.
    package let newline: String
    /// Where the text starts: after a UTF-8 byte-order mark, which is not part of line 1.
    package let start: Int

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var lines: [Range<Int>] = []
        var firstBreak: Range<Int>?
        let start = ByteOrderMark.utf8Length(of: bytes)
        var lineStart = start
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                let breakEnd = byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A ? index + 2 : index + 1
                if firstBreak == nil { firstBreak = index..<breakEnd }
                lines.append(lineStart..<breakEnd)
                lineStart = breakEnd
                index = breakEnd
            } else {
                index += 1
            }
        }
        if lineStart < bytes.count { lines.append(lineStart..<bytes.count) }
        self.lines = lines
        self.start = start
        newline = firstBreak.map { String(decoding: bytes[$0], as: UTF8.self) } ?? "\n"
    }

    // MARK: Lines by number (0-based), for layouts read from indentation

    /// The line's bytes without its line break.
    package func content(_ line: Int) -> ArraySlice<UInt8> {
        var range = lines[line]
        while range.count > 0, bytes[range.upperBound - 1] == 0x0A || bytes[range.upperBound - 1] == 0x0D {
            range = range.lowerBound..<(range.upperBound - 1)
        }
        return bytes[range]
    }

    /// Leading spaces of a line.
    package func indentation(_ line: Int) -> Int {
        content(line).prefix { $0 == UInt8(ascii: " ") }.count
    }

    /// Blank, or nothing but a comment: says nothing about structure.
    package func isBlankOrComment(_ line: Int) -> Bool {
        let rest = content(line).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        return rest.first == nil || rest.first == UInt8(ascii: "#")
    }

    /// The column (0-based) of the `-` that opens the sequence item whose first key is at
    /// `keyColumn` (0-based) on `line`, or `nil` when the item is not written `- key:` in
    /// block style (a flow mapping `- {…}`, or a layout this editor does not follow).
    package func dashColumn(line: Int, keyColumn: Int) -> Int? {
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
    package func lastLine(ofItemAt line: Int, dashColumn: Int) -> Int {
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

    /// The first line of the block of keys at `keyColumn` from `line` through `last` that
    /// starts with `key:` (the key itself at `keyColumn`).
    package func keyLine(_ key: String, column keyColumn: Int, from line: Int, through last: Int) -> Int? {
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
    package func value(afterKeyOn line: Int, keyColumn: Int, key: String) -> String {
        let text = Array(content(line))
        let start = min(text.count, keyColumn + key.utf8.count + 1)
        var value = Array(text[start...])
        if let hash = value.indices.first(where: { index in
            value[index] == UInt8(ascii: "#") && (index == 0 || value[index - 1] == UInt8(ascii: " "))
        }) {
            value = Array(value[..<hash])
        }
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let trimmed = String(decoding: value.drop(while: isSpace).reversed().drop(while: isSpace).reversed(), as: UTF8.self)
        for quote in ["\"", "'"] where trimmed.count >= 2 && trimmed.hasPrefix(quote) && trimmed.hasSuffix(quote) {
            return String(trimmed.dropFirst().dropLast())
        }
        return trimmed
    }

    /// Whether a blank line comes before `line`, above any comment lines that introduce it.
    package func isPrecededByBlankLine(_ line: Int) -> Bool {
        var previous = line - 1
        while previous >= 0 {
            if content(previous).allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return true }
            guard isBlankOrComment(previous) else { return false }
            previous -= 1
        }
        return false
    }

    /// Byte offset just after `line`'s line break (the end of the file for the last line).
    package func offset(after line: Int) -> Int { lines[line].upperBound }

    /// Whether the last line lacks a line break.
    package var lacksFinalNewline: Bool {
        guard let last = lines.last else { return false }
        let byte = bytes[last.upperBound - 1]
        return byte != 0x0A && byte != 0x0D
    }

    // MARK: Offsets of libyaml's marks, for values edited in place

    /// The byte offset of a mark (1-based line, 1-based character column); `nil` outside
    /// the text.
    func offset(of mark: Mark) -> Int? {
        let lineIndex = Int(mark.line) - 1
        guard mark.column >= 1, lineIndex >= 0 else { return nil }
        var offset: Int
        if lineIndex < lines.count {
            offset = lines[lineIndex].lowerBound
        } else {
            // After the last line break libyaml counts one more (empty) line.
            guard lineIndex == lines.count, !lacksFinalNewline else { return nil }
            offset = lines.last?.upperBound ?? start
        }
        var remaining = Int(mark.column) - 1
        while remaining > 0 {
            guard offset < bytes.count else { return nil }
            offset += 1
            while offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            remaining -= 1
        }
        return offset
    }

    /// The byte offset where the line holding `offset` starts.
    func start(ofLineContaining offset: Int) -> Int {
        var low = 0
        var high = lines.count - 1
        guard high >= 0, offset >= lines[0].lowerBound else { return start }
        while low < high {
            let middle = (low + high + 1) / 2
            if lines[middle].lowerBound <= offset { low = middle } else { high = middle - 1 }
        }
        return lines[low].lowerBound
    }

    /// Characters (UTF-8 lead bytes) in `start..<end`.
    func characterCount(from start: Int, to end: Int) -> Int {
        guard start < end, end <= bytes.count else { return 0 }
        return bytes[start..<end].count { $0 & 0xC0 != 0x80 }
    }

    /// The line break ending the line that contains `offset`, or `nil` on a last line
    /// without one.
    func nextLineBreak(from offset: Int) -> Range<Int>? {
        var index = offset
        while index < bytes.count {
            if bytes[index] == 0x0D {
                let isPair = index + 1 < bytes.count && bytes[index + 1] == 0x0A
                return index..<(index + (isPair ? 2 : 1))
            }
            if bytes[index] == 0x0A { return index..<(index + 1) }
            index += 1
        }
        return nil
    }
}
