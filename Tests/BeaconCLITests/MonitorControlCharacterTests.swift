import Foundation
import Testing

import BeaconCore

@testable import BeaconCLI

/// Region identifiers and beacon names reach a terminal and a program's environment;
/// control characters in them must not act on either. (Manifests refuse them outright;
/// these are the defences behind that, for identifiers from elsewhere.)
@Suite("monitor and control characters")
struct MonitorControlCharacterTests {
    static let uuid = MonitorCommandTests.uuid

    func recording() throws -> String {
        let path = NSTemporaryDirectory() + "monitor-control-\(UUID().uuidString).jsonl"
        try MonitorCommandTests.recording.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("the text log escapes newline, NUL and ESC: one event, one line, no terminal commands")
    func textLogEscapes() async throws {
        let path = try recording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let region = "a\nb\u{0}c\u{1B}[2J\u{9B}d"
        let result = await runBeaconctl(
            ["monitor", "--input", path, "--region", "\(region)=\(Self.uuid)/1", "--exit-period", "5", "--range", "--format", "text"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count > 2)
        #expect(lines.allSatisfy { $0.contains(#"a\nb\0c\u{1B}[2J\u{009B}d"#) }, "\(lines)")
        #expect(!result.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
        #expect(MonitorOutput.printable("Café \t→") == #"Café \t→"#)
    }

    @Test("beacon names in the text log are escaped too")
    func namesEscaped() throws {
        let identity = BeaconIdentity(uuid: try ProximityUUID(parsing: Self.uuid), major: 1, minor: 1)
        let output = MonitorOutput(format: .text, names: [identity: "door\u{1B}]0;owned\u{7}"], hook: nil)
        let captured = CapturedOutput()
        Console.$current.withValue(captured.console()) {
            output.report([RegionEvent(kind: .enter, regionIdentifier: "shop", state: .inside, time: PassTime(sinceOrigin: .seconds(1)), beacons: [identity])])
        }
        #expect(captured.output == #"    1.0 s  enter  shop (inside): door\u{1B}]0;owned\u{07}"# + "\n")
    }

    @Test("--exec is not run with a value a NUL would cut short; the log says why")
    func execRefusesNul() async throws {
        let path = try recording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let folder = NSTemporaryDirectory() + "monitor-nul-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = folder + "/hook.sh"
        try "printf '%s\\n' \"$BEACONCTL_REGION\" >> \"$OUT\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        let out = folder + "/events.txt"
        let result = await runBeaconctl(
            ["monitor", "--input", path, "--region", "front\u{0}door=\(Self.uuid)/1", "--region", "fine=\(Self.uuid)/1", "--exit-period", "5", "--exec", "/bin/sh \(script)"],
            environment: ["OUT": out, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains(#"--exec /bin/sh not run for enter front\0door: BEACONCTL_REGION would hold a NUL character, which an environment variable cannot carry; give the region an identifier without control characters"#), "\(result.error)")
        // The other region's events still run the program.
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "fine\nfine\n")
    }
}
