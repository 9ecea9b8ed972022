import Foundation
import Glibc
import Synchronization

/// The built `beaconctl` executable, run as a child process the way a user or systemd runs
/// it: arguments in, lines out, signals to stop it.
final class BeaconctlProcess: Sendable {
    private let process: Process
    private let state = State()

    /// What the process printed and how it ended, written by Foundation's handlers on their
    /// own threads.
    private final class State: Sendable {
        let output = Mutex<(standardOutput: Data, standardError: Data)>((Data(), Data()))
        let exit = Mutex<Int32?>(nil)
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// `beaconctl` beside the test bundle: `swift build` puts every product of the package in
    /// the same folder as `beaconctlPackageTests.xctest`.
    static func executable() throws -> URL {
        let testBundle = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        let candidates = [
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map(URL.init(fileURLWithPath:)),
            testBundle,
        ].compactMap { $0 }
        for bundle in candidates {
            let binary = bundle.deletingLastPathComponent().appendingPathComponent("beaconctl")
            if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
        }
        throw BeaconctlProcessError(
            "no beaconctl executable next to the test bundle (\(candidates.map(\.path))): run `swift build` "
                + "(or `swift build --build-tests`) before the integration tests")
    }

    init(_ arguments: [String]) throws {
        process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.removeValue(forKey: "BEACONCTL_HCI")
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let state = self.state
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            state.output.withLock { $0.standardOutput.append(data) }
        }
        stderr.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            state.output.withLock { $0.standardError.append(data) }
        }
        process.terminationHandler = { process in
            state.exit.withLock { $0 = process.terminationStatus }
        }
        try Self.runWithDefaultSignalMask(process)
    }

    deinit {
        if state.exit.withLock({ $0 }) == nil {
            kill(process.processIdentifier, SIGKILL)
        }
    }

    /// Spawns with no signal blocked: a child inherits the spawning thread's mask, and the
    /// test runner's threads block SIGTERM, which the child must see like any service does.
    private static func runWithDefaultSignalMask(_ process: Process) throws {
        var nothingBlocked = sigset_t()
        var callersMask = sigset_t()
        sigemptyset(&nothingBlocked)
        pthread_sigmask(SIG_SETMASK, &nothingBlocked, &callersMask)
        defer { pthread_sigmask(SIG_SETMASK, &callersMask, nil) }
        try process.run()
    }

    var standardOutput: String { state.output.withLock { String(decoding: $0.standardOutput, as: UTF8.self) } }
    var standardError: String { state.output.withLock { String(decoding: $0.standardError, as: UTF8.self) } }
    var exitStatus: Int32? { state.exit.withLock { $0 } }

    /// Complete lines of standard output so far.
    var outputLines: [String] {
        let text = standardOutput
        guard let lastNewline = text.lastIndex(of: "\n") else { return [] }
        return text[..<lastNewline].split(separator: "\n").map(String.init)
    }

    /// The first output line satisfying `condition`, waiting for it up to `timeout`.
    func waitForLine(timeout: Duration, _ description: String, where condition: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = outputLines.first(where: condition) { return line }
            if let status = exitStatus {
                throw BeaconctlProcessError(
                    "beaconctl exited with status \(status) before printing \(description). Output:\n\(standardOutput)\nErrors:\n\(standardError)")
            }
            guard ContinuousClock.now < deadline else {
                throw BeaconctlProcessError(
                    "beaconctl printed no \(description) within \(timeout). Output:\n\(standardOutput)\nErrors:\n\(standardError)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func signal(_ signalNumber: Int32) {
        guard exitStatus == nil else { return }
        kill(process.processIdentifier, signalNumber)
    }

    /// The exit status, or nil if still running after `timeout`.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while exitStatus == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return exitStatus
    }
}

struct BeaconctlProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
