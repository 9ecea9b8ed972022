import Testing

@testable import FleetManifest

/// Input that is not a manifest, or is built to hurt: each is one clear diagnostic, never a
/// crash or a hang. That the work stays bounded shows in the diagnostics (an alias refused,
/// not expanded; nesting cut at its limit); the time limit catches an expansion that would
/// run away, without making a busy machine's speed a pass condition.
@Suite(.timeLimit(.minutes(1))) struct HostileInputTests {
    /// Loads `bytes` as `fleet.yaml`; the real cost is microseconds.
    private func loadQuickly(
        _ bytes: [UInt8], options: ValidationOptions = .init()
    ) -> ManifestLoadResult {
        ManifestLoader.load(sources: [("fleet.yaml", bytes)], options: options)
    }

    private func codesAndPositions(_ result: ManifestLoadResult) -> [String] {
        result.diagnostics.map { "\($0.location.line):\($0.location.column) \($0.code)" }
    }

    @Test func billionLaughsIsRejectedAtTheFirstAlias() throws {
        // Expanded, this is a billion "lol"s. Aliases are refused, so nothing expands.
        var text = header + "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        let names = Array("abcdefghi")
        for index in 1..<names.count {
            let previous = "*\(names[index - 1])"
            text += "\(names[index]): &\(names[index]) [" + Array(repeating: previous, count: 9).joined(separator: ",") + "]\n"
        }
        let result = loadQuickly(Array(text.utf8))
        // Every key is unknown, so their values (with the aliases) are skipped unexpanded.
        #expect(result.diagnostics.allSatisfy { $0.code == "unknown-field" })

        // Where an alias is read as a value, it is named and refused.
        let aliased = loadQuickly(Array((header + """
            venues:
              - id: v
                major: &m 1
                beacons:
                  - id: b
                    major: *m
                    minor: 1
            """).utf8))
        let alias = try diagnostic("yaml-alias", in: aliased)
        #expect(alias.location.line == 9 && alias.location.column == 16)
        #expect(alias.message == "YAML aliases (`*m`) are not supported in manifests")
        #expect(alias.hint == "put shared values in `defaults:` or on the venue; beacons inherit them")
    }

    @Test func laughsInsideTheSchemaAreRefusedOneByOne() {
        expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons: ⟨yaml-alias⟩*lol
            regions:
              - ⟨yaml-alias⟩*lol
            """))
    }

    @Test func deepNestingStopsAtTheLimit() throws {
        let depth = 10_000
        let text = header + "venues: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
        let result = loadQuickly(Array(text.utf8))
        let found = try diagnostic("nesting-too-deep", in: result)
        // The document mapping is level 1: the 64th `[` is the 65th level.
        #expect(found.location == FleetManifest.SourceLocation(file: "fleet.yaml", line: 4, column: 9 + 63))
        // Before that, the first venue was found to be a list instead of a mapping.
        #expect(codesAndPositions(result) == ["4:10 wrong-type", "4:72 nesting-too-deep"])
    }

    @Test func deepNestingUnderTheLimitIsSkippedWithoutRecursion() {
        // A raised limit lets 5 000 levels through into an unknown field, which is
        // skipped iteratively: no stack to overflow.
        let depth = 5_000
        let text = header + "extra: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
        let result = loadQuickly(Array(text.utf8), options: ValidationOptions(maxDepth: 10_000))
        #expect(codesAndPositions(result) == ["4:1 unknown-field"])
    }

    @Test func nulByte() throws {
        let bytes = Array("version: 1\nfleet: jays\u{0}donuts\n".utf8)
        let result = loadQuickly(bytes)
        let found = try diagnostic("invalid-encoding", in: result)
        #expect(found.location.line == 2 && found.location.column == 12)
        #expect(found.message == "not UTF-8 text: control character 0x00 at byte offset 22 (NUL and other control characters cannot appear in YAML)")
    }

    @Test func invalidUTF8() throws {
        var bytes = Array("version: 1\nfleet: caf".utf8)
        bytes += [0xE9, 0x2D, 0x0A]  // Latin-1 "é-"
        let result = loadQuickly(bytes)
        let found = try diagnostic("invalid-encoding", in: result)
        // libyaml notices at the "-"; the report names the "é" that started the sequence.
        #expect(found.location.line == 2 && found.location.column == 11)
        #expect(found.message == "not UTF-8 text: invalid UTF-8 sequence starting with byte 0xE9 at offset 21")
    }

    @Test func strayContinuationByteAndTruncatedSequence() throws {
        let stray = try diagnostic("invalid-encoding", in: loadQuickly(Array("fleet: a".utf8) + [0x80]))
        #expect(stray.message == "not UTF-8 text: invalid UTF-8 sequence starting with byte 0x80 at offset 8")
        #expect(stray.location.column == 9)
        let truncated = try diagnostic("invalid-encoding", in: loadQuickly(Array("fleet: a".utf8) + [0xE2, 0x82]))
        #expect(truncated.message == "not UTF-8 text: the file ends inside a UTF-8 sequence that starts with byte 0xE2 at offset 8")
    }

    @Test func binaryData() {
        let bytes: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00] + Array(repeating: 0, count: 100)
        let result = loadQuickly(bytes)
        #expect(result.diagnostics.map(\.code) == ["invalid-encoding"])
    }

    @Test func utf16IsNamed() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "version: 1\n".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let found = try diagnostic("invalid-encoding", in: loadQuickly(bytes))
        #expect(found.message == "the file is UTF-16 (little-endian) text; manifests are UTF-8")
    }

    @Test(arguments: ["", "# only a comment\n", "\n\n   \n"])
    func emptyFile(_ text: String) throws {
        let found = try diagnostic("empty-document", in: loadQuickly(Array(text.utf8)))
        #expect(found.location.line == 1 && found.location.column == 1)
    }

    @Test func emptyExplicitDocument() {
        expectDiagnostics(MarkedFixture("---\n⟨empty-document⟩...\n"))
    }

    @Test func twoDocuments() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues: []
            ⟨multiple-documents⟩---
            version: 1
            fleet: second
            """))
        #expect(try diagnostic("multiple-documents", in: result).hint
            == "move each document into a file of its own in the fleet folder")
    }

    @Test func fileOverTheSizeLimitIsNotRead() throws {
        let text = header + String(repeating: "# padding\n", count: 100)
        let result = loadQuickly(Array(text.utf8), options: ValidationOptions(maxFileBytes: 256))
        let found = try diagnostic("file-too-large", in: result)
        #expect(found.message == "the file is \(text.utf8.count) bytes, over the limit of 256 bytes; it was not read")
        #expect(result.fleet.files == ["fleet.yaml"])
    }

    @Test func syntaxErrorsPointAtTheProblemAndItsContext() throws {
        let fixture = MarkedFixture(header + """
            regions: ⟨#open⟩[{id: a}, {id: b}
            ⟨yaml-syntax⟩
            """)
        let result = expectDiagnostics(fixture)
        let found = try diagnostic("yaml-syntax", in: result)
        #expect(found.message == "YAML syntax error: did not find expected ',' or ']'")
        #expect(found.notes == [DiagnosticNote(location: fixture.location("open"), message: "while parsing a flow sequence that starts here")])
    }

    @Test func aColonInAPlainValue() throws {
        // A classic: `name: Main: St` needs quotes.
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                name: Main⟨yaml-syntax⟩: St
            """))
        #expect(try diagnostic("yaml-syntax", in: result).message
            == "YAML syntax error: mapping values are not allowed in this context")
    }

    @Test func syntaxErrorAfterValidContentKeepsEarlierFindings() {
        // Problems found before the syntax error are still reported; the file contributes
        // no beacons (nothing after the error can be trusted).
        let result = expectDiagnostics(MarkedFixture(header + """
            ⟨unknown-field⟩colour: red
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 1
                    name: "unterminated⟨yaml-syntax⟩
            """))
        #expect(result.fleet.beacons.isEmpty)
    }

    @Test func tagsAreRefused() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: ⟨yaml-tag⟩!!int 1
                beacons: []
            """))
        #expect(try diagnostic("yaml-tag", in: result).message == "explicit YAML tags (`!!int`) are not used in manifests")
    }

    @Test func tooManyProblemsAreCountedNotKept() throws {
        let text = header + (0..<50).map { "unknown\($0): 1\n" }.joined()
        let result = loadQuickly(Array(text.utf8), options: ValidationOptions(maxDiagnostics: 10))
        #expect(result.diagnostics.count == 11)
        let last = try #require(result.diagnostics.last)
        #expect(last.code == "too-many-diagnostics")
        #expect(last.message == "40 more problems found but not reported; the report stops at 10")
    }

    @Test func aHugeKeyIsShownShortened() throws {
        // Plain keys stop at 1024 characters in libyaml; an explicit `?` key has no limit.
        let key = String(repeating: "k", count: 200_000)
        let found = try diagnostic("unknown-field", in: loadQuickly(Array((header + "? " + key + "\n: 1\n").utf8)))
        #expect(found.message == "unknown field `\(String(repeating: "k", count: 40))…` in the top level of a manifest")
    }

    @Test func problemsPastTheLimitCostLittle() {
        // 50 000 unknown keys, 10 reported: the other messages and hints are never built.
        let text = header + (0..<50_000).map { "unknown_\($0): 1\n" }.joined()
        let result = loadQuickly(Array(text.utf8), options: ValidationOptions(maxDiagnostics: 10))
        #expect(result.diagnostics.last?.message == "49990 more problems found but not reported; the report stops at 10")
    }

    @Test func complexKeysAreRefused() {
        expectDiagnostics(MarkedFixture(header + """
            ? ⟨wrong-type⟩[a, b]
            : value
            """))
    }

    @Test func randomBytesNeverCrash() {
        // Deterministic pseudo-random inputs built from manifest fragments and noise.
        var generator = SplitMix64(seed: 0x5EED)
        let fragments = ["version: 1\n", "fleet: f\n", "venues:\n", "  - id: v\n", "    major: 1\n",
                         "    beacons:\n", "      - id: b\n", "        minor: 1\n", "[", "]", "{", "}", ":", "- ",
                         "&a ", "*a ", "!!str ", "\"", "'", "#", "\t", "\u{0}", "é", "? ", "---\n", "...\n", "|\n", ">\n"]
        for _ in 0..<300 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(generator.next() % 40) {
                if generator.next() % 5 == 0 {
                    bytes.append(UInt8(truncatingIfNeeded: generator.next()))
                } else {
                    bytes += Array(fragments[Int(generator.next() % UInt64(fragments.count))].utf8)
                }
            }
            let result = ManifestLoader.load(sources: [("fuzz.yaml", bytes)])
            #expect(result.diagnostics.allSatisfy { !$0.message.isEmpty })
        }
    }
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
