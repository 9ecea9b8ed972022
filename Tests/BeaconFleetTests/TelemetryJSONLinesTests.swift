import BeaconCore
import Foundation
import Testing

@testable import BeaconFleet

@Suite("Telemetry lines among sighting lines")
struct TelemetryJSONLinesTests {
    static let reading = TelemetryReading(
        address: BluetoothAddress("D1:00:00:00:00:07"), addressIsRandom: true, batteryMillivolts: 2987, temperature: 21.5,
        time: 12.345678, clock: .elapsed, receiver: "hci0", source: .eddystoneTLM)

    static let line = #"{"telemetry":1,"source":"eddystone-tlm","address":"D1:00:00:00:00:07","address_random":true,"battery_mv":2987,"battery_percent":null,"temperature":21.5,"time":12.345678,"clock":"elapsed","receiver":"hci0"}"#

    static func decode(_ text: String, line: Int = 1) throws(SightingStreamError) -> [TelemetryReading] {
        var readings: [TelemetryReading] = []
        let sighting = try SightingJSONLines.decode(
            line: Array(text.utf8), lineNumber: line, source: "scan.jsonl", defaultClock: .elapsed) { readings.append($0) }
        #expect(sighting == nil)
        return readings
    }

    @Test func encodesTheDocumentedFieldsInOrder() {
        #expect(TelemetryJSONLines.encode(Self.reading) == Self.line)
    }

    @Test("round trips, with an identity, a percentage, no address, Unix time and an odd receiver")
    func roundTrips() throws {
        #expect(try Self.decode(Self.line) == [Self.reading])
        var odd = Self.reading
        odd.address = nil
        odd.identity = BeaconIdentity(uuid: testUUID, major: 1, minor: 2)
        odd.batteryMillivolts = nil
        odd.batteryPercent = 84
        odd.temperature = -2.25
        odd.time = 1_700_000_000.5
        odd.clock = .unix
        odd.receiver = "box \"7\"\n"
        odd.source = .gateway
        #expect(try Self.decode(TelemetryJSONLines.encode(odd)) == [odd])
    }

    @Test("a file of sightings and telemetry lines: the sightings in order, the readings in the recording's inbox")
    func mixedFile() async throws {
        let path = NSTemporaryDirectory() + "beaconctl-telemetry-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var later = Self.reading
        later.time = 20
        later.batteryMillivolts = 2986
        let text = [SightingJSONLinesTests.line, Self.line, "", SightingJSONLinesTests.line, TelemetryJSONLines.encode(later)]
        try (text.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let recording = try await SightingRecording.open(path: path)
        var sightings: [Sighting] = []
        for try await sighting in recording.sightings { sightings.append(sighting) }
        #expect(sightings == [SightingJSONLinesTests.sighting, SightingJSONLinesTests.sighting])
        #expect(recording.telemetry.take() == [Self.reading, later])

        // The same through the line-by-line reader (an async sequence of lines).
        let lines = SightingRecording.jsonLines(AsyncStream { continuation in
            for line in text { continuation.yield(line) }
            continuation.finish()
        }, source: "pipe")
        var count = 0
        for try await _ in lines { count += 1 }
        #expect(count == 2)
        #expect(lines.telemetry.take().map(\.batteryMillivolts) == [2987, 2986])
    }

    @Test("malformed telemetry lines are errors naming the line, and the column for syntax", arguments: [
        (#"{"telemetry":1,"source":"eddystone-tlm","address":"D1:00:00:00:00:07","battery_mv":3000 "time":1}"#,
         #"scan.jsonl: line 4, column 89: expected ',' or '}' after the value of "battery_mv""#),
        (#"{"telemetry":2,"source":"eddystone-tlm","address":"D1:00:00:00:00:07","battery_mv":3000,"time":1}"#,
         "scan.jsonl: line 4: a telemetry line of version 2; this beaconctl reads version 1 (a newer beaconctl wrote it: upgrade this one)"),
        (#"{"telemetry":1,"source":"ruuvi","address":"D1:00:00:00:00:07","battery_mv":3000,"time":1}"#,
         #"scan.jsonl: line 4: "source" must be one of "eddystone-tlm", "kkm", "gateway"; got "ruuvi""#),
        (#"{"telemetry":1,"source":"kkm","battery_percent":50,"time":1}"#,
         #"scan.jsonl: line 4: a telemetry line must name its beacon: "address", or "uuid", "major" and "minor""#),
        (#"{"telemetry":1,"source":"kkm","address":"D1:00:00:00:00:07","time":1}"#,
         #"scan.jsonl: line 4: a telemetry line must carry "battery_mv", "battery_percent" or "temperature""#),
        (#"{"telemetry":1,"source":"kkm","address":"D1:00:00:00:00:07","battery_percent":101,"time":1}"#,
         #"scan.jsonl: line 4: "battery_percent" must be an integer from 0 to 100; got 101"#),
        (#"{"telemetry":1,"source":"eddystone-tlm","address":"D1:00:00:00:00:07","battery_mv":0,"time":1}"#,
         #"scan.jsonl: line 4: "battery_mv" must be an integer from 1 to 65535; got 0 (a battery not measured is null)"#),
        (#"{"telemetry":1,"source":"eddystone-tlm","address":"D1:00:00:00:00:07","temperature":2000,"time":1}"#,
         #"scan.jsonl: line 4: "temperature" must be °C from -100 to 400; got 2000.0"#),
        (#"{"telemetry":1,"source":"eddystone-tlm","address":"D1:00:00:00:00:07","temperature":20}"#,
         #"scan.jsonl: line 4: missing field "time""#),
    ])
    func malformed(text: String, message: String) {
        let error = #expect(throws: SightingStreamError.self) { _ = try Self.decode(text, line: 4) }
        #expect(error?.description == message)
    }

    @Test("the fast decoder leaves telemetry lines to the full reader")
    func fastDecoderIsUndecided() {
        var fast = SightingJSONFastDecoder()
        let outcome = Array(Self.line.utf8).withUnsafeBufferPointer {
            fast.decode($0, defaults: .init(receiver: "r", clock: .elapsed))
        }
        guard case .undecided = outcome else {
            Issue.record("expected undecided")
            return
        }
    }
}
