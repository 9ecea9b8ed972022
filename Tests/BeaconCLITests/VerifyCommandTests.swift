import BeaconTestKit
import BeaconCore
import BeaconFleet
import Foundation
import HCI
import HCITransports
import Synchronization
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import BeaconCLI

@Suite("beaconctl verify")
struct VerifyCommandTests {
    static let uuid = ManifestFixtures.cornerShopUUID

    /// A shop with a door and a till (calibrated −59 dBm), and a back room.
    static let manifest = ManifestFixtures.cornerShop

    /// `count` receptions of a 100 ms beacon, as JSON lines with their times.
    static func lines(
        major: Int, minor: Int, power: Int = -59, address: String, from start: Double = 0, count: Int = 10,
        rssi: Int = -70, receiver: String = "hci1", clock: SightingClock = .elapsed
    ) -> [(time: Double, line: String)] {
        (0..<count).map { index in
            let time = start + Double(index) / 10
            return (time, #"{"uuid":"\#(uuid)","major":\#(major),"minor":\#(minor),"measured_power":\#(power),"address":"\#(address)","address_random":true,"rssi":\#(rssi),"time":\#(time),"clock":"\#(clock.name)","receiver":"\#(receiver)"}"#)
        }
    }

    /// The receptions of several beacons in time order, as a scanner writes them.
    static func recording(_ lines: [(time: Double, line: String)]...) -> String {
        lines.joined().sorted { $0.time < $1.time }.map(\.line).joined(separator: "\n") + "\n"
    }

    static let allThere = recording(
        lines(major: 1, minor: 1, address: "C0:00:00:00:01:01"),
        lines(major: 1, minor: 2, address: "C0:00:00:00:01:02", from: 0.03),
        lines(major: 2, minor: 1, address: "C0:00:00:00:02:01", from: 0.06))

    private func files(recording: String = allThere) throws -> (ScratchFolder, manifest: String, input: String) {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", Self.manifest)
        let input = try scratch.write("walk.jsonl", recording)
        return (scratch, manifest, input)
    }

    // MARK: Verdicts from recordings

    @Test("every beacon heard correctly: exit 0, a table per venue and a summary")
    func allOk() async throws {
        let (scratch, manifest, input) = try files()
        let result = await runBeaconctl(["verify", manifest, "--input", input])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "fleet corner-shop")
        #expect(lines.contains("shop"))
        #expect(lines.contains("back"))
        #expect(lines.contains { $0.hasPrefix("  ok             door ") && $0.contains("\(Self.uuid)/1/1") })
        // Decided 0.3 s after each one's third reception: the rest of the file is not read.
        #expect(result.output.hasSuffix(
            "passed: 3 beacons: 3 ok; 17 sightings in 0.6 s (every beacon decided)\n"), "\(result.output)")
        #expect(!result.output.contains("\u{1B}["), "no colour off a terminal")
        _ = scratch
    }

    @Test("two receivers: one device heard by both is no duplicate; every report says who heard each beacon, and how strongly")
    func severalReceivers() async throws {
        // Two boxes' streams merged, Unix times: the door heard by both, the till by one,
        // the back room's beacon by the other.
        let start = 1_790_000_000.0
        let (scratch, manifest, input) = try files(recording: Self.recording(
            Self.lines(major: 1, minor: 1, address: "C0:00:00:00:01:01", from: start, rssi: -58, receiver: "store-a:hci0", clock: .unix),
            Self.lines(major: 1, minor: 1, address: "C0:00:00:00:01:01", from: start + 0.004, count: 6, rssi: -81, receiver: "store-b:hci0", clock: .unix),
            Self.lines(major: 1, minor: 2, address: "C0:00:00:00:01:02", from: start + 0.03, count: 20, receiver: "store-a:hci0", clock: .unix),
            Self.lines(major: 2, minor: 1, address: "C0:00:00:00:02:01", from: start + 0.06, count: 20, receiver: "store-b:hci0", clock: .unix)))
        // K = 16: the door's verdict rests on all its receptions, from both boxes.
        let text = await runBeaconctl(["verify", manifest, "--input", input, "--required-sightings", "16"])
        #expect(text.status == 0, "\(text.output)\(text.error)")
        let lines = text.output.split(separator: "\n").map(String.init)
        let door = try #require(lines.firstIndex { $0.contains("\(Self.uuid)/1/1") })
        #expect(lines[door].hasPrefix("  ok "))
        #expect(lines[door + 1].trimmingCharacters(in: .whitespaces) == "heard by store-a:hci0 10× -58 dBm, store-b:hci0 6× -81 dBm",
                "the strongest first: \(lines[door + 1])")
        let backIndex = try #require(lines.firstIndex { $0.contains("\(Self.uuid)/2/1") })
        let back = lines[backIndex + 1].trimmingCharacters(in: .whitespaces)
        #expect(back.hasPrefix("heard by store-b:hci0 ") && back.hasSuffix("× -70 dBm") && !back.contains("store-a"), "\(back)")

        let json = await runBeaconctl(["verify", manifest, "--input", input, "--required-sightings", "16", "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let beacons = try #require(report["beacons"] as? [[String: Any]])
        let heard = try #require(beacons.first?["heard"] as? [String: Any])
        let receivers = try #require(heard["receivers"] as? [[String: Any]])
        #expect(receivers.compactMap { $0["receiver"] as? String } == ["store-a:hci0", "store-b:hci0"])
        #expect(receivers.compactMap { $0["sightings"] as? Int } == [10, 6])
        #expect(receivers.compactMap { $0["mean_rssi"] as? Double } == [-58, -81])
        #expect(receivers.compactMap { $0["first_seen_s"] as? Double } == [0, 0.004])

        let markdown = await runBeaconctl(["verify", manifest, "--input", input, "--required-sightings", "16", "--format", "markdown"])
        #expect(markdown.output.contains("| Venue | Beacon | Identity | Verdict | Heard | Receivers | Details |"))
        #expect(markdown.output.contains("| store-a:hci0 10× -58 dBm, store-b:hci0 6× -81 dBm |"))

        // One receiver: nothing to tell apart, no extra line or column.
        let (single, singleManifest, singleInput) = try files()
        let plain = await runBeaconctl(["verify", singleManifest, "--input", singleInput, "--format", "markdown"])
        #expect(!plain.output.contains("Receivers"))
        _ = (scratch, single)
    }

    @Test("faults give exit 1 and say what to do; a recording is judged to its end")
    func findings() async throws {
        let (scratch, manifest, input) = try files(recording: Self.recording(
            Self.lines(major: 1, minor: 1, power: -40, address: "C0:00:00:00:01:01"),
            Self.lines(major: 1, minor: 9, address: "C0:00:00:00:01:09", count: 3)))
        let result = await runBeaconctl(["verify", manifest, "--input", input])
        #expect(result.status == 1)
        #expect(result.output.contains("  wrong-power    door "))
        #expect(result.output.contains("measured power -40 dBm (5 times) on the air, expected -59 dBm"))
        #expect(result.output.contains("  missing        till "))
        #expect(result.output.contains("not heard in the 0.9 s of input"))
        #expect(result.output.contains("  unexpected     — "))
        #expect(result.output.contains("\(Self.uuid)/1/9"))
        #expect(result.output.contains("major 1 is venue shop's"))
        #expect(result.output.hasSuffix(
            "failed: 3 beacons: 2 missing, 1 wrong-power; 1 unexpected; 13 sightings in 0.9 s (end of input)\n"),
            "\(result.output)")
        _ = scratch
    }

    @Test("--venue judges one venue; the others heard are listed, not judged")
    func oneVenue() async throws {
        let (scratch, manifest, input) = try files()
        let result = await runBeaconctl(["verify", manifest, "--input", input, "--venue", "back"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("fleet corner-shop, venue back"))
        #expect(result.output.contains("also heard, outside this pass: door (6×), till (6×)"))
        #expect(result.output.contains("passed: 1 beacon: 1 ok"))
        _ = scratch
    }

    @Test("--timeout cuts a recording short: what was not heard by then is missing")
    func timeoutOnARecording() async throws {
        let late = Self.recording(
            Self.lines(major: 1, minor: 1, address: "C0:00:00:00:01:01"),
            Self.lines(major: 1, minor: 2, address: "C0:00:00:00:01:02", from: 3),
            Self.lines(major: 2, minor: 1, address: "C0:00:00:00:02:01"))
        let (scratch, manifest, input) = try files(recording: late)
        let result = await runBeaconctl(["verify", manifest, "--input", input, "--timeout", "2", "--format", "json"])
        #expect(result.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(document["end"] as? String == "timeout")
        let statuses = (document["beacons"] as? [[String: Any]])?.map { $0["status"] as? String }
        #expect(statuses == ["ok", "missing", "ok"])
        _ = scratch
    }

    @Test("a btsnoop capture is recognised by its magic and replayed on its own clock")
    func btsnoopCapture() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", Self.manifest)
        let capture = scratch.path + "/walk.btsnoop"
        // Record times: 100 ms apart, from an arbitrary wall-clock start.
        let tick = Mutex<Int64>(1_700_000_000_000_000)
        let writer = try BTSnoopWriter(path: capture) {
            tick.withLock { value in
                defer { value += 33_333 }
                return value
            }
        }
        let beacons: [(minor: UInt16, major: UInt16, address: String)] = [
            (1, 1, "C0:00:00:00:01:01"), (2, 1, "C0:00:00:00:01:02"), (1, 2, "C0:00:00:00:02:01"),
        ]
        let uuid = try ProximityUUID(parsing: Self.uuid)
        for _ in 0..<8 {
            for beacon in beacons {
                let frame = IBeaconAdvertisement(
                    identity: BeaconIdentity(uuid: uuid, major: beacon.major, minor: beacon.minor), measuredPower: -59)
                let report = LEAdvertisingReport(
                    eventType: .advNonconnInd, addressType: .random, address: try #require(BluetoothAddress(beacon.address)),
                    data: frame.advertisingData, rssi: -65)
                try writer.write(try HCIEvent.le(.advertisingReport([report])).packet(), direction: .controllerToHost)
            }
        }
        writer.close()

        let result = await runBeaconctl(["verify", manifest, "--input", capture, "--format", "markdown"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.hasPrefix("## beaconctl verify: fleet corner-shop — passed\n"))
        #expect(result.output.contains("| shop | door | `\(Self.uuid)/1/1` | ok | "))
    }

    /// A little-endian pcap (LINKTYPE_BLUETOOTH_HCI_H4, 187; snapshot length 64) of `packets`,
    /// a third of 100 ms apart (each of three beacons every 100 ms).
    static func pcap(_ packets: [[UInt8]]) -> [UInt8] {
        func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        var file = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(64) + le32(187)
        for (index, packet) in packets.enumerated() {
            file += le32(1_700_000_000) + le32(UInt32(index) * 33_333) + le32(UInt32(packet.count)) + le32(UInt32(packet.count))
            file += packet
        }
        return file
    }

    @Test("a pcap's undecodable records are named in every report; a pcap of nothing else is an input error")
    func undecodableRecords() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", Self.manifest)
        let uuid = try ProximityUUID(parsing: Self.uuid)
        var packets: [[UInt8]] = []
        for _ in 0..<8 {
            for (major, minor, address) in [(UInt16(1), UInt16(1), "C0:00:00:00:01:01"), (1, 2, "C0:00:00:00:01:02"), (2, 1, "C0:00:00:00:02:01")] {
                let frame = IBeaconAdvertisement(identity: BeaconIdentity(uuid: uuid, major: major, minor: minor), measuredPower: -59)
                let report = LEAdvertisingReport(
                    eventType: .advNonconnInd, addressType: .random, address: try #require(BluetoothAddress(address)),
                    data: frame.advertisingData, rssi: -65)
                packets.append([0x04] + (try HCIEvent.le(.advertisingReport([report])).packet()).body)
            }
        }
        let zeros = [UInt8](repeating: 0, count: 5000)
        let mixed = scratch.path + "/mixed.pcap"
        try Data(Self.pcap([zeros] + packets)).write(to: URL(fileURLWithPath: mixed))
        let warning = "1 of the 25 records of this pcap capture could not be decoded and was skipped (the first: pcap record 0 at byte 24: its H4 packet indicator is 0x00, not an HCI packet type)"

        let text = await runBeaconctl(["verify", manifest, "--input", mixed])
        #expect(text.status == 0, "\(text.output)\(text.error)")
        #expect(text.output.contains("warning: " + warning), "\(text.output)")
        let json = await runBeaconctl(["verify", manifest, "--input", mixed, "--format", "json"])
        #expect(json.output.contains("\"warnings\" : [\n    \"" + warning), "\(json.output)")
        let markdown = await runBeaconctl(["verify", manifest, "--input", mixed, "--format", "markdown"])
        #expect(markdown.output.contains("**Warning:** " + warning), "\(markdown.output)")
        let junit = await runBeaconctl(["verify", manifest, "--input", mixed, "--format", "junit"])
        #expect(junit.output.contains("<property name=\"warning\" value=\"" + warning), "\(junit.output)")

        let only = scratch.path + "/zeros.pcap"
        try Data(Self.pcap([zeros])).write(to: URL(fileURLWithPath: only))
        let refused = await runBeaconctl(["verify", manifest, "--input", only])
        #expect(refused.status == 2, "\(refused.output)")
        #expect(refused.output.isEmpty, "no verdict on an input that held nothing readable")
        #expect(refused.error.contains("holds no Bluetooth packet that can be decoded"), "\(refused.error)")
    }

    @Test("--report writes every format given, by extension or --report-format")
    func reportFiles() async throws {
        let (scratch, manifest, input) = try files()
        let junit = scratch.path + "/verify.xml"
        let markdown = scratch.path + "/verify.md"
        let json = scratch.path + "/verify.report"
        let result = await runBeaconctl([
            "verify", manifest, "--input", input, "--report", json, "--report-format", "json", "--report", junit,
            "--report", markdown, "--format", "json",
        ])
        #expect(result.status == 0, "\(result.error)")
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: junit)))
        #expect(parser.parse(), "the JUnit report is XML")
        #expect(try scratch.read("verify.md").hasPrefix("## beaconctl verify: "))
        let fileJSON = try JSONSerialization.jsonObject(with: Data(try scratch.read("verify.report").utf8)) as? [String: Any]
        #expect(fileJSON?["schema"] as? String == "beaconctl.verify/1")
        #expect(result.output.hasPrefix("{"), "--format json on standard output")
    }

    // MARK: Refusals

    @Test("usage errors exit 2 and name the problem", arguments: [
        ([], "Name the manifest to verify against"),
        (["m.yaml", "--input", "x.jsonl", "--hci", "hci1"], "--input reads a recording and --hci/--snoop drive a controller"),
        (["m.yaml", "--timeout", "0"], "--timeout must be a positive number of seconds up to 1000000000 (about 31 years); got 0."),
        (["m.yaml", "--required-sightings", "0"], "--required-sightings must be at least 1; got 0."),
        (["m.yaml", "--report", "out.data"], "cannot tell the format of report `out.data` from its extension"),
        (["m.yaml", "--report-format", "json"], "1 --report-format for 0 --report"),
        (["m.yaml", "--format", "yaml"], "yaml"),
    ])
    func usageErrors(arguments: [String], message: String) async {
        let result = await runBeaconctl(["verify"] + arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("an unknown venue lists the venues, exit 2")
    func unknownVenue() async throws {
        let (scratch, manifest, input) = try files()
        let result = await runBeaconctl(["verify", manifest, "--input", input, "--venue", "attic"])
        #expect(result.status == 2)
        #expect(result.error.contains("the manifest has no venue `attic`; its venues: shop, back"))
        _ = scratch
    }

    @Test("a manifest with errors is refused with exit 1, before listening")
    func brokenManifest() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", Self.manifest.replacingOccurrences(of: "minor: 2", with: "minor: 1"))
        let result = await runBeaconctl(["verify", manifest, "--input", "/nonexistent.jsonl"])
        #expect(result.status == 1)
        #expect(result.error.contains("error[duplicate-identity]"))
    }

    @Test("an unreadable or malformed recording is an input error naming the place, exit 2")
    func badInput() async throws {
        let (scratch, manifest, _) = try files()
        let missing = await runBeaconctl(["verify", manifest, "--input", scratch.path + "/none.jsonl"])
        #expect(missing.status == 2)
        #expect(missing.error.contains("none.jsonl"), "\(missing.error)")

        // Before every beacon is decided: a bad line is reported, not skipped.
        let lines = Self.allThere.split(separator: "\n")
        let broken = try scratch.write("broken.jsonl", lines.prefix(4).joined(separator: "\n") + "\n{\"uuid\": 12}\n")
        let malformed = await runBeaconctl(["verify", manifest, "--input", broken])
        #expect(malformed.status == 2, "\(malformed.output)")
        #expect(malformed.output.isEmpty, "no report from a stream that broke off")
        #expect(malformed.error.contains("broken.jsonl: line 5: \"uuid\" must be a string"), "\(malformed.error)")
    }

    @Test("the help names both inputs and the report formats")
    func help() async {
        let result = await runBeaconctl(["verify", "--help"])
        #expect(result.status == 0)
        for flag in ["--hci", "--input", "--venue", "--timeout", "--format", "--report", "--report-format"] {
            #expect(result.output.contains(flag), "\(flag) missing from the help")
        }
    }
}

@Suite("beaconctl verify on a terminal")
struct VerifyTerminalTests {
    @Test("progress is drawn in place on standard error and erased before the report; the report is coloured")
    func progressAndColour() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", VerifyCommandTests.manifest)
        let input = try scratch.write("walk.jsonl", VerifyCommandTests.allThere)
        let result = await runBeaconctl(["verify", manifest, "--input", input], terminal: true)
        #expect(result.status == 0)
        #expect(result.error.hasPrefix("\r\u{1B}[Kverify: "), "\(result.error.debugDescription)")
        #expect(result.error.hasSuffix("\r\u{1B}[K"), "the line is erased at the end")
        #expect(result.output.contains("\u{1B}[1;32mok"), "verdicts coloured on a terminal")
        let plain = await runBeaconctl(["verify", manifest, "--input", input], terminal: true, environment: ["NO_COLOR": "1"])
        #expect(!plain.output.contains("\u{1B}["))
    }
}
