import BeaconCore
import Foundation
import HCI
import HCITransports
import Testing

@testable import BeaconCLI

@Suite("beaconctl scan")
struct ScanCommandTests {
    static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"

    /// One sighting line as beaconctl writes it; 10 per second make a 100 ms beacon.
    static func line(minor: Int, rssi: Int?, milliseconds: Int, address: String = "C4:5B:BE:12:34:56") -> String {
        let rssiText = rssi.map(String.init) ?? "null"
        var time = "\(milliseconds / 1000)"
        if milliseconds % 1000 != 0 {
            var fraction = String(milliseconds % 1000)
            fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            time += "." + fraction
        }
        return #"{"uuid":"\#(uuid)","major":1,"minor":\#(minor),"measured_power":-59,"address":"\#(address)","address_random":false,"rssi":\#(rssiText),"time":\#(time),"clock":"elapsed","receiver":"hci0"}"#
    }

    /// Two beacons for two seconds: minor 2 at 1 m (RSSI = measured power), minor 7 20 dB lower (10 m at n = 2, 3.7 m at the default n = 3.5).
    static let recording: String = (0..<20).flatMap { tick in
        [
            line(minor: 2, rssi: -59, milliseconds: tick * 100),
            line(minor: 7, rssi: -79, milliseconds: tick * 100 + 50, address: "C4:5B:BE:00:00:07"),
        ]
    }.joined(separator: "\n") + "\n"

    // MARK: Validation

    @Test(arguments: [
        (["--minor", "3"], "--minor needs --major: a region narrows by minor only within a major (UUID, UUID+major, UUID+major+minor)."),
        (["--major", "1"], "--major needs --uuid: a region is a UUID, optionally narrowed by major, then by minor."),
        (["--uuid", "nope"], "--uuid nope: a UUID has 36 characters in the form 8-4-4-4-12 (e.g. 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3); this has 4"),
        (["--uuid", uuid, "--major", "70000"], "--major must be 0 to 65535; got 70000."),
        (["--duration", "0"], "--duration must be a positive number of seconds up to 1000000000 (about 31 years); got 0. Leave it out to run until stopped."),
        (["--duration", "1e300"], "--duration must be a positive number of seconds up to 1000000000 (about 31 years); got 1e+300. Leave it out to run until stopped."),
        (["--path-loss-exponent", "9"], "--path-loss-exponent must be between 1 and 6 (2 in free space, 2–4 indoors); got 9.0."),
        (["--input", "x.jsonl", "--hci", "hci1", "--family", "legacy"], "--input ranges a recording; --hci, --family drive a controller: pass one or the other."),
        (["--interval", "50", "--window", "60"], "--window (60 ms) must not be longer than the scan interval (50 ms)."),
        (["--interval", "20000"], "--interval must be between 2.5 and 10240 ms; got 20000.0."),
        (["--command-timeout", "0"], "--command-timeout must be between 0.1 and 60 seconds; got 0.0."),
    ])
    func badFlagsAreUsageErrors(arguments: [String], message: String) async {
        let result = await runBeaconctl(["scan"] + arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("Error: " + message), "\(result.error)")
    }

    @Test func aBadTransportSpecIsAUsageError() async {
        let flag = await runBeaconctl(["scan", "--hci", "bluetooth0"])
        #expect(flag.status == 2)
        #expect(flag.error.contains("Error: --hci: "), "\(flag.error)")
        let environment = await runBeaconctl(["scan", "--duration", "1"], environment: ["BEACONCTL_HCI": "tcp-client:"])
        #expect(environment.status == 2)
        #expect(environment.error.hasPrefix("beaconctl: error: $BEACONCTL_HCI: "), "\(environment.error)")
    }

    @Test func anUnreachableControllerExitsThree() async throws {
        // A port bound but not listening refuses connections.
        let port = try RefusingPort()
        let result = await runBeaconctl(["scan", "--hci", "tcp-client:127.0.0.1:\(port.number)", "--duration", "1"])
        #expect(result.status == 3)
        #expect(result.error.hasPrefix("beaconctl: error: tcp-client:127.0.0.1:\(port.number): "), "\(result.error)")
        #expect(result.error.contains("connection refused"))
    }

    // MARK: Recordings

    @Test func jsonLinesInFilteredJSONLinesOut() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("scan.jsonl", Self.recording)
        let result = await runBeaconctl(["scan", "--input", file, "--uuid", Self.uuid.lowercased(), "--major", "1", "--minor", "7"])
        #expect(result.status == 0, "\(result.error)")
        let expected = (0..<20).map { Self.line(minor: 7, rssi: -79, milliseconds: $0 * 100 + 50, address: "C4:5B:BE:00:00:07") }
        #expect(result.output == expected.joined(separator: "\n") + "\n")
    }

    @Test func theTableOfARecordingNamesManifestBeacons() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("scan.jsonl", Self.recording)
        let manifest = try scratch.write("shop.yaml", """
            version: 1
            fleet: shop
            uuid: \(Self.uuid)
            venues:
              - id: front
                major: 1
                beacons:
                  - id: front-door
                    minor: 2
            """)
        let result = await runBeaconctl(["scan", "--input", file, "--format", "text", "--manifest", manifest])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == """
            \(file): 40 sightings of 2 beacons

            IDENTITY                                  BEACON      ADDRESS            RSSI  FILTERED         DISTANCE  PROXIMITY  PKT/S  LAST SEEN
            89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/1/2  front-door  C4:5B:BE:12:34:56   -59     -59.0  1.0 m (0.7–2.0)  near         9.7  0.1 s ago
            89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/1/7  -           C4:5B:BE:00:00:07   -79     -79.0  3.7 m (2.7–7.5)  unknown     10.0  now

            """)
    }

    @Test func aCaptureIsRangedLikeAScan() async throws {
        let scratch = try ScratchFolder()
        let path = scratch.path + "/capture.btsnoop"
        let writer = try BTSnoopWriter(path: path, clock: { 1_700_000_000_000_000 })
        let data = IBeaconAdvertisement(
            identity: BeaconIdentity(uuid: try ProximityUUID(parsing: Self.uuid), major: 1, minor: 2), measuredPower: -59
        ).advertisingData
        let report = LEAdvertisingReport(
            eventType: .advNonconnInd, addressType: .public, address: .zero, data: data, rssi: -60)
        try writer.write(try HCIEvent.le(.advertisingReport([report, report])).packet(), direction: .controllerToHost)
        writer.close()
        let result = await runBeaconctl(["scan", "--input", path, "--format", "jsonl"])
        #expect(result.status == 0, "\(result.error)")
        let expected = #"{"uuid":"\#(Self.uuid)","major":1,"minor":2,"measured_power":-59,"address":"00:00:00:00:00:00","address_random":false,"rssi":-60,"time":0,"clock":"elapsed","receiver":"\#(path)"}"#
        #expect(result.output == expected + "\n" + expected + "\n")
    }

    @Test func durationCutsARecording() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("scan.jsonl", Self.recording)
        let result = await runBeaconctl(["scan", "--input", file, "--duration", "0.5"])
        #expect(result.status == 0)
        // Times 0 to 0.5 for minor 2, 0.05 to 0.45 for minor 7.
        #expect(result.output.split(separator: "\n").count == 11)
    }

    @Test("two boxes' recordings appended, each timed from its own start: each is ranged on its own clock and named")
    func twoReceiversEachOnItsOwnClock() async throws {
        // Box A heard minor 2 at 1 m for 2 s; box B, whose scan started 100 s earlier, heard
        // the same beacon at 10 m. On one clock B's times would make A's beacon 100 s stale.
        let boxB = (0..<20).map { tick in
            Self.line(minor: 2, rssi: -79, milliseconds: 100_000 + tick * 100)
                .replacingOccurrences(of: #""receiver":"hci0""#, with: #""receiver":"b:hci0""#)
        }
        let boxA = (0..<20).map { tick in
            Self.line(minor: 2, rssi: -59, milliseconds: tick * 100)
                .replacingOccurrences(of: #""receiver":"hci0""#, with: #""receiver":"a:hci0""#)
        }
        let scratch = try ScratchFolder()
        let file = try scratch.write("two-boxes.jsonl", (boxA + boxB).joined(separator: "\n") + "\n")
        let result = await runBeaconctl(["scan", "--input", file, "--format", "text"])
        #expect(result.status == 0, "\(result.error)")
        // B joins the clock where A left it (1.9 s) and runs 1.9 s more: A's beacon was last
        // heard 1.9 s before the end, and its packet rate counts the silence since.
        #expect(result.output == """
            \(file): 40 sightings of 2 beacons

            IDENTITY                                  BEACON  ADDRESS            RSSI  FILTERED         DISTANCE  PROXIMITY  PKT/S  LAST SEEN  RECEIVER
            89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/1/2  -       C4:5B:BE:12:34:56   -59     -59.0  1.0 m (0.7–2.0)  near         5.0  1.9 s ago  a:hci0
            89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/1/2  -       C4:5B:BE:12:34:56   -79     -79.0  3.7 m (2.7–7.5)  unknown     10.0  now        b:hci0

            """)
        // The lines written are the recording's, times untouched.
        let lines = await runBeaconctl(["scan", "--input", file, "--format", "jsonl"])
        #expect(lines.output == (boxA + boxB).joined(separator: "\n") + "\n")
    }

    /// Gateways that publish no address (ESP32-mqtt-room, room-assistant): what scan writes
    /// of their sightings is read back by scan itself (docs/sightings.md, JSON lines).
    @Test("sightings without an address are written null, and what scan wrote reads back unchanged")
    func sightingsWithoutAnAddressRoundTrip() async throws {
        let scratch = try ScratchFolder()
        let written = Self.line(minor: 2, rssi: -59, milliseconds: 0).replacing(#""address":"C4:5B:BE:12:34:56""#, with: #""address":null"#)
        // The empty string earlier versions wrote, and a line that leaves the member out.
        let older = Self.line(minor: 2, rssi: -59, milliseconds: 100).replacing(#""C4:5B:BE:12:34:56""#, with: #""""#)
        let without = Self.line(minor: 2, rssi: -59, milliseconds: 200).replacing(#""address":"C4:5B:BE:12:34:56","#, with: "")
        let file = try scratch.write("gateways.jsonl", [written, older, without].joined(separator: "\n") + "\n")
        let first = await runBeaconctl(["scan", "--input", file, "--format", "jsonl"])
        #expect(first.status == 0, "\(first.error)")
        let expected = [0, 100, 200].map {
            Self.line(minor: 2, rssi: -59, milliseconds: $0).replacing(#""address":"C4:5B:BE:12:34:56""#, with: #""address":null"#)
        }.joined(separator: "\n") + "\n"
        #expect(first.output == expected)
        let again = try scratch.write("again.jsonl", first.output)
        let second = await runBeaconctl(["scan", "--input", again, "--format", "jsonl"])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output == expected)
    }

    @Test("--telemetry writes the recording's telemetry lines among its sightings; without it none; the text table shows them")
    func telemetryLines() async throws {
        let scratch = try ScratchFolder()
        let telemetry = #"{"telemetry":1,"source":"eddystone-tlm","address":"C4:5B:BE:12:34:56","address_random":false,"battery_mv":2987,"battery_percent":null,"temperature":21.5,"time":0.5,"clock":"elapsed","receiver":"hci0"}"#
        let sightings = (0..<3).map { Self.line(minor: 2, rssi: -59, milliseconds: $0 * 100) }
        let file = try scratch.write("tlm.jsonl", (sightings + [telemetry]).joined(separator: "\n") + "\n")
        let with = await runBeaconctl(["scan", "--input", file, "--format", "jsonl", "--telemetry"])
        #expect(with.status == 0, "\(with.error)")
        #expect(with.output == (sightings + [telemetry]).joined(separator: "\n") + "\n")
        let without = await runBeaconctl(["scan", "--input", file, "--format", "jsonl"])
        #expect(without.output == sightings.joined(separator: "\n") + "\n", "older readers refuse telemetry lines: only when asked")
        let text = await runBeaconctl(["scan", "--input", file, "--format", "text"])
        #expect(text.output.hasSuffix("""

            TELEMETRY          BATTERY  TEMP     SOURCE         RECEIVER
            C4:5B:BE:12:34:56  2.987 V  21.5 °C  eddystone-tlm  hci0

            """), "\(text.output)")
        let refused = await runBeaconctl(["scan", "--input", file, "--format", "text", "--telemetry"])
        #expect(refused.status == 2)
        #expect(refused.error.contains("Error: --telemetry adds telemetry lines to --format jsonl or to what --mqtt publishes; the text table shows telemetry without it."))
    }

    @Test func aBadRecordingLineExitsTwo() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("scan.jsonl", Self.line(minor: 2, rssi: -59, milliseconds: 0) + "\n{\"uuid\": 5}\n")
        let result = await runBeaconctl(["scan", "--input", file])
        #expect(result.status == 2)
        #expect(result.output == Self.line(minor: 2, rssi: -59, milliseconds: 0) + "\n")
        #expect(result.error == "beaconctl: error: \(file): line 2: \"uuid\" must be a string; got the number 5\n")
        let missing = await runBeaconctl(["scan", "--input", scratch.path + "/absent.jsonl"])
        #expect(missing.status == 2)
        #expect(missing.error == "beaconctl: error: \(scratch.path)/absent.jsonl: cannot open it: No such file or directory\n")
    }

    @Test func tableHelpers() {
        #expect(ScanTable.decimal(-59.04, places: 1) == "-59.0")
        #expect(ScanTable.decimal(-0.04, places: 1) == "0.0")
        #expect(ScanTable.decimal(9.999, places: 2) == "10.00")
        #expect(ScanTable.lastSeen(0.01) == "now")
        #expect(ScanTable.lastSeen(0.44) == "0.4 s ago")
        #expect(ScanTable.lastSeen(12.6) == "13 s ago")
    }

    @Test("the table adds a RECEIVER column when beacons come from more than one receiver, and only then")
    func receiverColumn() {
        func beacon(_ receiver: String, rssi: Int) -> RangedBeacon {
            RangedBeacon(
                identity: BeaconIdentity(uuid: ProximityUUID(high: 1, low: 2), major: 1, minor: 1), address: BluetoothAddress("C4:5B:BE:00:00:01"),
                addressIsRandom: false, measuredPower: -59, measuredPowerIsPlausible: true, rssi: rssi,
                filteredRSSI: Double(rssi), accuracy: 1, proximity: .near, packetsPerSecond: 10, sampleCount: 10,
                packetCount: 10, firstSeen: 0, lastSeen: 1, receiver: receiver)
        }
        let table = ScanTable(names: [:], style: Style(choice: .never, isTerminal: false, environment: [:]))
        let one = table.lines([beacon("store-12:hci0", rssi: -60)], at: 1)
        #expect(!one[0].contains("RECEIVER"))
        let two = table.lines([beacon("store-12:hci0", rssi: -60), beacon("store-12:hci1\u{1B}", rssi: -70)], at: 1)
        #expect(two[0].hasSuffix("LAST SEEN  RECEIVER"))
        #expect(two[1].hasSuffix("now        store-12:hci0"))
        #expect(two[2].hasSuffix("now        store-12:hci1\\u{1B}"))
    }

    @Test func theLiveDisplayRedrawsInPlace() {
        var display = ScanLiveDisplay()
        #expect(display.frame(["a", "b"]) == "\u{1B}[?25l\u{1B}[?7l\u{1B}[Ja\nb\n")
        #expect(display.frame(["c"]) == "\u{1B}[2A\r\u{1B}[Jc\n")
        #expect(display.finish() == "\u{1B}[?7h\u{1B}[?25h")
    }
}

/// A loopback TCP port bound but not listening: connecting to it is refused.
final class RefusingPort {
    let number: UInt16
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw CocoaError(.fileWriteUnknown)
        }
        self.descriptor = descriptor
        number = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }
}
