import BeaconFleet
import BeaconTestKit
import Foundation
import Testing

@testable import BeaconCLI

@Suite("beaconctl verify --watch")
struct VerifyWatchCommandTests {
    static let uuid = ManifestFixtures.cornerShopUUID
    static let door = "C0:00:00:00:01:01"
    static let till = "C0:00:00:00:01:02"
    static let storeRoom = "C0:00:00:00:02:01"

    /// One reception a second from `start` through `end`, as `scan --format jsonl` writes them.
    static func everySecond(
        major: Int, minor: Int, power: Int = -59, address: String, from start: Int = 0, through end: Int,
        receiver: String = "hci1", rssi: Int = -70
    ) -> [(time: Double, line: String)] {
        (start...end).map { second in
            (Double(second), #"{"uuid":"\#(uuid)","major":\#(major),"minor":\#(minor),"measured_power":\#(power),"address":"\#(address)","address_random":true,"rssi":\#(rssi),"time":\#(second),"receiver":"\#(receiver)"}"#)
        }
    }

    /// Every beacon of the corner shop, heard every second for a minute.
    static func wholeShop(through end: Int = 60) -> [(time: Double, line: String)] {
        everySecond(major: 1, minor: 1, address: door, through: end)
            + everySecond(major: 1, minor: 2, address: till, through: end)
            + everySecond(major: 2, minor: 1, address: storeRoom, through: end)
    }

    /// Runs `verify --watch` on `recording` with a silence of 10 s.
    static func watch(_ recording: String, _ extra: [String] = [], terminal: Bool = false) async throws -> CommandResult {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", ManifestFixtures.cornerShop)
        let input = try scratch.write("walk.jsonl", recording)
        let result = await runBeaconctl(["verify", manifest, "--watch", "--silence", "10", "--input", input] + extra, terminal: terminal)
        _ = scratch
        return result
    }

    static func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    static func changes(_ output: String) throws -> [String] {
        try objects(output).filter { $0["event"] as? String == "change" }.map { object in
            let name = object["beacon"] as? String ?? "minor \(object["minor"] ?? "?")"
            return "\(object["time"] ?? "?") \(name) \(object["previous"] as? String ?? "-")→\(object["state"] ?? "?")"
        }
    }

    @Test("every beacon heard throughout: one ok each, a stats line at 60 s, a passing summary, exit 0")
    func allOK() async throws {
        let result = try await Self.watch(VerifyCommandTests.recording(Self.wholeShop(through: 70)))
        #expect(result.status == 0, "\(result.error)")
        #expect(try Self.changes(result.output) == ["0 door -→ok", "0 till -→ok", "0 store-room -→ok"])
        let objects = try Self.objects(result.output)
        let stats = try #require(objects.first { $0["event"] as? String == "stats" })
        #expect(stats["time"] as? Double == 60)
        #expect(stats["sightings"] as? Int == 181)
        #expect(stats["lost_sightings"] as? Int == 0)
        #expect((stats["beacons"] as? [String: Int]) == ["ok": 3, "missing": 0, "wrong-power": 0, "duplicate": 0, "unmonitored": 0, "unknown": 0])
        let summary = try #require(objects.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["end"] as? String == "input-ended")
        #expect(summary["passed"] as? Bool == true)
        #expect(summary["time"] as? Double == 70)
    }

    @Test("a beacon that stops is missing silence after its last reception, and the end of input fails")
    func beaconStops() async throws {
        let recording = VerifyCommandTests.recording(
            Self.everySecond(major: 1, minor: 1, address: Self.door, through: 5),
            Self.everySecond(major: 1, minor: 2, address: Self.till, through: 30),
            Self.everySecond(major: 2, minor: 1, address: Self.storeRoom, through: 30))
        let result = try await Self.watch(recording)
        #expect(result.status == 1)
        #expect(try Self.changes(result.output) == ["0 door -→ok", "0 till -→ok", "0 store-room -→ok", "15 door ok→missing"])
        let missing = try #require(try Self.objects(result.output).first { $0["state"] as? String == "missing" })
        #expect(missing["uuid"] as? String == Self.uuid)
        #expect(missing["venue"] as? String == "shop")
        #expect((missing["reason"] as? String)?.hasPrefix("not heard for 10 s on any receiver (last at 5 s)") == true)
        let receivers = try #require(missing["receivers"] as? [[String: Any]])
        #expect(receivers.count == 1)
        #expect(receivers.first?["receiver"] as? String == "hci1")
        #expect(receivers.first?["rssi"] as? Int == -70)
        #expect(receivers.first?["sightings"] as? Int == 6)
        #expect(receivers.first?["last_seen"] as? Double == 5)
        let summary = try #require(try Self.objects(result.output).last)
        #expect(summary["passed"] as? Bool == false)
        #expect((summary["not_ok"] as? [[String: String]]) == [["beacon": "door", "state": "missing"]])
    }

    @Test("a clone at a second address is a duplicate; the same address heard by two receivers is not")
    func duplicates() async throws {
        let clone = try await Self.watch(VerifyCommandTests.recording(
            Self.wholeShop(through: 20), Self.everySecond(major: 1, minor: 2, address: "C0:00:00:00:09:99", from: 3, through: 5)))
        #expect(try Self.changes(clone.output) == [
            "0 door -→ok", "0 till -→ok", "0 store-room -→ok", "3 till ok→duplicate", "15 till duplicate→ok",
        ])
        #expect(clone.status == 0, "ok again by the end")
        let object = try #require(try Self.objects(clone.output).first { $0["state"] as? String == "duplicate" })
        #expect((object["addresses"] as? [String]) == [Self.till, "C0:00:00:00:09:99"])

        let twoReceivers = try await Self.watch(VerifyCommandTests.recording(
            Self.wholeShop(through: 20), Self.everySecond(major: 1, minor: 2, address: Self.till, through: 20, receiver: "pi-kitchen", rssi: -85)))
        #expect(try Self.changes(twoReceivers.output) == ["0 door -→ok", "0 till -→ok", "0 store-room -→ok"])
        #expect(twoReceivers.status == 0)
    }

    @Test("a wrong measured power, and an unexpected identity that appears and is gone")
    func wrongPowerAndUnexpected() async throws {
        let result = try await Self.watch(VerifyCommandTests.recording(
            Self.everySecond(major: 1, minor: 1, power: -40, address: Self.door, through: 30),
            Self.everySecond(major: 1, minor: 2, address: Self.till, through: 30),
            Self.everySecond(major: 2, minor: 1, address: Self.storeRoom, through: 30),
            Self.everySecond(major: 1, minor: 9, address: "C0:00:00:00:01:09", from: 2, through: 4)))
        #expect(result.status == 1)
        #expect(try Self.changes(result.output) == [
            "0 door -→wrong-power", "0 till -→ok", "0 store-room -→ok", "2 minor 9 -→unexpected", "14 minor 9 unexpected→gone",
        ])
        let objects = try Self.objects(result.output)
        let wrong = try #require(objects.first { $0["state"] as? String == "wrong-power" })
        #expect((wrong["reason"] as? String)?.contains("advertises measured power -40 dBm, expected -59 dBm") == true)
        let unexpected = try #require(objects.first { $0["state"] as? String == "unexpected" })
        #expect(unexpected["beacon"] == nil)
        #expect(unexpected["previous"] == nil)
        let summary = try #require(objects.last)
        #expect(summary["gone"] as? Int == 1)
        #expect(summary["unexpected"] as? Int == 0)
    }

    @Test("an unexpected identity still on the air at the end fails")
    func unexpectedAtTheEnd() async throws {
        let result = try await Self.watch(VerifyCommandTests.recording(
            Self.wholeShop(through: 5), Self.everySecond(major: 1, minor: 9, address: "C0:00:00:00:01:09", through: 5)))
        #expect(result.status == 1)
        #expect(try Self.objects(result.output).last?["passed"] as? Bool == false)
    }

    @Test("on a terminal: a readable log on standard output, statistics on standard error")
    func textLog() async throws {
        let recording = VerifyCommandTests.recording(
            Self.everySecond(major: 1, minor: 1, address: Self.door, through: 5),
            Self.everySecond(major: 1, minor: 2, address: Self.till, through: 61),
            Self.everySecond(major: 2, minor: 1, address: Self.storeRoom, through: 61))
        let result = try await Self.watch(recording, ["--color", "never"], terminal: true)
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "    0.0 s  ok           door \(Self.uuid)/1/1: heard from \(Self.door) with measured power -59 dBm, as expected; hci1 -70 dBm ×1")
        #expect(lines.contains { $0.hasPrefix("   15.0 s  missing      door \(Self.uuid)/1/1 (was ok): not heard for 10 s on any receiver (last at 5 s)") })
        #expect(lines.last == "failed at the end of input: door missing")
        #expect(result.error.contains("   60.0 s  stats  127 sightings, 0 lost; 2 ok, 1 missing, 0 wrong-power, 0 duplicate, 0 unmonitored; 0 unexpected"), "\(result.error)")
        #expect(result.error.contains("   61.0 s  stats  130 sightings, 0 lost; 2 ok, 1 missing"), "the final statistics")
    }

    @Test("--format jsonl on a terminal writes JSON lines")
    func jsonlOnTerminal() async throws {
        let result = try await Self.watch(VerifyCommandTests.recording(Self.wholeShop(through: 2)), ["--format", "jsonl"], terminal: true)
        #expect(result.status == 0)
        #expect(try Self.changes(result.output).count == 3)
    }

    @Test("--exec runs the program per change, with the change in BEACONCTL_* variables")
    func exec() async throws {
        let scratch = try ScratchFolder()
        let script = try scratch.write("hook.sh", """
            printf '%s|%s|%s|%s|%s|%s|%s\\n' "$BEACONCTL_EVENT" "$BEACONCTL_BEACON" "$BEACONCTL_IDENTITY" "$BEACONCTL_PREVIOUS_STATE" "$BEACONCTL_STATE" "$BEACONCTL_TIME" "$BEACONCTL_RECEIVERS" >> "\(scratch.path)/events.txt"
            """)
        let recording = VerifyCommandTests.recording(
            Self.everySecond(major: 1, minor: 1, address: Self.door, through: 5),
            Self.everySecond(major: 1, minor: 2, address: Self.till, through: 20),
            Self.everySecond(major: 2, minor: 1, address: Self.storeRoom, through: 20))
        let result = try await Self.watch(recording, ["--exec", "/bin/sh \(script)"])
        #expect(result.status == 1, "\(result.error)")
        let written = try String(contentsOfFile: scratch.path + "/events.txt", encoding: .utf8)
        #expect(written == """
            change|door|\(Self.uuid)/1/1||ok|0.0|hci1=-70
            change|till|\(Self.uuid)/1/2||ok|0.0|hci1=-70
            change|store-room|\(Self.uuid)/2/1||ok|0.0|hci1=-70
            change|door|\(Self.uuid)/1/1|ok|missing|15.0|hci1=-70

            """)
    }

    #if os(Linux)
    @Test("live on a pipe: beacons that go quiet are reported missing by the clock alone; SIGTERM ends the watch with a summary, exit 0",
          .timeLimit(.minutes(2)))
    func livePipe() async throws {
        let binary = try #require(CalibrateCommandTests.executable(), "build beaconctl first (`swift build`): this test runs it as a child process")
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", ManifestFixtures.cornerShop)
        let watch = try LiveWatchChild(binary, ["verify", manifest, "--watch", "--silence", "0.5", "--input", "-", "--format", "jsonl"])
        watch.write(VerifyCommandTests.recording(Self.wholeShop(through: 0)))

        // Nothing more is written and the pipe stays open: only the watch's clock can tell.
        var output = ""
        for await chunk in watch.chunks {
            output += String(decoding: chunk, as: UTF8.self)
            // Gone quiet after being heard (on a loaded machine, a first silence may also pass
            // before the pipe is read: those changes come from no state, not from ok).
            if output.components(separatedBy: #""state":"missing","previous":"ok""#).count == 4 { break }
        }
        #expect(try Self.changes(output).suffix(3).map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == [
            "door ok→missing", "till ok→missing", "store-room ok→missing",
        ])
        let (status, rest, _) = try await watch.stop()
        output += rest
        #expect(status == .exited(0))
        let summary = try #require(try Self.objects(output).last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["end"] as? String == "interrupted")
        #expect((summary["beacons"] as? [String: Int])?["missing"] == 3)
    }

    @Test("SIGTERM while an --exec program hangs: the watch waits for it at most ProgramHook.stopWait, says what was not run, and ends with its summary",
          .timeLimit(.minutes(2)))
    func stopWithHungProgram() async throws {
        let binary = try #require(CalibrateCommandTests.executable(), "build beaconctl first (`swift build`): this test runs it as a child process")
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", ManifestFixtures.cornerShop)
        let hanging = try HangingProgram(in: scratch)
        defer { hanging.killAll() }
        let watch = try LiveWatchChild(
            binary, ["verify", manifest, "--watch", "--input", "-", "--format", "jsonl", "--exec", hanging.command])
        watch.write(VerifyCommandTests.recording(Self.wholeShop(through: 0)))
        // Three changes, so three runs of the program: the first hangs, two wait behind it.
        var output = ""
        for await chunk in watch.chunks {
            output += String(decoding: chunk, as: UTF8.self)
            if try Self.changes(output).count == 3 { break }
        }
        // Ended by the bounded wait: without it, the stop would wait for the program for ever
        // (until StopDeadline's exit 3, without the summary).
        let (status, rest, errors) = try await watch.stop()
        output += rest
        #expect(status == .exited(0), "\(errors)")
        #expect(errors.contains("--exec /bin/sh was still running 1 s after the stop began; left running, and "), "\(errors)")
        #expect(!errors.contains("still stopping"), "\(errors)")
        let summary = try #require(try Self.objects(output).last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["end"] as? String == "interrupted")
    }
    #endif

    @Test("options of a one-shot pass, and watch options without --watch, are usage errors", arguments: [
        (["--watch", "--timeout", "5"], "--timeout ends a one-shot pass; --watch runs until SIGINT/SIGTERM or the end of --input: leave --timeout out."),
        (["--watch", "--required-sightings", "2"], "--required-sightings is how a one-shot pass decides"),
        (["--watch", "--report", "out.json"], "--report writes the report of a one-shot pass"),
        (["--watch", "--format", "junit"], "--format junit is a one-shot report; --watch writes text or jsonl."),
        (["--watch", "--silence", "0"], "--silence must be a positive number of seconds"),
        (["--watch", "--exec", " "], "--exec needs a program to run."),
        (["--silence", "10"], "--silence only applies with --watch; add --watch or leave it out."),
        (["--silence", "10", "--exec", "x"], "--silence and --exec only apply with --watch; add --watch or leave them out."),
        (["--format", "jsonl"], "--format jsonl is the event stream of `verify --watch`; verify without --watch writes one report"),
        (["--home-assistant"], "--home-assistant only applies with --watch; add --watch or leave it out."),
        (["--state", "w.state"], "--state only applies with --watch; add --watch or leave it out."),
        (["--watch", "--home-assistant"], "--home-assistant announces the beacons on the broker the changes go to: add --mqtt"),
        (["--watch", "--mqtt", "mqtt://h/p", "--discovery-prefix", "ha"], "--discovery-prefix applies with --home-assistant"),
        (["--watch", "--mqtt", "mqtt://h/p", "--home-assistant", "--discovery-prefix", "ha/+"], "--discovery-prefix ha/+: topic levels"),
        (["--stall-after", "5"], "--stall-after only applies with --watch; add --watch or leave it out."),
        (["--watch", "--stall-after", "5"], "--stall-after is for a pipe (--input - or a FIFO)"),
        (["--watch", "--input", "mqtt://h/p", "--stall-after", "5"], "--stall-after is for a pipe (--input - or a FIFO)"),
        (["--watch", "--input", "-", "--stall-after", "30"], "--stall-after 30 must be shorter than --silence (30 s)"),
        (["--watch", "--input", "-", "--stall-after", "0"], "--stall-after must be a positive number of seconds"),
        (["--watch", "--input", "-", "--gateway", "espresense"], "--gateway names what publishes on a broker"),
    ])
    func usageErrors(arguments: [String], message: String) async {
        let result = await runBeaconctl(["verify", "m.yaml"] + arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("input-lost and input-restored in JSON lines, the log and --exec's variables")
    func inputEvents() {
        let lost = AuditInputEvent(
            time: 42, kind: .lost, input: "mqtt://broker/fleet", reason: "broker:1883: connection lost", unixTime: 1_763_463_972.5)
        #expect(AuditJSONLines.encode(lost) == #"{"event":"input-lost","time":42,"input":"mqtt://broker/fleet","reason":"broker:1883: connection lost","at":"2025-11-18T11:06:12.500Z"}"#)
        var restored = lost
        restored.kind = .restored
        restored.time = 45.25
        restored.lostFor = 3.25
        restored.unixTime = nil
        #expect(AuditJSONLines.encode(restored) == #"{"event":"input-restored","time":45.25,"input":"mqtt://broker/fleet","reason":"broker:1883: connection lost","lost_for":3.25}"#)
        #expect(WatchOutput.text(lost).contains("input-lost"))
        #expect(WatchOutput.text(lost).contains("mqtt://broker/fleet: broker:1883: connection lost; no beacon is judged by silence until it is back"))
        #expect(WatchOutput.text(restored).contains("mqtt://broker/fleet delivers again after 3.3 s"))
        let variables = WatchEventHook.variables(for: restored)
        #expect(variables["BEACONCTL_EVENT"] == "input-restored")
        #expect(variables["BEACONCTL_INPUT"] == "mqtt://broker/fleet")
        #expect(variables["BEACONCTL_LOST_FOR"] == "3.25")
    }

    @Test("receiver-offline and receiver-online in the log and --exec's variables; the statistics count the receivers")
    func receiverEvents() {
        let offline = AuditReceiverEvent(
            time: 42, receiver: "store-12", state: .offline, previous: .online, cause: .silence,
            reason: "none of its sightings for 30 s", beacons: ["door", "till"], lastSeen: 12)
        #expect(WatchOutput.text(offline) == "   42.0 s  receiver-offline  store-12 (was online): none of its sightings for 30 s; no receiver monitors door, till (unmonitored, not missing)")
        var online = offline
        online.state = .online
        online.previous = nil
        online.cause = .sighting
        online.reason = "first heard"
        online.beacons = []
        #expect(WatchOutput.text(online) == "   42.0 s  receiver-online   store-12: first heard")
        let variables = WatchEventHook.variables(for: offline)
        #expect(variables["BEACONCTL_EVENT"] == "receiver-offline")
        #expect(variables["BEACONCTL_RECEIVER"] == "store-12")
        #expect(variables["BEACONCTL_STATE"] == "offline")
        #expect(variables["BEACONCTL_PREVIOUS_STATE"] == "online")
        #expect(variables["BEACONCTL_CAUSE"] == "silence")
        #expect(variables["BEACONCTL_BEACONS"] == "door,till")
        #expect(variables["BEACONCTL_BEACON_COUNT"] == "2")
        var many = offline
        many.beacons = (0..<20_000).map { "beacon-\($0)" }
        let cut = WatchEventHook.variables(for: many)
        #expect((cut["BEACONCTL_BEACONS"]?.utf8.count ?? 0) <= WatchEventHook.maximumBeaconListBytes)
        #expect(cut["BEACONCTL_BEACON_COUNT"] == "20000")
        var statistics = AuditStatistics()
        statistics.receiversOnline = 11
        statistics.receiversOffline = 1
        #expect(WatchOutput.counts(AuditStatusReport(time: 60, statistics: statistics, lostSightings: 0)).contains("; 11 receivers online, 1 offline"))
    }

    @Test("provision refuses the event stream format")
    func provisionRefusesJSONLines() async {
        let result = await runBeaconctl(["provision", "m.yaml", "--hci", "virtual", "--verify-hci", "virtual", "--format", "jsonl"])
        #expect(result.status == 2)
        #expect(result.error.contains("--format jsonl is the event stream of `verify --watch`; provision writes one report"), "\(result.error)")
    }

    @Test("the help explains --watch and its exit status")
    func help() async {
        let result = await runBeaconctl(["verify", "--help"])
        for text in ["--watch", "--silence", "--exec", "exits 0 when every beacon is ok"] {
            #expect(result.output.contains(text), "\(text) missing from the help")
        }
    }
}
