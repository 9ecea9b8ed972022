import BeaconTestKit
import Foundation
import Glibc
import ProcessTestKit
import Synchronization

/// One RootCanal process: a virtual LE air on which every TCP connection to `hciPort` is a
/// new controller (H4 framing), hearing what the others advertise.
///
/// Tests get one from `withRootCanal`, which starts it on free ports and always stops it.
/// RootCanal listens on every address; tests talk to 127.0.0.1 only.
final class RootCanal: Sendable {
    struct Ports: Sendable, Equatable {
        let hci: UInt16
        let test: UInt16
        let link: UInt16
        let linkBLE: UInt16

        var arguments: [String] {
            [
                "-hci_port", String(hci), "-test_port", String(test),
                "-link_port", String(link), "-link_ble_port", String(linkBLE),
            ]
        }
    }

    /// A start may take long on a loaded 2-core machine; RootCanal is usually ready in 10 ms.
    /// A safety deadline, not an expectation.
    static let startupTimeout: Duration = .seconds(60)
    /// Retries when another process takes a chosen port before RootCanal binds it.
    static let maximumStartAttempts = 3
    /// How long SIGTERM is given before SIGKILL.
    static let stopGracePeriod: Duration = .seconds(2)

    let ports: Ports
    /// RootCanal's standard output and error. Removed after a clean run, kept after a failure.
    let logFile: URL
    private let process: Process
    private let exitRecord: ExitRecord

    var hciPort: UInt16 { ports.hci }
    /// `127.0.0.1:PORT` of the HCI server.
    var hciEndpoint: String { "127.0.0.1:\(hciPort)" }
    /// The transport spec the project's tools take to reach a new controller on this air.
    var hciTransportSpec: String { "tcp-client:\(hciEndpoint)" }
    var processIdentifier: Int32 { process.processIdentifier }
    /// How the process ended; nil while it runs.
    var termination: RootCanalTermination? { exitRecord.termination }

    private init(ports: Ports, logFile: URL, process: Process, exitRecord: ExitRecord) {
        self.ports = ports
        self.logFile = logFile
        self.process = process
        self.exitRecord = exitRecord
    }

    deinit {
        // Last line of defence for a caller that forgot `stop()`: never leave a controller
        // process running after its test.
        if exitRecord.termination == nil {
            kill(process.processIdentifier, SIGKILL)
        }
    }

    /// Starts RootCanal on free loopback ports and returns once its HCI port accepts
    /// connections. Retries with new ports when one was taken in the meantime.
    static func start(_ installation: RootCanalInstallation) async throws -> RootCanal {
        var portClashes: [String] = []
        for _ in 1...maximumStartAttempts {
            let chosen = try FreeLoopbackPorts.pick(4)
            let ports = Ports(hci: chosen[0], test: chosen[1], link: chosen[2], linkBLE: chosen[3])
            let rootCanal = try launch(installation, ports: ports)
            switch await rootCanal.waitUntilReady() {
            case .ready:
                return rootCanal
            case .portTaken(let logLine):
                await rootCanal.stop()
                rootCanal.removeLog()
                portClashes.append(logLine)
            case .failed(let reason):
                await rootCanal.stop()
                throw RootCanalStartFailure(description: reason)
            }
        }
        throw RootCanalStartFailure(
            description: "RootCanal could not bind its ports in \(maximumStartAttempts) attempts: other "
                + "processes took them between selection and start. Its complaints: "
                + portClashes.joined(separator: " | "))
    }

    private static func launch(_ installation: RootCanalInstallation, ports: Ports) throws -> RootCanal {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("beaconctl-rootcanal-\(UUID().uuidString)", isDirectory: true)
        let logFile = directory.appendingPathComponent("rootcanal.log")
        let log: FileHandle
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            log = try FileHandle(forWritingTo: logFile)
        } catch {
            throw RootCanalStartFailure(description: "cannot create RootCanal's log at \(logFile.path): \(error)")
        }
        // The child keeps its own descriptor of the log; ours is not needed after launch.
        defer { try? log.close() }

        let process = Process()
        process.executableURL = installation.binary
        process.arguments = ports.arguments
        // Whatever RootCanal writes lands in the temporary folder, not in the repository.
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        let exitRecord = ExitRecord()
        do {
            // Its end as the kernel reports it (ChildProcessExit says why not Foundation's).
            _ = try ChildProcessExit.run(process, launch: ChildProcess.runWithDefaultSignalMask) {
                exitRecord.record(RootCanalTermination(of: $0))
            }
        } catch {
            throw RootCanalStartFailure(description: "cannot run \(installation.binary.path): \(error)")
        }
        return RootCanal(ports: ports, logFile: logFile, process: process, exitRecord: exitRecord)
    }

    private enum Readiness {
        case ready
        case portTaken(logLine: String)
        case failed(String)
    }

    private func waitUntilReady() async -> Readiness {
        let deadline = ContinuousClock.now + Self.startupTimeout
        // RootCanal 1.10.0 logs "Listening on: PORT (FD)" once it has bound a server socket.
        // When a port is taken it logs "Error binding ... port: PORT, Address already in use"
        // and keeps running, so the log, not the process state, tells a port race; and only
        // our own "Listening" line proves the HCI port is ours rather than another process's.
        let listeningLine = "Listening on: \(ports.hci) ("
        while ContinuousClock.now < deadline {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            if let clash = log.split(separator: "\n").first(where: { $0.contains("Address already in use") }) {
                return .portTaken(logLine: String(clash))
            }
            if let termination {
                return .failed("RootCanal \(termination) while starting. \(logTailSection())")
            }
            // The probe connection becomes a controller that RootCanal drops again when the
            // probe closes; later connections are unaffected.
            if log.contains(listeningLine),
                let probe = try? await LoopbackSocket.connect(toPort: ports.hci, timeout: .seconds(5))
            {
                probe.close()
                return .ready
            }
            if Task.isCancelled { return .failed("the test was cancelled while RootCanal was starting") }
            // A real process that announces readiness only in its log and on its port: looked at again.
            try? await Task.sleep(for: .milliseconds(20))
        }
        return .failed(
            "RootCanal did not accept connections on \(hciEndpoint) within \(Self.startupTimeout). "
                + logTailSection())
    }

    /// Waits up to `timeout` for the process to end. Its termination, or nil if it still runs.
    func waitForExit(timeout: Duration) async -> RootCanalTermination? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let termination = exitRecord.termination { return termination }
            if ContinuousClock.now >= deadline { return nil }
            do {
                // A real process: its exit is recorded by a handler that nothing can await here.
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                return exitRecord.termination
            }
        }
    }

    /// Stops RootCanal: SIGTERM, then SIGKILL after the grace period. Completes even when the
    /// calling task is cancelled, so that no test leaves the process behind.
    func stop() async {
        // A detached task does not inherit the caller's cancellation, which would cut the waits short.
        await Task.detached { [self] in await terminate() }.value
    }

    private func terminate() async {
        // Once the exit is recorded the pid has been reaped and may belong to someone else.
        guard exitRecord.termination == nil else { return }
        kill(process.processIdentifier, SIGTERM)
        if await waitForExit(timeout: Self.stopGracePeriod) != nil { return }
        kill(process.processIdentifier, SIGKILL)
        _ = await waitForExit(timeout: .seconds(10))
    }

    /// nil while RootCanal runs or after the harness stopped it; otherwise what ended it
    /// and the last lines it printed (a fatal "invalid packet" line names the bad command).
    var deathReport: String? {
        guard let termination, !termination.isOrderlyStop else { return nil }
        return "RootCanal (pid \(processIdentifier), HCI port \(hciPort)) \(termination) during the test. "
            + "It aborts on an HCI command it cannot parse: the last command sent is the first suspect. "
            + logTailSection()
    }

    /// The last `lineCount` lines RootCanal printed.
    func logTail(lines lineCount: Int = 20) -> String {
        // Only the end of the file is read: a long scan test logs tens of kilobytes a second.
        let window: UInt64 = 16 * 1024
        guard let handle = try? FileHandle(forReadingFrom: logFile) else {
            return "(log \(logFile.path) is unreadable)"
        }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd() else { return "(log \(logFile.path) is unreadable)" }
        let start = end > window ? end - window : 0
        guard (try? handle.seek(toOffset: start)) != nil, let data = try? handle.readToEnd() else {
            return "(log \(logFile.path) is unreadable)"
        }
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        if start > 0, !lines.isEmpty { lines.removeFirst() }  // cut mid-line by the window
        return lines.isEmpty ? "(RootCanal printed nothing)" : lines.suffix(lineCount).joined(separator: "\n")
    }

    /// The log tail introduced by where the whole log is kept, for failure messages.
    func logTailSection() -> String {
        "Last lines of its output (full log: \(logFile.path)):\n\(logTail())"
    }

    /// Deletes the log and its folder; for runs where nothing went wrong.
    func removeLog() {
        try? FileManager.default.removeItem(at: logFile.deletingLastPathComponent())
    }
}

/// Why RootCanal could not be started, with its log tail when it printed anything.
struct RootCanalStartFailure: Error, CustomStringConvertible {
    let description: String
}

/// The process's termination, written by Foundation's termination handler on its own thread
/// and read by the test.
private final class ExitRecord: Sendable {
    private let recorded = Mutex<RootCanalTermination?>(nil)

    var termination: RootCanalTermination? { recorded.withLock { $0 } }

    func record(_ termination: RootCanalTermination) {
        recorded.withLock { $0 = termination }
    }
}
