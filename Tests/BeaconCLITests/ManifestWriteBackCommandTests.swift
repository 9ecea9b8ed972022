import Foundation
import Testing

@testable import BeaconCLI

#if canImport(Glibc)
import Glibc
#endif

/// The commands that write a manifest back (`calibrate --write`, `fleet plan --append`)
/// write what they read, into the file they read, or nothing.
@Suite("Commands writing manifests back")
struct ManifestWriteBackCommandTests {
    static let uuid = CalibrateCommandTests.uuid

    @Test("calibrate --write refuses a manifest edited while it measured", .timeLimit(.minutes(1)))
    func calibrateNoticesAnEditDuringTheRun() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("fleet.yaml", CalibrateCommandTests.manifest)
        // The recording comes through a FIFO: calibrate opens it after loading the
        // manifest, and measures until the writer closes it. The writer edits the
        // manifest in between, as someone did in the field.
        let fifo = scratch.path + "/samples.jsonl"
        try #require(mkfifo(fifo, 0o600) == 0)
        let samples = Array((CalibrateCommandTests.samples().joined(separator: "\n") + "\n").utf8)
        let edited = CalibrateCommandTests.manifest.replacingOccurrences(of: "minor: 1", with: "minor: 7")
        // Awaited, not waited for with a semaphore: no test thread blocks.
        let writerDone = AsyncStream<Void>.makeStream()
        let writer = Thread {
            defer { writerDone.continuation.finish() }
            // Should calibrate stop reading early, write gets EPIPE instead of killing the
            // test process with SIGPIPE (a write's SIGPIPE goes to the writing thread).
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            let descriptor = open(fifo, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            _ = samples.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            try? edited.write(toFile: manifest, atomically: false, encoding: .utf8)
        }
        writer.start()

        let result = await runBeaconctl(["calibrate", "door", "--manifest", manifest, "--input", fifo, "--write"])
        // If calibrate never opened the FIFO, the writer is still waiting for a reader.
        let release = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        for await _ in writerDone.stream {}
        if release >= 0 { close(release) }

        #expect(result.status == 2, "\(result.error)")
        #expect(result.output.hasPrefix("door (\(Self.uuid)/1/1): measured power -61 dBm"), "the measurement itself is reported")
        #expect(result.error.contains("\(manifest): changed on disk since it was read (its content differs from what was read); it was left unchanged: run the command again"), "\(result.error)")
        #expect(try scratch.read("fleet.yaml") == edited, "the value measured for minor 1 went into the manifest")
    }

    @Test("fleet plan --append through a symbolic link: the link stays, its target gets the venue")
    func planAppendsThroughALink() async throws {
        let scratch = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: scratch.path + "/fleets", withIntermediateDirectories: true)
        let target = try scratch.write("shop.yaml", validManifest + "\n")
        let link = scratch.path + "/fleets/shop.yaml"
        try #require(symlink("../shop.yaml", link) == 0)

        let result = await runBeaconctl([
            "fleet", "plan", "--fleets", scratch.path + "/fleets", "--venue", "shop", "--beacons", "window", "--append", link,
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../shop.yaml")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == validManifest + "\n      - id: window\n        minor: 3\n")
    }

    @Test("fleet plan --append on a hard-linked manifest says what to do and writes nothing")
    func planRefusesHardLinks() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("shop.yaml", validManifest + "\n")
        try #require(link(file, scratch.path + "/backup.yml.bak") == 0)
        let result = await runBeaconctl(["fleet", "plan", "--fleets", file, "--venue", "shop", "--beacons", "window", "--append", file])
        #expect(result.status == 2)
        #expect(result.error.contains("\(file) has 2 hard links (names of the same file); replacing it would leave the other 1 with the old text, so it was left unchanged: make the other names symbolic links to it (ln -sf) or remove them, then run the command again"), "\(result.error)")
        #expect(try scratch.read("shop.yaml") == validManifest + "\n")
    }
}
