import LECentral
import Testing
import YAMLDocument

@testable import BeaconProfiles

/// Reading profile files: the complete test table, and every kind of mistake reported at
/// its line and column with what to do.
@Suite("declarative profile files")
struct ProfileDefinitionReaderTests {
    static func problems(_ fixture: ProfileFixture, file: String = "table.yaml") -> [YAMLProblem] {
        switch ProfileDefinitionReader.read(fixture.bytes, file: file) {
        case .success: []
        case .failure(let error): error.problems.problems
        }
    }

    static func keys(_ problems: [YAMLProblem]) -> [ProfileFixture.Expectation] {
        problems.map { ProfileFixture.Expectation(line: $0.line, column: $0.column, code: $0.code) }.sorted()
    }

    @Test("the test table reads into every encoding the format has")
    func testTable() throws {
        let fixture = try ProfileFixture.resource("test-table.yaml")
        let definition = try ProfileDefinitionReader.read(fixture.bytes, file: "test-table.yaml").get()
        #expect(definition.name == "test-table")
        #expect(definition.service == AttributeUUID(0xFFF0))
        #expect(definition.values[.setting(.uuid)] == CharacteristicSpec(service: AttributeUUID(0xFFF0), characteristic: AttributeUUID(0xFFF1), encoding: .uuid))
        #expect(definition.values[.setting(.major)]?.encoding == .integer(IntegerLayout(width: 2, signed: false, byteOrder: .big)))
        #expect(definition.values[.setting(.minor)]?.encoding == .integer(IntegerLayout(width: 2, signed: false, byteOrder: .little)))
        #expect(definition.values[.setting(.measuredPower)]?.encoding == .integer(IntegerLayout(width: 1, signed: true)))
        #expect(definition.values[.setting(.advertisingInterval)]?.encoding == .interval(IntegerLayout(width: 2, signed: false, byteOrder: .little), unitMicroseconds: 625))
        #expect(definition.values[.setting(.txPower)]?.encoding == .levels(IntegerLayout(width: 1, signed: false), levels: [-30, -20, -16, -12, -8, -4, 0, 4]))
        #expect(definition.values[.readOnly(.model)] == CharacteristicSpec(service: AttributeUUID(0x180A), characteristic: AttributeUUID(0x2A24), encoding: .ascii(maxLength: 20)))
        #expect(definition.values[.readOnly(.battery)]?.service == AttributeUUID(0x180F))
        #expect(
            definition.password
                == PasswordSpec(
                    characteristic: AttributeUUID(0xFFF7), form: .ascii(length: 6), refusal: .readBack, state: AttributeUUID(0xFFF9), acceptedState: 1,
                    newPassword: AttributeUUID(0xFFF7)))
        #expect(definition.commit == CommitSpec(characteristic: AttributeUUID(0xFFF8), value: [0x01]))
        #expect(definition.recognition == RecognitionSpec(advertisedService: AttributeUUID(0xFFF0), namePrefix: "TEST"))
    }

    @Test("a table with one of almost everything wrong: each problem at its marker, and nothing else")
    func brokenTable() throws {
        let fixture = try ProfileFixture.resource("broken-table.yaml")
        #expect(Self.keys(Self.problems(fixture)) == fixture.expectations)
    }

    @Test("messages say where (file:line:col), what and what to do")
    func wording() throws {
        let fixture = ProfileFixture(
            """
            version: 1
            profile: acme
            source: doc
            service: FFF0
            values:
              uuid: {characteristic: FFF1, encoding: uuid}
              major: {characteristic: FFF2, encoding: uint16}
              minor: {characteristic: FFF3, encoding: uint16, byte-order: little, lenght: 2}
            """)
        let text = Self.problems(fixture).map(\.description).joined(separator: "\n")
        #expect(text.contains("table.yaml:7:43: error[missing-byte-order]: uint16 needs `byte-order: big` or `little`"))
        #expect(text.contains("if the document does not say, the table is incomplete: do not guess"))
        #expect(text.contains("table.yaml:8:71: error[unknown-key]: unknown key `lenght` in `minor`"))
        #expect(text.contains("hint: did you mean `length`?"))
    }

    @Test(
        "hostile or mistaken files are refused with a problem, never a crash",
        arguments: [
            ("", "empty-document"), ("version: 1\n---\nversion: 1\n", "multiple-documents"), ("a: [", "yaml-syntax"),
            ("- a\n- b\n", "wrong-type"), ("version: &v 1\nprofile: *v\n", "yaml-alias"), ("version: !!int 1\n", "yaml-tag"),
            ("version: 1\nversion: 1\n", "duplicate-key"), ("version: 2\n", "unsupported-version"), ("version: 1\n", "missing-key"),
            ("version: \"1\"\n", "wrong-type"), ("version: 0x1\n", "ambiguous-number"),
            (String(repeating: "[", count: 100), "nesting-too-deep"),
        ])
    func refused(text: String, code: String) {
        let problems = Self.problems(ProfileFixture(text))
        #expect(problems.contains { $0.code == code }, "\(problems)")
    }

    @Test("bytes that are not UTF-8 are refused at their position")
    func notText() {
        guard case .failure(let error) = ProfileDefinitionReader.read([0x61, 0x3A, 0x20, 0xFF, 0xFE], file: "bin.yaml") else {
            Issue.record("bytes that are not UTF-8 were read")
            return
        }
        #expect(error.problems.problems.map(\.code) == ["invalid-encoding"])
        #expect(error.problems.problems.first?.location == "bin.yaml:1:4")
    }

    @Test("a file larger than a profile can be is refused before it is parsed")
    func tooLarge() {
        let bytes = Array(repeating: UInt8(ascii: "#"), count: ProfileDefinitionReader.maximumFileSize + 1)
        guard case .failure(let error) = ProfileDefinitionReader.read(bytes, file: "big.yaml") else {
            Issue.record("a file over the limit was read")
            return
        }
        #expect(error.problems.problems.map(\.code) == ["file-too-large"])
    }

    @Test("a tx-power level table without levels, a password too long for its number, a name of beaconctl's own")
    func moreMistakes() {
        let fixture = ProfileFixture(
            """
            version: 1
            profile: ⟨invalid-name⟩kbeacon
            source: doc
            service: FFF0
            password: {characteristic: FFF7, encoding: uint16, byte-order: big, length: ⟨length-mismatch⟩4, refusal: att-error, ⟨unused-key⟩state: FFF9}
            values:
              uuid: {characteristic: FFF1, encoding: uuid}
              major: {characteristic: FFF2, encoding: uint16, byte-order: big}
              minor: {characteristic: FFF3, encoding: uint16, byte-order: big}
              tx-power: ⟨missing-key⟩{characteristic: FFF6, encoding: uint8}
            """)
        #expect(Self.keys(Self.problems(fixture)) == fixture.expectations)
    }
}

/// Inputs the fuzz target (Fuzz/ProfileFileFuzz) found.
@Suite("declarative profile files: fuzz findings")
struct ProfileFileFuzzFindingsTests {
    @Test("lone carriage returns end lines, as libyaml counts them: a problem's line is where the key is")
    func carriageReturns() {
        let text = "version: 1\rprofile: a\r\nsource: s\rservice: FFF0\rchength: 1\r"
        guard case .failure(let error) = ProfileDefinitionReader.read(Array(text.utf8), file: "cr.yaml") else {
            Issue.record("read")
            return
        }
        #expect(error.problems.problems.contains { $0.code == "unknown-key" && $0.line == 5 && $0.column == 1 })
    }
}
