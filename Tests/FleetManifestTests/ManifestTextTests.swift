import Testing

@testable import FleetManifest
import YAMLDocument

@Suite("A manifest's text in lines, as libyaml counts them")
struct ManifestTextTests {
    static func text(_ string: String) -> ManifestText { ManifestText(Array(string.utf8)) }

    @Test("\\n, \\r\\n and a lone \\r each end a line; the first one is the file's newline")
    func lineBreaks() {
        let mixed = Self.text("a: 1\r\nb: 2\rc: 3\nd: 4")
        #expect(mixed.lines.count == 4)
        #expect((0..<4).map { String(decoding: mixed.content($0), as: UTF8.self) } == ["a: 1", "b: 2", "c: 3", "d: 4"])
        #expect(mixed.newline == "\r\n")
        #expect(mixed.lacksFinalNewline)
        #expect(Self.text("a: 1\rb: 2\r").newline == "\r")
        #expect(!Self.text("a: 1\rb: 2\r").lacksFinalNewline)
        #expect(Self.text("a: 1").newline == "\n")
        #expect(Self.text("").lines.isEmpty)
    }

    @Test("line 1 starts after a byte-order mark, which libyaml does not count as a character")
    func byteOrderMark() {
        let text = Self.text("\u{FEFF}fleet: f\nvenues:\n")
        #expect(text.start == 3)
        #expect(text.lines.first == 3..<12)
        #expect(text.offset(of: Mark(line: 1, column: 1)) == 3)
        #expect(text.offset(of: Mark(line: 1, column: 8)) == 10)
        #expect(text.keyLine("fleet", column: 0, from: 0, through: 1) == 0)
    }

    @Test("marks count characters; past the text there is no offset")
    func marks() {
        let text = Self.text("name: é, x\n")
        // `é` takes two bytes and one column: `x` is column 10 at byte 10.
        #expect(text.offset(of: Mark(line: 1, column: 10)) == 10)
        #expect(text.characterCount(from: 0, to: 10) == 9)
        // The empty line after the last line break, where libyaml puts the end of the stream.
        #expect(text.offset(of: Mark(line: 2, column: 1)) == 12)
        #expect(text.offset(of: Mark(line: 3, column: 1)) == nil)
        #expect(text.offset(of: Mark(line: 1, column: 0)) == nil)
        #expect(Self.text("a").offset(of: Mark(line: 2, column: 1)) == nil)
        #expect(text.start(ofLineContaining: 5) == 0)
        #expect(text.nextLineBreak(from: 2) == 11..<12)
    }
}
