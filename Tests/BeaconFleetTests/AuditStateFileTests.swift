import BeaconCore
import BeaconFleet
import BeaconTestKit
import FleetManifest
import Foundation
import Testing

@Suite("the watch's state file (--state)")
struct AuditStateFileTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func change(_ beacon: String?, _ state: AuditState) -> AuditEvent {
        AuditEvent(
            time: 1, beaconID: beacon, venueID: "shop", identity: VerificationScript.identity(minor: 1), previous: nil,
            state: state, reason: "", receivers: [], addresses: [])
    }

    @Test("changes are kept whole in the file, restored states included; read back as they were; no temporary file left")
    func roundTrip() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("watch.state").path
        #expect(try AuditStateFile.read(path) == nil)
        let file = AuditStateFile(path: path, restored: ["kept": .missing], unixTime: { 1_764_141_600.5 })
        file.deliver(Self.change("door", .ok))
        file.deliver(Self.change("till", .wrongPower))
        file.deliver(Self.change(nil, .unexpected))
        file.deliver(Self.change("door", .missing))
        #expect(await file.flush() == nil)
        #expect(file.writes >= 1)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == """
            {"state_file":"beaconctl-watch","version":1,"written_at":1764141600.5}
            {"beacon":"door","state":"missing"}
            {"beacon":"kept","state":"missing"}
            {"beacon":"till","state":"wrong-power"}

            """)
        let read = try #require(try AuditStateFile.read(path))
        #expect(read.beacons == ["door": .missing, "kept": .missing, "till": .wrongPower])
        #expect(read.writtenAt == 1_764_141_600.5)
        // Written through a temporary file that does not stay behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["watch.state"])
    }

    @Test("battery histories are kept in the beacons' lines, written when a day is gained, read back; a bad one is refused")
    func batteryHistories() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("watch.state").path
        let file = AuditStateFile(path: path, unixTime: { 1_764_141_600 })
        file.deliver(Self.change("door", .ok))
        var door = VerificationScript.beacon("door", minor: 1)
        door.battery = BeaconBattery(lowThreshold: .millivolts(2500), type: nil)
        let history: [BatteryForecast.DailyMedian] = [.init(day: 20_400, value: 2710), .init(day: 20_401, value: 2702)]
        let standing = BatteryStanding(
            beacon: door, standing: .ok, level: .millivolts(2702), lastReading: 5, source: .eddystoneTLM,
            forecast: BatteryForecast(history: history, threshold: 2500), history: history)
        file.deliver(AuditStatusReport(
            time: 60, statistics: AuditStatistics(), lostSightings: 0, batteries: [standing]))
        #expect(await file.flush() == nil)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#"{"beacon":"door","state":"ok","battery_history":"20400:2710,20401:2702"}"#))
        #expect(try AuditStateFile.read(path)?.batteries == ["door": history])
        try text.replacingOccurrences(of: "20401:2702", with: "20401:lots").write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try AuditStateFile.read(path)
        } throws: { error in
            "\(error)".contains(":2: \"battery_history\" must be day:value pairs")
        }
    }

    @Test("a file that is not a watch's state is refused with its line and what to do", arguments: [
        ("hello\n", ":1:"),
        ("{\"beacon\":\"door\",\"state\":\"ok\"}\n", "no beaconctl-watch header"),
        ("{\"state_file\":\"beaconctl-watch\",\"version\":1,\"written_at\":5}\n{\"beacon\":\"door\",\"state\":\"gone\"}\n", ":2: expected"),
        ("", "empty"),
    ])
    func refused(content: String, message: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("watch.state").path
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try AuditStateFile.read(path)
        } throws: { error in
            "\(error)".contains(message) && ("\(error)".contains("delete it") || "\(error)".contains("expected"))
        }
    }

    @Test("a state file that cannot be written is said at the flush")
    func unwritable() async throws {
        let file = AuditStateFile(path: "/nonexistent-folder/watch.state")
        file.deliver(Self.change("door", .ok))
        let failure = try #require(await file.flush())
        #expect(failure.contains("the watch's state: cannot write /nonexistent-folder/watch.state"), "\(failure)")
    }
}
