import Foundation
import Glibc
import Testing

/// A command opens several signal scopes in turn (verify on a pipe: one while it tells the
/// format from the first bytes, one for the pass). Each must stop on SIGINT and SIGTERM,
/// the second as surely as the first.
@Suite("Signals in a command's second scope", .timeLimit(.minutes(2)))
struct SignalScopeTests {
    static let uuid = "3E9A1C20-7B4D-4C6E-9F80-A1B2C3D4E5F6"
    static let manifest = """
        version: 1
        fleet: signals
        uuid: \(uuid)
        venues:
          - id: shop
            major: 1
            beacons:
              - {id: door, minor: 1, measured_power: -59}
              - {id: till, minor: 2, measured_power: -59}
        """

    @Test("verify on a pipe: once the first bytes told the format, SIGINT or SIGTERM ends the pass with a report", arguments: [SIGINT, SIGTERM])
    func secondScopeStops(signalNumber: Int32) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        let fifo = folder.appendingPathComponent("sightings").path
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        // Read and write: opening never waits for the other end, and the pipe stays open
        // (no end of input) for as long as the test holds it.
        let writer = open(fifo, O_RDWR | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }

        let verify = try BeaconctlProcess(["verify", manifest.path, "--input", fifo, "--timeout", "600", "-v"])
        let line = #"{"uuid":"\#(Self.uuid)","major":1,"minor":1,"measured_power":-59,"address":"C0:00:00:00:00:01","address_random":true,"rssi":-60,"time":0,"receiver":"box"}"# + "\n"
        let written = line.utf8CString.withUnsafeBufferPointer { write(writer, $0.baseAddress, line.utf8.count) }
        try #require(written == line.utf8.count)
        // Written inside the pass's scope: from here a signal must stop it cleanly.
        try await verify.waitForError(containing: "listening until every beacon is decided")
        verify.signal(signalNumber)
        // Whether the sighting already reached the pass is a race; the report and its end are not.
        #expect(await verify.waitForExit() == 1, "the till was never heard: findings. \(verify.standardError)")
        #expect(verify.standardOutput.contains("(interrupted)"), "\(verify.standardOutput)")
    }
}

/// SIGUSR1 asks a live `monitor` for every region's state, through the process's one signal
/// watcher (a signal source of its own would be gone after its first use): each request is
/// answered, and SIGTERM still ends the run cleanly.
@Suite("monitor's state requests", .timeLimit(.minutes(2)))
struct StateRequestSignalTests {
    @Test("every SIGUSR1 is answered with the regions' states; SIGTERM then stops the run")
    func stateRequests() async throws {
        let monitor = try BeaconctlProcess([
            "monitor", "--hci", "virtual", "--region", "shop=\(SignalScopeTests.uuid)", "--format", "jsonl", "-v",
        ])
        // Logged once the state requests' scope is open.
        try await monitor.waitForError(containing: "reports every region's state")
        for requests in 1...2 {
            monitor.signal(SIGUSR1)
            let answered = await monitor.waitForOutput("\(requests) state answers") { lines in
                lines.count { $0.hasPrefix(#"{"event":"state","region":"shop","#) } >= requests
            }
            #expect(answered, "request \(requests) unanswered: \(monitor.standardOutput)\(monitor.standardError)")
        }
        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit() == 0, "\(monitor.standardError)")
    }
}
