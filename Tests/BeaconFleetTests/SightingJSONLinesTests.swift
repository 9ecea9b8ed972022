import BeaconCore
import Foundation
import Synchronization
import Testing

@testable import BeaconFleet

@Suite("Sightings as JSON lines")
struct SightingJSONLinesTests {
    static let sighting = Sighting(
        advertisement: IBeaconAdvertisement(identity: BeaconIdentity(uuid: testUUID, major: 1, minor: 2), measuredPower: -59),
        address: BluetoothAddress("C4:5B:BE:12:34:56"), addressIsRandom: false, rssi: -63, time: 12.345678, clock: .elapsed, receiver: "hci0")

    static let line = #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:12:34:56","address_random":false,"rssi":-63,"time":12.345678,"clock":"elapsed","receiver":"hci0"}"#

    static func decode(_ text: String, line: Int = 1, defaultClock: SightingClock = .elapsed) throws(SightingStreamError) -> Sighting? {
        try SightingJSONLines.decode(line: Array(text.utf8), lineNumber: line, source: "scan.jsonl", defaultClock: defaultClock)
    }

    @Test func encodesTheDocumentedFieldsInOrder() {
        #expect(SightingJSONLines.encode(Self.sighting) == Self.line)
    }

    @Test func roundTrips() throws {
        #expect(try Self.decode(Self.line) == Self.sighting)
        var odd = Self.sighting
        odd.rssi = nil
        odd.addressIsRandom = true
        odd.time = -0.5
        odd.receiver = "capture \"lab\"\n\\ 2.btsnoop\u{01}é"
        let encoded = SightingJSONLines.encode(odd)
        #expect(encoded.contains(#""rssi":null"#))
        #expect(encoded.contains(#""receiver":"capture \"lab\"\n\\ 2.btsnoop\u0001é""#))
        #expect(try Self.decode(encoded) == odd)
    }

    @Test(arguments: [
        (0.0, "0"), (2.0, "2"), (0.1, "0.1"), (12.3456789, "12.345679"), (-1.5, "-1.5"), (0.0000004, "0"),
        (1_700_000_000.25, "1700000000.25"),
    ])
    func timeHasMicrosecondResolution(time: Double, text: String) {
        #expect(SightingJSONLines.timeText(time) == text)
    }

    @Test func acceptsWhatPeopleWriteByHand() throws {
        // Spaces, lower-case UUID and address, fields in another order, unknown fields
        // (nested too), no address_random, no receiver (the source name stands in).
        let text = #"  { "rssi" : null, "time": 1e1, "minor": 0, "major": 65535, "measured_power": -128, "uuid": "89d6e936-f61f-4227-bcd2-6e94c5a6b2e3", "address": "c4:5b:be:12:34:56", "note": {"by": ["me", 1, true]} }  "#
        let sighting = try #require(try Self.decode(text))
        #expect(sighting.identity == BeaconIdentity(uuid: testUUID, major: 65535, minor: 0))
        #expect(sighting.advertisement.measuredPower == -128)
        #expect(sighting.address?.description == "C4:5B:BE:12:34:56")
        #expect(!sighting.addressIsRandom)
        #expect(sighting.rssi == nil)
        #expect(sighting.time == 10)
        #expect(sighting.receiver == "scan.jsonl")
    }

    @Test func blankLinesAreNotSightings() throws {
        #expect(try Self.decode("") == nil)
        #expect(try Self.decode(" \t\r") == nil)
    }

    @Test(arguments: [
        ("hello", "scan.jsonl: line 4, column 1: expected a JSON object starting with '{'"),
        (#"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1"#, "scan.jsonl: line 4, column 57: expected ',' or '}' after the value of \"major\""),
        (#"{"major":1,"major":2}"#, "scan.jsonl: line 4, column 12: field \"major\" appears twice"),
        (#"{"major":01}"#, "scan.jsonl: line 4, column 11: numbers must not have leading zeros"),
        (#"{"receiver":"open}"#, "scan.jsonl: line 4, column 19: the string is not closed before the end of the line"),
        (#"{"a":1} x"#, "scan.jsonl: line 4, column 9: unexpected text after the end of the object"),
        (#"{"a":"\q"}"#, "scan.jsonl: line 4, column 8: unknown escape \\q"),
        (#"{"a":"\ud800"}"#, "scan.jsonl: line 4, column 13: a high surrogate \\u escape must be followed by a low surrogate"),
    ])
    func syntaxErrorsNameLineAndColumn(text: String, message: String) {
        expectStreamError(message) { _ = try Self.decode(text, line: 4) }
    }

    static let valid: [String: String] = [
        "uuid": #""89D6E936-F61F-4227-BCD2-6E94C5A6B2E3""#, "major": "1", "minor": "2", "measured_power": "-59",
        "address": #""C4:5B:BE:12:34:56""#, "rssi": "-63", "time": "1.5",
    ]

    /// A sighting line with one field replaced (or removed when `value` is nil).
    static func line(replacing key: String, with value: String?) -> String {
        var fields = valid
        fields[key] = value
        return "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    @Test(arguments: [
        ("major", nil, #"missing field "major""#),
        ("major", "70000", #""major" must be an integer from 0 to 65535; got 70000"#),
        ("minor", "1.5", #""minor" must be an integer from 0 to 65535; got 1.5"#),
        ("minor", #""2""#, #""minor" must be a number; got the string "2""#),
        ("measured_power", "-129", #""measured_power" must be an integer from -128 to 127; got -129"#),
        ("rssi", "127", #""rssi" must be an integer from -128 to 126; got 127 (127 means "not available": write null)"#),
        ("uuid", #""89D6E936F61F4227BCD26E94C5A6B2E3""#, #""uuid": UUID has 32 hex digits but no hyphens; write it as 8-4-4-4-12"#),
        ("address", #""C4-5B-BE-12-34-56""#, #""address" must be six hexadecimal pairs separated by colons (AA:BB:CC:DD:EE:FF), or null for none; got "C4-5B-BE-12-34-56""#),
        ("address", "0", #""address" must be a string; got the number 0"#),
        ("address", "false", #""address" must be a string; got false"#),
        ("address", #"["C4:5B:BE:12:34:56"]"#, #""address" must be a string; got an array or object"#),
        ("time", #""now""#, #""time" must be a number of seconds; got the string "now""#),
        ("time", "1e999", #""time" is out of range: 1e999"#),
        ("address_random", "1", #""address_random" must be true or false; got the number 1"#),
        ("clock", #""monotonic""#, #""clock" must be "elapsed" (seconds on the receiver's own clock) or "unix" (seconds since 1970 UTC); got "monotonic""#),
        ("clock", "1", #""clock" must be a string; got the number 1"#),
    ] as [(String, String?, String)])
    func badFieldsAreNamed(key: String, value: String?, reason: String) {
        expectStreamError("scan.jsonl: line 2: " + reason) {
            _ = try Self.decode(Self.line(replacing: key, with: value), line: 2)
        }
    }

    @Test("a line says its clock; without one it takes its input's default, whatever its size")
    func clockIsReadNotGuessed() throws {
        let unix = try #require(try Self.decode(Self.line(replacing: "clock", with: #""unix""#)))
        #expect(unix.clock == .unix)
        let elapsed = try #require(try Self.decode(Self.line(replacing: "clock", with: #""elapsed""#), defaultClock: .unix))
        #expect(elapsed.clock == .elapsed, "a clock written wins over the input's default")
        // Without "clock": the input's default, for a small time and a Unix-sized one alike.
        for time in ["12.5", "1790000000.25", "2000000000"] {
            let fields = Self.line(replacing: "time", with: time)
            #expect(try Self.decode(fields, defaultClock: .elapsed)?.clock == .elapsed, "\(time)")
            #expect(try Self.decode(fields, defaultClock: .unix)?.clock == .unix, "\(time)")
        }
        // The full reader agrees with the fast one (null is the full reader's: the default).
        let null = try #require(try Self.decode(Self.line(replacing: "clock", with: "null"), defaultClock: .unix))
        #expect(null.clock == .unix)
    }

    @Test("a file whose first line has no clock and a time decades long: read as elapsed, as documented, and said once with the line that marks it", arguments: [true, false])
    func undeclaredUnixTimeIsSaidOnce(marked: Bool) async throws {
        let clock = marked ? #","clock":"elapsed""# : ""
        let line = { (time: Double) in
            #"{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":2,"measured_power":-59,"address":"C4:5B:BE:12:34:56","rssi":-63,"time":"#
                + "\(time)\(clock)" + #","receiver":"box"}"#
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("old-\(UUID().uuidString).jsonl").path
        try (1...3).map { line(1_764_000_000 + Double($0)) }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = try await SightingRecording.open(path: path)
        let said = Mutex<[String]>([])
        recording.announceUndeclaredUnixTime { message in said.withLock { $0.append(message) } }
        var clocks: [SightingClock] = []
        for try await sighting in recording.sightings { clocks.append(sighting.clock) }
        #expect(clocks == [.elapsed, .elapsed, .elapsed], "never guessed from the number")
        let messages = said.withLock { $0 }
        if marked {
            #expect(messages.isEmpty, "a file that says its clock is taken at its word")
        } else {
            #expect(messages.count == 1)
            #expect(messages.first?.contains(#"sed -i 's/,"receiver":/,"clock":"unix","receiver":/'"#) == true)
        }
    }

    @Test("a sighting on Unix time is written saying so, and read back the same")
    func unixClockRoundTrips() throws {
        var sighting = Self.sighting
        sighting.time = 1_790_000_000.5
        sighting.clock = .unix
        let line = SightingJSONLines.encode(sighting)
        #expect(line.contains(#""time":1790000000.5,"clock":"unix","receiver""#))
        #expect(try Self.decode(line, defaultClock: .elapsed) == sighting)
        // Moved to Unix time once: an elapsed time by the offset, a Unix time not again.
        let moved = Self.sighting.onUnixTime(offset: 1_000)
        #expect(moved.time == 1_012.345678 && moved.clock == .unix)
        #expect(moved.onUnixTime(offset: 1_000) == moved)
    }

    @Test("a malformed address is refused where the line enters, by the fast decoder and the full reader alike", arguments: [
        " ", "C4:5B:BE:12:34", "C4:5B:BE:12:34:+6", "C4:5B:BE:12:34:5G", "c45bbe123456", " C4:5B:BE:12:34:5", "C4:5B:BE:12:34:56:78",
    ])
    func malformedAddresses(text: String) throws {
        let line = Self.line(replacing: "address", with: "\"\(text)\"")
        var fast = SightingJSONFastDecoder()
        let undecided = Array(line.utf8).withUnsafeBufferPointer { buffer in
            if case .undecided = fast.decode(buffer, defaults: .init(receiver: "scan.jsonl", clock: .elapsed)) { return true }
            return false
        }
        #expect(undecided, "the fast decoder must leave \(text) to the full reader")
        let reason = #""address" must be six hexadecimal pairs separated by colons (AA:BB:CC:DD:EE:FF), or null for none; got "# + "\"\(text)\""
        expectStreamError("scan.jsonl: line 1: " + reason) { _ = try Self.decode(line) }
        #expect(throws: SightingStreamError.self) {
            try SightingJSONLines.decodeFully(Array(line.utf8), lineNumber: 1, source: "scan.jsonl", defaults: .init(receiver: "scan.jsonl", clock: .elapsed))
        }
    }

    /// Gateways that publish no address (ESP32-mqtt-room, room-assistant): what is written
    /// from them must read back (docs/sightings.md, JSON lines).
    @Test("a sighting without an address is written null and read back; null, absent and \"\" all read as none, on both paths")
    func noAddressRoundTrips() throws {
        var sighting = Self.sighting
        sighting.address = nil
        sighting.clock = .unix
        sighting.time = 1_790_000_000.5
        sighting.receiver = "kitchen"
        let line = SightingJSONLines.encode(sighting)
        #expect(line.contains(#""address":null,"address_random":false"#), "\(line)")
        #expect(try Self.decode(line) == sighting)

        // null, the member left out, and the empty string earlier versions wrote.
        for spelling in ["null", nil, #""""#] as [String?] {
            let text = Self.line(replacing: "address", with: spelling)
            let defaults = SightingJSONLines.Defaults(receiver: "scan.jsonl", clock: .elapsed)
            var fast = SightingJSONFastDecoder()
            let decided = Array(text.utf8).withUnsafeBufferPointer { buffer -> Sighting? in
                if case .sighting(let sighting) = fast.decode(buffer, defaults: defaults) { return sighting }
                return nil
            }
            let fastSighting = try #require(decided, "the fast decoder decides \(spelling ?? "a missing address") itself")
            #expect(fastSighting.address == nil)
            let full = try #require(try SightingJSONLines.decodeFully(Array(text.utf8), lineNumber: 1, source: "scan.jsonl", defaults: defaults))
            #expect(full == fastSighting, "\(spelling ?? "missing")")
        }

        // A file of them reads back whole: what `scan --input mqtt://… --format jsonl` wrote.
        let text = [sighting, Self.sighting].map(SightingJSONLines.encode).joined(separator: "\n") + "\n"
        #expect(try SightingRecording.jsonLines(text: text, source: "gateways.jsonl") == [sighting, Self.sighting])
    }

    @Test("either case reads to one address, written upper case: one device, however its receivers spell it")
    func addressCase() throws {
        let lower = try #require(try Self.decode(Self.line(replacing: "address", with: #""c4:5b:be:12:34:56""#)))
        let upper = try #require(try Self.decode(Self.line(replacing: "address", with: #""C4:5B:BE:12:34:56""#)))
        #expect(lower.address == upper.address)
        #expect(lower.address == BluetoothAddress(value: 0xC45B_BE12_3456))
        #expect(SightingJSONLines.encode(lower).contains(#""address":"C4:5B:BE:12:34:56""#))
    }

    @Test func overlongLinesAreRefused() throws {
        let long = String(repeating: " ", count: SightingJSONLines.maximumLineLength) + "{}"
        let error = try #require(throws: SightingStreamError.self) { try Self.decode(long) }
        #expect(error.reason.hasPrefix("the line is 16386 bytes long"))
    }

    @Test func textWithBlankLinesAndCRLF() throws {
        let text = Self.line + "\r\n\r\n" + Self.line.replacingOccurrences(of: "\"minor\":2", with: "\"minor\":3") + "\n"
        let sightings = try SightingRecording.jsonLines(text: text, source: "scan.jsonl")
        #expect(sightings.map(\.identity.minor) == [2, 3])
        let broken = text + "{\n"
        expectStreamError("scan.jsonl: line 4, column 2: expected a field name in double quotes") {
            _ = try SightingRecording.jsonLines(text: broken, source: "scan.jsonl")
        }
    }

    @Test func aFileIsReadLazilyAndFailsAtItsFirstBadLine() async throws {
        let path = NSTemporaryDirectory() + "beaconctl-sightings-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data((Self.line + "\n\n" + Self.line + "\nnot json\n" + Self.line).utf8).write(to: URL(fileURLWithPath: path))
        var read: [Sighting] = []
        let error = await #expect(throws: SightingStreamError.self) {
            for try await sighting in SightingRecording.jsonLines(path: path) { read.append(sighting) }
        }
        #expect(read.count == 2)
        #expect(error?.description == "\(path): line 4, column 1: expected a JSON object starting with '{'")
    }

    @Test func aMissingFileSaysSo() async {
        let error = await #expect(throws: SightingStreamError.self) {
            for try await _ in SightingRecording.jsonLines(path: "/nonexistent/scan.jsonl") {}
        }
        #expect(error?.description == "/nonexistent/scan.jsonl: cannot open it: No such file or directory")
    }

    @Test func openTellsJSONLinesFromACapture() async throws {
        let path = NSTemporaryDirectory() + "beaconctl-sightings-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A file without a final newline, in chunks larger than one read.
        let many = Array(repeating: Self.line, count: 2000).joined(separator: "\n")
        try Data(many.utf8).write(to: URL(fileURLWithPath: path))
        guard case .jsonLines(let sightings) = try await SightingRecording.open(path: path) else {
            Issue.record("a JSON-lines file was not recognised")
            return
        }
        var count = 0
        for try await sighting in sightings {
            #expect(sighting == Self.sighting)
            count += 1
        }
        #expect(count == 2000)
    }
}

/// Expects `body` to throw a `SightingStreamError` whose message, as the user sees it, is
/// `message`.
func expectStreamError(
    _ message: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    let error = #expect(throws: SightingStreamError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.description == message, sourceLocation: sourceLocation)
}
