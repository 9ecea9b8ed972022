import BeaconTestKit
import ClockTestKit
import Foundation
import Glibc
import ProcessTestKit
import Synchronization

/// The built `beaconctl` executable, run as a child process the way a user or systemd runs
/// it: arguments in, lines out, signals to stop it.
final class BeaconctlProcess: Sendable {
    private let process: Process
    private let exit: ChildProcessExit
    private let state: WatchedState<Observed>
    /// The read ends of the output pipes, kept open for as long as the handlers and the
    /// `isFinished` check may use them.
    private let readEnds: [FileHandle]
    /// The program's name, for messages.
    let name: String

    /// What the process printed and how it ended, written by Foundation's handlers on their
    /// own threads.
    private struct Observed: Sendable {
        /// The read ends of standard output and standard error.
        let outputDescriptor: Int32
        let errorDescriptor: Int32
        var standardOutput = Data()
        var standardError = Data()
        var outputEnded = false
        var errorEnded = false
        /// Handlers that have started a read and not yet recorded what it returned.
        var readsInFlight = 0
        var terminationStatus: Int32?
        /// The process has exited and what it wrote is all recorded: its output is complete.
        /// Set by `noteIfFinished()` after every change, and never unset.
        private(set) var isFinished = false

        var exitStatus: Int32? { isFinished ? terminationStatus : nil }

        /// The termination handler may run before the last lines are read from the pipes,
        /// and the end of a pipe may come much later than the exit: a child spawned
        /// meanwhile by another test can inherit its write end. Once the process has exited
        /// everything it wrote is in the pipes, so "nothing left unread and no read under
        /// way" is the end of its output whatever else holds them open. Only the changes
        /// recorded here (an exit, a read) can make that true.
        mutating func noteIfFinished() {
            guard !isFinished, terminationStatus != nil, readsInFlight == 0 else { return }
            isFinished =
                (outputEnded || Self.unreadBytes(outputDescriptor) == 0)
                && (errorEnded || Self.unreadBytes(errorDescriptor) == 0)
        }

        /// Bytes waiting in a pipe (FIONREAD); an error counts as none left.
        private static func unreadBytes(_ descriptor: Int32) -> Int32 {
            var count: Int32 = 0
            return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? count : 0
        }

        var outputLines: [String] {
            let text = String(decoding: standardOutput, as: UTF8.self)
            guard let lastNewline = text.lastIndex(of: "\n") else { return [] }
            return text[..<lastNewline].split(separator: "\n").map(String.init)
        }
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

    /// `arguments`, with `--command-timeout 60` added to a command on a controller that sets
    /// none: the 2 s default is meant for hardware, while RootCanal or the virtual radio on a
    /// machine busy with the rest of the suite may answer later. A safety net, not a wait.
    static func withSafetyCommandTimeout(_ arguments: [String]) -> [String] {
        guard arguments.contains("--hci"), !arguments.contains("--command-timeout") else { return arguments }
        return arguments + ["--command-timeout", "60"]
    }

    /// `environment` is added to this process's (after the variables below are cleared);
    /// `standardInput`, when given, is its standard input (else nothing).
    /// With `terminal`, standard input and error are that terminal (`standardError` is then
    /// what it shows: what beaconctl wrote there, and the typing it echoed).
    convenience init(
        _ arguments: [String], environment extra: [String: String] = [:], standardInput: Pipe? = nil, terminal: PseudoTerminal? = nil
    ) throws {
        try self.init(
            program: try Self.executable(), arguments: Self.withSafetyCommandTimeout(arguments), environment: extra,
            standardInput: standardInput, terminal: terminal)
    }

    /// Another program watched the same way (a peripheral played by Bumble): its lines, its
    /// end, signals to stop it.
    init(
        program: URL, arguments: [String], environment extra: [String: String] = [:], standardInput: Pipe? = nil,
        terminal: PseudoTerminal? = nil
    ) throws {
        process = Process()
        process.executableURL = program
        process.arguments = arguments
        name = program.lastPathComponent
        if let terminal {
            process.standardInput = terminal.follower
        } else if let standardInput {
            process.standardInput = standardInput
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.removeValue(forKey: "BEACONCTL_HCI")
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        let errorEnd: FileHandle
        if let terminal {
            // What beaconctl writes on the terminal is read from its leader side.
            process.standardError = terminal.follower
            errorEnd = terminal.leader
        } else {
            let stderr = Pipe()
            process.standardError = stderr
            errorEnd = stderr.fileHandleForReading
        }
        readEnds = [stdout.fileHandleForReading, errorEnd]
        let state = WatchedState(Observed(
            outputDescriptor: stdout.fileHandleForReading.fileDescriptor,
            errorDescriptor: errorEnd.fileDescriptor))
        self.state = state
        // Read without blocking, each pipe on a thread of its own that polls it: not
        // Foundation's readability handlers, whose dispatch source can still be registered
        // with the event loop when the pipe's descriptor is closed (the handler cleared, the
        // handle freed), and whose descriptor number, reused meanwhile by another test, then
        // crashed libdispatch's manager thread (`_dispatch_event_loop_drain`). A thread holds
        // its handle, so the descriptor stays open until it has stopped reading it.
        for handle in readEnds {
            let descriptor = handle.fileDescriptor
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        let stopReading = self.stopReading
        Self.startReader(stdout.fileHandleForReading, state: state, stop: stopReading) { observed, data, ended in
            if ended { observed.outputEnded = true }
            observed.standardOutput.append(data)
        }
        Self.startReader(errorEnd, state: state, stop: stopReading) { observed, data, ended in
            if ended { observed.errorEnded = true }
            observed.standardError.append(data)
        }
        // The exit as the kernel tells it, not Foundation's handler, which a child spawned
        // meanwhile by another test can hold back until that child ends (ChildProcessExit).
        exit = try ChildProcessExit.run(process, launch: ChildProcess.runWithDefaultSignalMask) { status in
            state.update { observed in
                observed.terminationStatus = status.value
                observed.noteIfFinished()
            }
        }
    }

    /// Set when the process is freed: its reader threads stop at their next poll, even when a
    /// child another test spawned meanwhile holds a pipe's write end and no end ever comes.
    private let stopReading = ReaderStop()

    /// A flag the reader threads share with the process (`Atomic` is not copyable).
    private final class ReaderStop: Sendable {
        let requested = Atomic<Bool>(false)
    }

    /// A thread reading `handle` until its end (or `stop`), handing each read to `take` under
    /// the state's lock. Polls with a timeout: a blocked read could not see `stop`.
    private static func startReader(
        _ handle: FileHandle, state: WatchedState<Observed>, stop: ReaderStop,
        take: @escaping @Sendable (inout Observed, Data, Bool) -> Void
    ) {
        let thread = Thread {
            let descriptor = handle.fileDescriptor
            while !stop.requested.load(ordering: .relaxed) {
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // A fifth of a second between looks at `stop`: only a process freed before its
                // pipes ended waits that long for its threads.
                guard poll(&request, 1, 200) > 0 else { continue }
                // In flight before the bytes leave the pipe, so that isFinished never sees them
                // neither in the pipe nor recorded.
                state.update { $0.readsInFlight += 1 }
                let (data, ended) = readAvailable(descriptor)
                state.update { observed in
                    take(&observed, data, ended)
                    observed.readsInFlight -= 1
                    observed.noteIfFinished()
                }
                if ended { break }
            }
            // The handle, and so its descriptor, lives until here.
            withExtendedLifetime(handle) {}
        }
        thread.name = "beaconctl-process-reader"
        thread.start()
    }

    /// What a non-blocking pipe holds now, and whether it has ended (every writer closed it).
    private static func readAvailable(_ descriptor: Int32) -> (Data, ended: Bool) {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                return (data, true)
            } else if errno == EINTR {
                continue
            } else {
                // EAGAIN: nothing more for now. Any other error ends the pipe for us.
                return (data, errno != EAGAIN && errno != EWOULDBLOCK)
            }
        }
    }

    deinit {
        if state.value.terminationStatus == nil {
            kill(process.processIdentifier, SIGKILL)
        }
        stopReading.requested.store(true, ordering: .relaxed)
    }

    var standardOutput: String { String(decoding: state.value.standardOutput, as: UTF8.self) }
    var standardError: String { String(decoding: state.value.standardError, as: UTF8.self) }
    /// The exit status once the process has exited and all its output has been read.
    var exitStatus: Int32? { state.value.exitStatus }

    /// Complete lines of standard output so far.
    var outputLines: [String] { state.value.outputLines }

    /// The first output line satisfying `condition`: resumes when beaconctl prints it.
    /// Throws when beaconctl ends without printing it, or after the safety deadline.
    func waitForLine(
        _ description: String, where condition: @escaping @Sendable (String) -> Bool
    ) async throws -> String {
        let observed = try await state.wait(for: "\(name) printing \(description)") { observed in
            observed.isFinished || observed.outputLines.contains(where: condition)
        }
        if let line = observed.outputLines.first(where: condition) { return line }
        throw BeaconctlProcessError(
            "\(name) exited with status \(observed.terminationStatus.map(String.init) ?? "?") before printing "
                + "\(description). Output:\n\(standardOutput)\nErrors:\n\(standardError)")
    }

    /// Resumes once the complete lines of standard output satisfy `condition` (as a whole);
    /// false when beaconctl ended first, or after the safety deadline.
    func waitForOutput(_ description: String, where condition: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        let observed = try? await state.wait(for: "\(name) printing \(description)") { observed in
            observed.isFinished || condition(observed.outputLines)
        }
        return observed.map { condition($0.outputLines) } ?? false
    }

    /// Resumes once standard error contains `text`. Throws when beaconctl ends without
    /// writing it, or after the safety deadline.
    func waitForError(containing text: String) async throws {
        let observed = try await state.wait(for: "beaconctl writing \(text) on standard error") { observed in
            observed.isFinished || String(decoding: observed.standardError, as: UTF8.self).contains(text)
        }
        guard String(decoding: observed.standardError, as: UTF8.self).contains(text) else {
            throw BeaconctlProcessError(
                "beaconctl exited with status \(observed.terminationStatus.map(String.init) ?? "?") before writing "
                    + "\(text). Output:\n\(standardOutput)\nErrors:\n\(standardError)")
        }
    }

    /// Resumes once `condition` holds for what beaconctl has printed so far (its complete
    /// standard output lines and its standard error). Throws when it ends first, or after
    /// the safety deadline.
    func waitUntil(
        _ description: String, _ condition: @escaping @Sendable (_ outputLines: [String], _ standardError: String) -> Bool
    ) async throws {
        @Sendable func holds(_ observed: Observed) -> Bool {
            condition(observed.outputLines, String(decoding: observed.standardError, as: UTF8.self))
        }
        let observed = try await state.wait(for: "\(name) printing \(description)") { $0.isFinished || holds($0) }
        if holds(observed) { return }
        throw BeaconctlProcessError(
            "\(name) exited with status \(observed.terminationStatus.map(String.init) ?? "?") before printing "
                + "\(description). Output:\n\(standardOutput)\nErrors:\n\(standardError)")
    }

    func signal(_ signalNumber: Int32) {
        guard state.value.terminationStatus == nil else { return }
        kill(process.processIdentifier, signalNumber)
    }

    /// The exit status, once the process has exited and its output is all read; nil when
    /// that has not happened within the safety deadline (a hang).
    func waitForExit() async -> Int32? {
        let observed = try? await state.wait(for: "beaconctl exiting") { $0.isFinished }
        return observed?.exitStatus
    }
}

struct BeaconctlProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
