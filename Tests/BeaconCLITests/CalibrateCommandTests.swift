import BeaconTestKit
import ClockTestKit
import Foundation
import ProcessTestKit
import Testing

@testable import BeaconCLI

#if canImport(Glibc)
import Glibc
#endif

@Suite("beaconctl calibrate")
struct CalibrateCommandTests {
    static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"
    static let manifest = """
        # calibration test fleet
        version: 1
        fleet: cal
        uuid: \(uuid)
        venues:
          - id: shop
            major: 1
            beacons:
              - id: door   # front door
                minor: 1
                tx_power: -4

        """

    /// 20 s at 10 Hz of RSSI values cycling −60, −61, −62 (mean −61), from `address`.
    static func samples(address: String = "C4:5B:BE:00:00:01", offset: Int = 0) -> [String] {
        (0..<200).map { tick in
            let seconds = Double(tick) / 10
            let rssi = -60 - (tick + offset) % 3
            return #"{"uuid":"\#(uuid)","major":1,"minor":1,"measured_power":-45,"address":"\#(address)","address_random":false,"rssi":\#(rssi),"time":\#(seconds),"receiver":"hci0"}"#
        }
    }

    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "calibrate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test(arguments: [
        (["door"], "--manifest is required: the beacon is named by its id there."),
        (["door", "--manifest", "f.yaml", "--seconds", "0"], "--seconds must be between 0 and 3600; got 0.0."),
        (["door", "--manifest", "f.yaml", "--input", "x", "--hci", "hci1"], "--input calibrates from a recording; --hci and --snoop drive a controller: pass one or the other."),
        (["door", "--manifest", "f.yaml", "--advertise-hci", "bluetooth0"], "--advertise-hci bluetooth0: "),
    ])
    func badFlagsAreUsageErrors(arguments: [String], message: String) async {
        let result = await runBeaconctl(["calibrate"] + arguments)
        #expect(result.status == 2)
        #expect(result.error.contains("Error: " + message), "\(result.error)")
    }

    @Test("from a recording: the value, the counts, the spread; --write changes that one line")
    func calibratesAndWrites() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = folder + "/fleet.yaml"
        let input = folder + "/samples.jsonl"
        try Self.manifest.write(toFile: manifest, atomically: true, encoding: .utf8)
        try Self.samples().joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)

        let dry = await runBeaconctl(["calibrate", "door", "--manifest", manifest, "--input", input])
        #expect(dry.status == 0, "\(dry.error)")
        #expect(dry.output == """
            door (\(Self.uuid)/1/1): measured power -61 dBm
              mean -61.0 dBm ± 0.1 dB (95 % confidence), spread (standard deviation) 0.8 dB
              200 samples, 160 kept after dropping the top and bottom 10 %
              manifest now: auto

            """)
        #expect(try String(contentsOfFile: manifest, encoding: .utf8) == Self.manifest)

        let written = await runBeaconctl(["calibrate", "door", "--manifest", manifest, "--input", input, "--write"])
        #expect(written.status == 0, "\(written.error)")
        #expect(written.output.hasSuffix("wrote measured_power: -61 for door in \(manifest)\n"))
        #expect(try String(contentsOfFile: manifest, encoding: .utf8) == Self.manifest.replacingOccurrences(
            of: "      - id: door   # front door\n", with: "      - id: door   # front door\n        measured_power: -61\n"))
    }

    @Test("two devices sending the identity: refused (exit 1), the manifest untouched")
    func refusesTwins() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = folder + "/fleet.yaml"
        let input = folder + "/samples.jsonl"
        try Self.manifest.write(toFile: manifest, atomically: true, encoding: .utf8)
        let lines = zip(Self.samples(), Self.samples(address: "D0:00:00:00:00:02")).flatMap { [$0, $1] }
        try lines.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let result = await runBeaconctl(["calibrate", "door", "--manifest", manifest, "--input", input, "--write"])
        #expect(result.status == 1)
        #expect(result.error.contains("door: \(Self.uuid)/1/1 is advertised by 2 devices: C4:5B:BE:00:00:01 (200 samples), D0:00:00:00:00:02 (200 samples)"), "\(result.error)")
        #expect(try String(contentsOfFile: manifest, encoding: .utf8) == Self.manifest)
    }

    @Test("an unknown beacon id is a usage error")
    func unknownBeacon() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = folder + "/fleet.yaml"
        try Self.manifest.write(toFile: manifest, atomically: true, encoding: .utf8)
        let result = await runBeaconctl(["calibrate", "till", "--manifest", manifest, "--input", "-"])
        #expect(result.status == 2)
        #expect(result.error.contains("has no beacon `till`"), "\(result.error)")
    }

    /// `beaconctl` beside the test bundle (`swift build` puts every product there).
    static func executable() -> String? {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
        let candidate = URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("beaconctl").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    @Test("SIGKILL at random moments of a writing loop never leaves a broken manifest", .timeLimit(.minutes(2)))
    func killedMidWrite() async throws {
        let binary = try #require(Self.executable(), "build beaconctl first (`swift build`): this test runs it as a child process")
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = folder + "/fleet.yaml"
        try Self.manifest.write(toFile: manifest, atomically: true, encoding: .utf8)
        // Two recordings giving −61 and −66 dBm: the loop writes one value, then the other.
        let low = folder + "/low.jsonl"
        let high = folder + "/high.jsonl"
        try Self.samples().joined(separator: "\n").write(toFile: high, atomically: true, encoding: .utf8)
        try Self.samples().map { $0.replacingOccurrences(of: "\"rssi\":-60", with: "\"rssi\":-65").replacingOccurrences(of: "\"rssi\":-61", with: "\"rssi\":-66").replacingOccurrences(of: "\"rssi\":-62", with: "\"rssi\":-67") }
            .joined(separator: "\n").write(toFile: low, atomically: true, encoding: .utf8)
        let loop = "while :; do \"$1\" calibrate door --manifest \"$2\" --input \"$3\" --write -q; \"$1\" calibrate door --manifest \"$2\" --input \"$4\" --write -q; done"
        let allowed = [
            Self.manifest,
            Self.manifest.replacingOccurrences(of: "# front door\n", with: "# front door\n        measured_power: -61\n"),
            Self.manifest.replacingOccurrences(of: "# front door\n", with: "# front door\n        measured_power: -66\n"),
        ]
        var generator = SystemRandomNumberGenerator()
        // Run 0 is killed only once a write has completed, whenever the machine gets there:
        // that proves the loop reaches --write. The 12 runs after it are killed at random
        // moments of the loop.
        for run in 0...12 {
            let process = Process()
            // Foundation starts the shell as the leader of a process group of its own, so that
            // one SIGKILL to the group reaches the shell and the writer it runs.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", loop, "sh", binary, manifest, high, low]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let exit = try ChildProcessExit.run(process)
            let pid = process.processIdentifier
            if run == 0 {
                try await Self.waitUntilChanged(manifest, from: Self.manifest)
            } else {
                // A real process killed at a random moment of its writing: the wall clock's
                // randomness is the point of the test.
                try await Task.sleep(for: .milliseconds(Int.random(in: 150...900, using: &generator)))
            }
            let groupKilled = kill(-pid, SIGKILL) == 0
            kill(pid, SIGKILL)
            #expect(groupKilled, "the loop's process group could not be killed: errno \(errno)")
            // Resumed when the kernel reports the end; nothing blocks a thread meanwhile.
            try await exit.wait(for: "the write-back loop ending after SIGKILL")
            let text = try String(contentsOfFile: manifest, encoding: .utf8)
            #expect(allowed.contains(text), "the manifest after SIGKILL:\n\(text)")
            // Leftover temporary files are hidden and harmless; the manifest is what matters.
        }
    }

    /// Waits until the file at `path` no longer reads `original`. Files announce no changes,
    /// so it is read again every 20 ms; after 100 s (a hang, not a slow machine) it fails.
    static func waitUntilChanged(_ path: String, from original: String) async throws {
        let deadline = ContinuousClock.now + .seconds(100)
        while (try? String(contentsOfFile: path, encoding: .utf8)) == original {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("no write completed within 100 s: the loop never reached --write")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

