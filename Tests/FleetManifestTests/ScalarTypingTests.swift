import BeaconCore
import Testing

@testable import FleetManifest
import YAMLDocument

/// YAML 1.1 and 1.2 disagree on many plain scalars; the manifest decides types from the
/// text and style itself and names each pitfall instead of coercing it.
@Suite struct ScalarTypingTests {
    /// A one-beacon manifest whose `minor` is `value` (marked where the value starts).
    private func minorFixture(_ value: String, code: String) -> MarkedFixture {
        MarkedFixture(header + """
            venues:
              - id: cupertino
                major: 1
                beacons:
                  - id: register
                    minor: ⟨\(code)⟩\(value)
            """)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var value: String
        var code: String
        var message: String
        var hint: String?
        var testDescription: String { value }
    }

    static let minorCases: [Case] = [
        Case(value: "010", code: "ambiguous-number",
             message: "`minor` is written `010`: with a leading zero YAML 1.1 reads octal 8 and YAML 1.2 reads decimal 10",
             hint: "write 10 (or 8 if octal was meant)"),
        Case(value: "09", code: "ambiguous-number",
             message: "`minor` is written `09`: with a leading zero YAML 1.1 reads text and YAML 1.2 reads decimal 9",
             hint: "write 9"),
        Case(value: "0x1F", code: "ambiguous-number",
             message: "`minor` is written in hexadecimal (`0x1F`); manifests take decimal numbers, which every YAML reader agrees on",
             hint: "write 31"),
        Case(value: "0o17", code: "ambiguous-number",
             message: "`minor` is written in octal (`0o17`); manifests take decimal numbers, which every YAML reader agrees on",
             hint: "write 15"),
        Case(value: "1_000", code: "ambiguous-number",
             message: "`minor` is written with digit separators (`1_000`): a number to YAML 1.1 readers, text to YAML 1.2 readers",
             hint: "write 1000"),
        Case(value: "+5", code: "ambiguous-number",
             message: "`minor` is written with a plus sign (`+5`), which YAML's JSON schema reads as text",
             hint: "write 5"),
        Case(value: "1e3", code: "ambiguous-number",
             message: "`minor` is written with an exponent (`1e3`): a floating-point number to YAML 1.2 readers, text to YAML 1.1 readers; it must be an integer 0…65535",
             hint: "write 1000"),
        Case(value: "\"5\"", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not the quoted text \"5\"",
             hint: "remove the quotes: quoted values are always text"),
        Case(value: "'abc'", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not the quoted text \"abc\"", hint: nil),
        Case(value: "5.5", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not the fractional number `5.5`", hint: nil),
        Case(value: "5.0", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not the fractional number `5.0`", hint: "write 5"),
        Case(value: "-1", code: "value-out-of-range",
             message: "`minor` is -1; it must be 0…65535",
             hint: "major and minor are unsigned 16-bit numbers in the iBeacon frame"),
        Case(value: "65536", code: "value-out-of-range",
             message: "`minor` is 65536; it must be 0…65535",
             hint: "major and minor are unsigned 16-bit numbers in the iBeacon frame"),
        Case(value: "99999999999999999999999", code: "value-out-of-range",
             message: "`minor` is 99999999999999999999999; it must be 0…65535",
             hint: "major and minor are unsigned 16-bit numbers in the iBeacon frame"),
        Case(value: "yes", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not `yes` (a boolean to YAML 1.1 readers, text to YAML 1.2 readers)",
             hint: nil),
        Case(value: "true", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not the boolean `true`", hint: nil),
        Case(value: "two", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not the text `two`", hint: nil),
        Case(value: "~", code: "empty-value",
             message: "`minor` has no value; it must be an integer 0…65535", hint: nil),
        Case(value: ".inf", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not `.inf`", hint: nil),
        Case(value: "|\n                      5", code: "wrong-type",
             message: "`minor` must be an integer 0…65535, not a block of text", hint: nil),
    ]

    @Test(arguments: minorCases)
    func minorPitfall(_ testCase: Case) throws {
        let result = expectDiagnostics(minorFixture(testCase.value, code: testCase.code))
        let found = try diagnostic(testCase.code, in: result)
        #expect(found.message == testCase.message)
        #expect(found.hint == testCase.hint)
        #expect(result.fleet.beacons.isEmpty, "a beacon with an invalid minor is left out")
    }

    @Test(arguments: ["0", "7", "65535"])
    func plainDecimalIntegersAreAccepted(_ value: String) throws {
        let result = expectDiagnostics(minorFixture(value, code: ""))
        let beacon = try #require(result.fleet.beacons.first)
        #expect(beacon.identity.minor == UInt16(value))
    }

    @Test(arguments: [("yes", true), ("No", false), ("on", true), ("OFF", false), ("y", true), ("n", false)])
    func yaml11BooleansAreNamed(_ value: String, meant: Bool) throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            regions:
              - id: any-jays
                notify_on_entry: ⟨ambiguous-boolean⟩\(value)
            """))
        let found = try diagnostic("ambiguous-boolean", in: result)
        #expect(found.message == "`notify_on_entry` is `\(value)`: a boolean to YAML 1.1 readers but text to YAML 1.2 readers")
        #expect(found.hint == "write `notify_on_entry: \(meant)`")
    }

    @Test func booleansAcceptTheYAML12Spellings() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 1
            regions:
              - id: r1
                notify_on_entry: False
                notify_on_exit: TRUE
                notify_state_on_start: true
              - id: r2
                notify_on_entry: ⟨wrong-type⟩"true"
                notify_on_exit: ⟨wrong-type⟩1
            """))
        let region = try #require(result.fleet.regions.first)
        #expect(!region.notifyOnEntry && region.notifyOnExit && region.notifyStateOnStart)
    }

    @Test func textFieldsTakePlainScalarsAsWritten() throws {
        // YAML 1.1 would turn these into 8, true and 5030 (base 60); names stay names.
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: 010
                    name: yes
                    zone: 1:23:50
                    minor: 1
            """))
        let beacon = try #require(result.fleet.beacons.first)
        #expect(beacon.id == "010" && beacon.name == "yes" && beacon.zone == "1:23:50")
    }

    @Test func numbersOfMetres() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                plan: {width: 2.4e1, height: 16}
                beacons:
                  - id: b1
                    minor: 1
                    position: [0.5, 12]
                  - id: b2
                    minor: 2
                    position: [⟨ambiguous-number⟩+1, ⟨wrong-type⟩"2"]
                  - id: b3
                    minor: 3
                    position: [⟨value-out-of-range⟩.nan, 1]
            """))
        let venue = try #require(result.fleet.venues.first)
        #expect(venue.plan == PlanSize(width: 24, height: 16))
        #expect(venue.beacons.map(\.id) == ["b1"])
        #expect(venue.beacons.first?.position == PlanPoint(x: 0.5, y: 12))
    }

    @Test func classifiesPlainScalars() {
        func kind(_ text: String, _ style: ScalarStyle = .plain) -> ScalarKind {
            Array(text.utf8).withUnsafeBufferPointer {
                ScalarKind(of: ScalarToken(bytes: $0, style: style, mark: .startOfFile))
            }
        }
        #expect(kind("") == .null)
        #expect(kind("Null") == .null)
        #expect(kind("-59") == .integer(-59))
        #expect(kind("-0") == .integer(0))
        #expect(kind("9223372036854775807") == .integer(Int.max))
        #expect(kind("-9223372036854775808") == .integer(Int.min))
        #expect(kind("9223372036854775808") == .integerOverflow(negative: false))
        #expect(kind("0b101") == .prefixedInteger(base: 2, value: 5))
        #expect(kind("-0x10") == .prefixedInteger(base: 16, value: -16))
        #expect(kind("0xZZ") == .text)
        #expect(kind(".5") == .decimal(0.5, hasExponent: false))
        #expect(kind("1.5E-3") == .decimal(0.0015, hasExponent: true))
        #expect(kind("1e") == .text)
        #expect(kind("1.2.3") == .text)
        #expect(kind("-") == .text)
        #expect(kind("-.inf") == .nonFinite)
        #expect(kind("12:30") == .text)
        #expect(kind("5", .quoted) == .quoted)
        #expect(kind("5", .block) == .block)
    }
}
