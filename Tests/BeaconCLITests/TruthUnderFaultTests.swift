import BeaconTestKit
import Foundation
import ProcessTestKit
import Testing

@testable import BeaconCLI

#if canImport(Glibc)
import Glibc
#endif

/// Regression tests for values from outside meeting arithmetic, time and signals: each case
/// once crashed, hung or reported success on missing evidence.
@Suite("Truth under fault: numbers, time, signals")
struct TruthUnderFaultTests {
    static let uuid = CalibrateCommandTests.uuid

    static func sightingLine(minor: Int = 1, rssi: Int = -60, time: String) -> String {
        #"{"uuid":"\#(uuid)","major":1,"minor":\#(minor),"measured_power":-59,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":\#(rssi),"time":\#(time),"receiver":"hci0"}"#
    }

    // MARK: Numbers

    @Test("a sighting time of 1e17 is refused where it enters (exit 2, naming line and field), not a crash")
    func absurdSightingTime() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", CalibrateCommandTests.manifest)
        let input = try scratch.write("jump.jsonl", [Self.sightingLine(time: "0"), Self.sightingLine(time: "1e17")].joined(separator: "\n") + "\n")
        let result = await runBeaconctl(["verify", manifest, "--input", input])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("jump.jsonl: line 2: \"time\" must be seconds from -1e10 to 1e10"), "\(result.error)")
    }

    @Test("a gap of 1e10 s between two sightings is worded, not a trap")
    func hugeGap() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", CalibrateCommandTests.manifest)
        let lines = [Self.sightingLine(time: "-1e10"), Self.sightingLine(time: "0"), Self.sightingLine(time: "1e10")]
        let input = try scratch.write("gap.jsonl", lines.joined(separator: "\n") + "\n")
        for format in ["text", "json", "junit", "markdown"] {
            let result = await runBeaconctl(["verify", manifest, "--input", input, "--format", format])
            #expect([0, 1].contains(result.status), "\(format): \(result.status) \(result.error)")
            #expect(!result.output.isEmpty, "\(format): a report")
        }
    }

    @Test(arguments: ["1e16", "1e300", "nan", "1000000001"])
    func advertiseDurationOutOfRange(value: String) async {
        let result = await runBeaconctl([
            "advertise", "--uuid", Self.uuid, "--major", "1", "--minor", "1", "--hci", "virtual", "--duration", value,
        ])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("--duration must be a positive number of seconds up to 1000000000"), "\(result.error)")
    }

    // MARK: Time

    @Test("monitor --input with a time jump of 9e9 s and --state-every 1 ends, says what it skipped, bounded output")
    func monitorTimeJump() async throws {
        let scratch = try ScratchFolder()
        let input = try scratch.write("jump.jsonl", [Self.sightingLine(time: "0"), Self.sightingLine(time: "9e9")].joined(separator: "\n") + "\n")
        let result = await runBeaconctl(["monitor", "--input", input, "--region", "s=\(Self.uuid)", "--state-every", "1", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count < 2_100, "\(lines.count) lines")
        #expect(lines.contains { $0.contains(#""event":"exit""#) && $0.contains(#""time":30"#) }, "the exit is reported at its time")
        #expect(result.error.contains("periodic reports in between were left out"), "\(result.error)")
    }

    @Test("calibrate on a silent air ends at --seconds with `not heard` (exit 1)", .timeLimit(.minutes(2)))
    func calibrateSilentAir() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", CalibrateCommandTests.manifest)
        let result = await runBeaconctl(["calibrate", "door", "--manifest", manifest, "--hci", "virtual", "--seconds", "1"])
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.contains("was not heard with an RSSI in 1 s"), "\(result.error)")
    }

    // MARK: Signals

    /// Runs `beaconctl` as a child with `input` on a pipe that stays open, waits until it
    /// has installed its SIGINT/SIGTERM handling (seen in /proc: libdispatch's signal
    /// sources catch both), sends `signal`, and returns its exit status and standard error.
    static func interrupt(_ arguments: [String], input: String, with signal: Int32) async throws -> (status: Int32, error: String, bySignal: Bool) {
        let binary = try #require(CalibrateCommandTests.executable(), "build beaconctl first (`swift build`)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let stdin = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        let exit = try ChildProcessExit.run(process)
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try await ProcessSignals.waitUntilCatching([SIGINT, SIGTERM], pid: process.processIdentifier)
        kill(process.processIdentifier, signal)
        let status = try await exit.wait(for: "beaconctl ending after signal \(signal)")
        let errorText = String(decoding: drain(stderr.fileHandleForReading.fileDescriptor), as: UTF8.self)
        try? stdin.fileHandleForWriting.close()
        return (status.value, errorText, status.bySignal)
    }

    /// What an exited child left in the pipe read through `descriptor`, read without
    /// waiting: the pipe's end may come much later than the exit (a child another test
    /// spawns meanwhile can inherit its write end), and reading to it would block one of
    /// the test's cooperative threads.
    static func drain(_ descriptor: Int32) -> [UInt8] {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return bytes  // the end, or nothing more waiting (EAGAIN)
            }
        }
    }

    @Test("calibrate --write interrupted by SIGTERM after some samples: exit 1, `interrupted`, manifest untouched", .timeLimit(.minutes(2)))
    func calibrateTerminated() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", CalibrateCommandTests.manifest)
        let samples = (0..<6).map { Self.sightingLine(rssi: -60, time: "\(Double($0) / 10)") }.joined(separator: "\n") + "\n"
        let run = try await Self.interrupt(
            ["calibrate", "door", "--manifest", manifest, "--input", "-", "--write"], input: samples, with: SIGTERM)
        #expect(!run.bySignal)
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("calibration interrupted by SIGTERM"), "\(run.error)")
        #expect(run.error.contains("nothing was written"), "\(run.error)")
        #expect(try String(contentsOfFile: manifest, encoding: .utf8) == CalibrateCommandTests.manifest)
    }

    @Test("calibrate interrupted by SIGINT before any sample says `interrupted`, not `not heard`", .timeLimit(.minutes(2)))
    func calibrateInterruptedEmpty() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", CalibrateCommandTests.manifest)
        let run = try await Self.interrupt(["calibrate", "door", "--manifest", manifest, "--input", "-"], input: "", with: SIGINT)
        #expect(!run.bySignal)
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("calibration interrupted by SIGINT"), "\(run.error)")
        #expect(!run.error.contains("not heard"), "\(run.error)")
    }

    @Test("monitor --input on a pipe that stays open ends on SIGTERM (exit 0)", .timeLimit(.minutes(2)))
    func monitorTerminated() async throws {
        let run = try await Self.interrupt(
            ["monitor", "--input", "-", "--region", "s=\(Self.uuid)", "--state-every", "1"],
            input: Self.sightingLine(time: "0") + "\n", with: SIGTERM)
        #expect(!run.bySignal)
        #expect(run.status == 0, "\(run.error)")
    }

    // MARK: Recordings

    @Test(
        "verify --input - --timeout 2 on a pipe that gives nothing readable (nothing; 3 bytes of a line; a capture's header and no record): exit 2 saying so, no verdict",
        .timeLimit(.minutes(2)), arguments: [[], Array("{\"u".utf8), Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]])
    func silentPipe(sent: [UInt8]) async throws {
        let binary = try #require(CalibrateCommandTests.executable(), "build beaconctl first (`swift build`)")
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", CalibrateCommandTests.manifest)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["verify", manifest, "--input", "-", "--timeout", "2"]
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let exit = try ChildProcessExit.run(process)
        stdin.fileHandleForWriting.write(Data(sent))
        // The timeout is what is tested: the wait is the child's own, on its real clock.
        let status = try await exit.wait(for: "beaconctl verify ending at its timeout")
        let output = String(decoding: Self.drain(stdout.fileHandleForReading.fileDescriptor), as: UTF8.self)
        let errors = String(decoding: Self.drain(stderr.fileHandleForReading.fileDescriptor), as: UTF8.self)
        try? stdin.fileHandleForWriting.close()
        #expect(status == .exited(2), "\(output)\(errors)")
        #expect(errors.contains("<stdin>: no sighting arrived within 2.0 s: nothing can be said of the beacons"), "\(errors)")
        #expect(!output.contains("missing"), "no verdict from a pipe that gave nothing readable: \(output)")
    }

    @Test("verify on a capture with a corrupt record in the middle: exit 2 naming the record, no verdicts")
    func corruptCapture() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", CalibrateCommandTests.manifest)
        // A header, one good Command Complete, then a record claiming 9 bytes for a 7-byte event.
        var file = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        func record(length: UInt32, _ data: [UInt8]) -> [UInt8] {
            withUnsafeBytes(of: length.bigEndian, Array.init) + withUnsafeBytes(of: length.bigEndian, Array.init)
                + [0, 0, 0, 1, 0, 0, 0, 0] + withUnsafeBytes(of: UInt64(0x00E0_0000_0000_0000).bigEndian, Array.init) + data
        }
        let complete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        file += record(length: 7, complete) + record(length: 9, complete) + complete
        let capture = scratch.path + "/broken.btsnoop"
        try Data(file).write(to: URL(fileURLWithPath: capture))
        let result = await runBeaconctl(["verify", manifest, "--input", capture])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.output.isEmpty, "no report from a corrupt capture")
        #expect(result.error.contains("btsnoop record 1 at byte 47 is invalid"), "\(result.error)")
    }

    // MARK: --exec

    @Test("--exec failures name their cause: a too-large environment is not `check the path`")
    func spawnFailureAdvice() {
        #expect(SpawnFailure(errno: E2BIG).description.contains("environment"))
        #expect(!SpawnFailure(errno: E2BIG).description.contains("check the path"))
        #expect(SpawnFailure(errno: ENOENT).description.contains("no such program"))
    }
}
