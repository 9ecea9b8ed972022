import Foundation
import Testing

@testable import BeaconCLI

@Suite("beaconctl monitor")
struct MonitorCommandTests {
    static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"
    static let other = "00000000-0000-0000-0000-000000000001"

    static func line(
        uuid: String = uuid, major: Int = 1, minor: Int, seconds: Double, rssi: Int = -65, receiver: String = "hci0"
    ) -> String {
        #"{"uuid":"\#(uuid)","major":\#(major),"minor":\#(minor),"measured_power":-59,"address":"C4:5B:BE:00:00:0\#(minor)","address_random":false,"rssi":\#(rssi),"time":\#(seconds),"receiver":"\#(receiver)"}"#
    }

    /// Beacon 1/1 heard at 1 Hz from 0 to 10 s, then only a foreign beacon, whose sightings
    /// carry the recording's clock to 40 s.
    static let recording: String = (
        (0...10).map { line(minor: 1, seconds: Double($0)) }
            + (11...40).map { line(uuid: other, minor: 9, seconds: Double($0)) }
    ).joined(separator: "\n") + "\n"

    func write(_ text: String, name: String) throws -> String {
        let path = NSTemporaryDirectory() + "monitor-\(UUID().uuidString)-\(name)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [
        ([], "no regions: give --region ID=UUID[/MAJOR[/MINOR]] or --manifest with a `regions:` list."),
        (["--region", "store"], "--region store: no identifier; write ID=UUID, ID=UUID/MAJOR or ID=UUID/MAJOR/MINOR"),
        (["--region", "store=\(uuid)/1/2/3"], "--region store=\(uuid)/1/2/3: write ID=UUID, ID=UUID/MAJOR or ID=UUID/MAJOR/MINOR"),
        (["--region", "store=\(uuid)/70000"], "--region store=\(uuid)/70000: the major must be 0 to 65535; got \"70000\""),
        (["--region", "s=\(uuid)", "--exit-period", "0"], "--exit-period must be a positive number of seconds up to 1000000000 (about 31 years); got 0."),
        (["--region", "s=\(uuid)", "--min-sightings", "0"], "--min-sightings must be at least 1; got 0."),
        (["--region", "s=\(uuid)", "--state-every", "0"], "--state-every must be a positive number of seconds up to 1000000000 (about 31 years); got 0."),
        (["--region", "s=\(uuid)", "--input", "x", "--hci", "hci1"], "--input monitors a recording; --hci drives a controller: pass one or the other."),
    ])
    func badFlagsAreUsageErrors(arguments: [String], message: String) async {
        let result = await runBeaconctl(["monitor"] + arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("Error: " + message), "\(result.error)")
    }

    @Test("two regions with one identifier are refused")
    func duplicateIdentifiers() async {
        let result = await runBeaconctl(["monitor", "--region", "a=\(Self.uuid)", "--region", "a=\(Self.uuid)/1", "--input", "-"])
        #expect(result.status == 2)
        #expect(result.error.contains("two regions are called `a`"), "\(result.error)")
    }

    @Test("JSON lines: state on start, enter, periodic state, exit after the exit period, at recording times")
    func jsonLines() async throws {
        let path = try write(Self.recording, name: "walk.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = await runBeaconctl([
            "monitor", "--input", path, "--region", "store=\(Self.uuid)/1", "--region", "door=\(Self.uuid)/1/1",
            "--region", "depot=\(Self.uuid)/2", "--notify-state-on-start", "--exit-period", "5", "--state-every", "20",
        ])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        let beacon = "\"\(Self.uuid)/1/1\""
        #expect(lines == [
            #"{"event":"state","region":"store","state":"inside","time":0,"beacons":[\#(beacon)],"receivers":[{"receiver":"hci0","sightings":1,"strongest_rssi":-65}]}"#,
            #"{"event":"enter","region":"store","state":"inside","time":0,"beacons":[\#(beacon)],"receivers":[{"receiver":"hci0","sightings":1,"strongest_rssi":-65}]}"#,
            #"{"event":"state","region":"door","state":"inside","time":0,"beacons":[\#(beacon)],"receivers":[{"receiver":"hci0","sightings":1,"strongest_rssi":-65}]}"#,
            #"{"event":"enter","region":"door","state":"inside","time":0,"beacons":[\#(beacon)],"receivers":[{"receiver":"hci0","sightings":1,"strongest_rssi":-65}]}"#,
            #"{"event":"state","region":"depot","state":"outside","time":5,"beacons":[],"receivers":[]}"#,
            #"{"event":"exit","region":"store","state":"outside","time":15,"beacons":[\#(beacon)],"receivers":[{"receiver":"hci0","sightings":11,"strongest_rssi":-65}]}"#,
            #"{"event":"exit","region":"door","state":"outside","time":15,"beacons":[\#(beacon)],"receivers":[{"receiver":"hci0","sightings":11,"strongest_rssi":-65}]}"#,
            #"{"event":"state","region":"store","state":"outside","time":20,"beacons":[],"receivers":[]}"#,
            #"{"event":"state","region":"door","state":"outside","time":20,"beacons":[],"receivers":[]}"#,
            #"{"event":"state","region":"depot","state":"outside","time":20,"beacons":[],"receivers":[]}"#,
            #"{"event":"state","region":"store","state":"outside","time":40,"beacons":[],"receivers":[]}"#,
            #"{"event":"state","region":"door","state":"outside","time":40,"beacons":[],"receivers":[]}"#,
            #"{"event":"state","region":"depot","state":"outside","time":40,"beacons":[],"receivers":[]}"#,
        ])
    }

    @Test("two receivers' recordings, each timed from its own start: the second joins the clock where the first had reached")
    func aClockPerReceiver() async throws {
        // Box A's scan: the door at 1 Hz for 20 s. Box B's scan, appended, started 100 s
        // before A's: its times count from its own start. On one clock, B's first sighting
        // would jump it 80 s ahead and walk the door out of its region.
        let recording = ((0...20).map { Self.line(minor: 1, seconds: Double($0), receiver: "a:hci0") }
            + (100...105).map { Self.line(major: 2, minor: 2, seconds: Double($0), receiver: "b:hci0") })
            .joined(separator: "\n") + "\n"
        let path = try write(recording, name: "two-boxes.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = await runBeaconctl([
            "monitor", "--input", path, "--region", "door=\(Self.uuid)/1/1", "--region", "depot=\(Self.uuid)/2", "--exit-period", "10",
        ])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines == [
            #"{"event":"enter","region":"door","state":"inside","time":0,"beacons":["\#(Self.uuid)/1/1"],"receivers":[{"receiver":"a:hci0","sightings":1,"strongest_rssi":-65}]}"#,
            #"{"event":"enter","region":"depot","state":"inside","time":20,"beacons":["\#(Self.uuid)/2/2"],"receivers":[{"receiver":"b:hci0","sightings":1,"strongest_rssi":-65}]}"#,
        ], "no exit: B's 5 s follow A's 20 s")
    }

    @Test("--range reports the region's beacons, nearest first, while inside")
    func ranging() async throws {
        let text = (0..<30).flatMap { tick in
            [Self.line(minor: 1, seconds: Double(tick) / 10, rssi: -80), Self.line(minor: 2, seconds: Double(tick) / 10 + 0.05, rssi: -60)]
        }.joined(separator: "\n")
        let path = try write(text, name: "two.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = await runBeaconctl(["monitor", "--input", path, "--region", "store=\(Self.uuid)/1", "--range", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.error)")
        let ranges = result.output.split(separator: "\n").filter { $0.contains(#""event":"range""#) }
        #expect(ranges.count == 2)
        #expect(ranges.last?.hasPrefix(#"{"event":"range","region":"store","time":2,"beacons":[{"uuid":"\#(Self.uuid)","major":1,"minor":2,"#) == true)
        // Each distance comes with the interval that holds the truth for 68 % of readings.
        let last = String(try #require(ranges.last))
        func number(_ key: String) throws -> Double {
            let range = try #require(last.range(of: "\"\(key)\":"), "\(key) in \(last)")
            return try #require(Double(last[range.upperBound...].prefix { "0123456789.".contains($0) }))
        }
        let accuracy = try number("accuracy")
        #expect(try number("accuracy_low") < accuracy && accuracy < number("accuracy_high"))
        // The log shows it as `1.2 m (0.9–2.4)`.
        let log = await runBeaconctl(["monitor", "--input", path, "--region", "store=\(Self.uuid)/1", "--range", "--format", "text"])
        let rangeLine = try #require(log.output.split(separator: "\n").last { $0.contains("  range  ") })
        #expect(rangeLine.contains(" m (") && rangeLine.contains("–") && rangeLine.hasSuffix(")"), "\(rangeLine)")
    }

    @Test("a terminal gets a readable log")
    func textLog() async throws {
        let path = try write(Self.recording, name: "walk.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = await runBeaconctl(["monitor", "--input", path, "--region", "store=\(Self.uuid)/1", "--exit-period", "5"], terminal: true)
        #expect(result.output == """
                0.0 s  enter  store (inside): \(Self.uuid)/1/1
               15.0 s  exit   store (outside): \(Self.uuid)/1/1

            """)
    }

    @Test("with several receivers, the log says which heard the stay and how strongly, and ranges per receiver")
    func textLogSeveralReceivers() async throws {
        let text = (0...4).flatMap { second in
            [
                Self.line(minor: 1, seconds: Double(second), rssi: -70, receiver: "store-1:hci0"),
                Self.line(minor: 1, seconds: Double(second) + 0.5, rssi: -58, receiver: "store-1:hci1"),
            ]
        }.joined(separator: "\n") + "\n" + Self.line(uuid: Self.other, minor: 9, seconds: 20, receiver: "store-1:hci0") + "\n"
        let path = try write(text, name: "two-receivers.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = await runBeaconctl(["monitor", "--input", path, "--region", "store=\(Self.uuid)/1", "--exit-period", "5"], terminal: true)
        #expect(result.status == 0, "\(result.error)")
        // hci1's times count from its own start: its first sighting (0.5) joins the clock
        // where hci0 had put it (0), so its last (4.5) is at 4 and the exit at 9.
        #expect(result.output == """
                0.0 s  enter  store (inside): \(Self.uuid)/1/1
                9.0 s  exit   store (outside): \(Self.uuid)/1/1; heard by store-1:hci1 (-58 dBm), store-1:hci0 (-70 dBm)

            """)
        let ranged = await runBeaconctl(["monitor", "--input", path, "--region", "store=\(Self.uuid)/1", "--range", "--format", "jsonl"])
        let last = ranged.output.split(separator: "\n").last { $0.contains(#""event":"range""#) }.map(String.init) ?? ""
        #expect(last.contains(#""receiver":"store-1:hci1"}"#) && last.contains(#""receiver":"store-1:hci0"}"#), "\(last)")
    }

    @Test("--exec: the event reaches the program in environment variables only, never interpreted")
    func execEnvironment() async throws {
        let folder = NSTemporaryDirectory() + "monitor-exec-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = folder + "/hook.sh"
        try """
            printf '%s|%s|%s|%s|%s|%s\\n' "$BEACONCTL_EVENT" "$BEACONCTL_REGION" "$BEACONCTL_STATE" "$BEACONCTL_BEACONS" "$BEACONCTL_TIME" "$BEACONCTL_RECEIVERS" >> "$OUT"
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let recording = try write(Self.recording, name: "walk.jsonl")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        // A region identifier a shell would run; the identifier is data, nothing more.
        let hostile = "x$(touch \(folder)/pwned);`touch \(folder)/pwned2`'\""
        let out = folder + "/events.txt"
        let result = await runBeaconctl(
            ["monitor", "--input", recording, "--region", "\(hostile)=\(Self.uuid)/1", "--exit-period", "5", "--exec", "/bin/sh \(script)"],
            environment: ["OUT": out, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.error)")
        let written = try String(contentsOfFile: out, encoding: .utf8)
        #expect(written == """
            enter|\(hostile)|inside|\(Self.uuid)/1/1|0.0|hci0
            exit|\(hostile)|outside|\(Self.uuid)/1/1|15.0|hci0

            """)
        #expect(!FileManager.default.fileExists(atPath: folder + "/pwned"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/pwned2"))
    }

    @Test("--exec with a program that cannot run is logged, monitoring goes on")
    func execMissingProgram() async throws {
        let recording = try write(Self.recording, name: "walk.jsonl")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let result = await runBeaconctl(
            ["monitor", "--input", recording, "--region", "s=\(Self.uuid)/1", "--exit-period", "5", "--exec", "/nonexistent/hook"])
        #expect(result.status == 0)
        #expect(result.output.split(separator: "\n").count == 2)
        #expect(result.error.contains("--exec /nonexistent/hook could not run: No such file or directory"), "\(result.error)")
    }
}
