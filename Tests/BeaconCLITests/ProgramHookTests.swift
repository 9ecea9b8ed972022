import ClockTestKit
import Foundation
import Glibc
import Logging
import BeaconTestKit
import Testing
@testable import BeaconCLI

@Suite("--exec's program runs: bounded queue, bounded wait at a stop")
struct ProgramHookTests {
    @Test("a program that hangs: runs beyond the bound are not made and said; a stop waits for it at most stopWait and says what was left")
    func hungProgram() async throws {
        let scratch = try ScratchFolder()
        let hanging = try HangingProgram(in: scratch)
        defer { hanging.killAll() }
        let log = RecordedLog<String>()
        let logger = RecordingLogHandler.logger(recordingInto: log)
        let hook = try #require(ProgramHook(
            command: hanging.command, environment: ProcessInfo.processInfo.environment, logger: logger,
            label: "program-hook-tests", maximumWaiting: 2))
        // The first run never ends: whatever the timing, it and two more are accepted (one
        // under way, two waiting), and the three after them are not.
        for index in 0..<6 {
            hook.run(["BEACONCTL_EVENT": "change", "INDEX": "\(index)"], subject: "change \(index)", nulAdvice: "")
        }
        #expect(log.elements == [
            "--exec /bin/sh is slower than the events: 2 runs are waiting, so events are not run until it catches up (the total is said at the end)",
        ])
        // A real wait of stopWait: the program is another process, which no clock of ours moves.
        await hook.finish(stopping: true)
        #expect(log.elements.dropFirst() == [
            "--exec /bin/sh was still running 1 s after the stop began; left running, and 2 queued runs not made",
            "--exec /bin/sh was not run for 3 events: it was 2 runs behind; a faster program, or one that hands the event on (to a queue) and returns, keeps up",
        ])
    }

    @Test("at the end of the input (no stop), every queued run is made before finish returns")
    func finishWaitsForEveryRun() async throws {
        let scratch = try ScratchFolder()
        let script = try scratch.write("count.sh", """
            echo "$INDEX" >> "\(scratch.path)/runs.txt"
            """)
        let log = RecordedLog<String>()
        let logger = RecordingLogHandler.logger(recordingInto: log)
        let hook = try #require(ProgramHook(
            command: "/bin/sh \(script)", environment: ProcessInfo.processInfo.environment, logger: logger, label: "program-hook-tests"))
        for index in 0..<5 {
            hook.run(["INDEX": "\(index)"], subject: "change \(index)", nulAdvice: "")
        }
        await hook.finish()
        let runs = try String(contentsOfFile: scratch.path + "/runs.txt", encoding: .utf8)
        #expect(runs == "0\n1\n2\n3\n4\n")
        #expect(log.elements.isEmpty, "\(log.elements)")
    }

    @Test("the program inherits nothing of this process's but the standard streams")
    func inheritsNoDescriptors() async throws {
        let scratch = try ScratchFolder()
        // A pipe this process holds open, not close-on-exec: a program started without
        // care would hold it too (and keep its reader from ever seeing its end).
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var status = stat()
        try #require(fstat(ends[0], &status) == 0)
        let script = try scratch.write("fds.sh", """
            ls -l /proc/$$/fd > "\(scratch.path)/fds.txt"
            """)
        let log = RecordedLog<String>()
        let logger = RecordingLogHandler.logger(recordingInto: log)
        let hook = try #require(ProgramHook(
            command: "/bin/sh \(script)", environment: ProcessInfo.processInfo.environment, logger: logger, label: "program-hook-tests"))
        hook.run([:], subject: "change", nulAdvice: "")
        await hook.finish()
        let listing = try String(contentsOfFile: scratch.path + "/fds.txt", encoding: .utf8)
        #expect(!listing.contains("pipe:[\(status.st_ino)]"), "\(listing)")
        #expect(log.elements.isEmpty, "\(log.elements)")
    }
}
