#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import Dispatch
import Logging

/// `--exec` of `monitor` and `verify --watch`: runs a program per event, with the event in
/// environment variables only.
///
/// Beacon identities come from the air, where anyone can transmit anything, and names from
/// files; none of it ever reaches a shell or the argument list. The program is started with
/// `posix_spawnp` from the words of `--exec` (split at spaces by beaconctl, not by a shell)
/// and learns about the event from `BEACONCTL_*` variables, whose values each command keeps
/// bounded so that the environment stays far below the kernel's limits. A value holding a
/// NUL character cannot be passed whole (the environment is C strings): the run is skipped
/// with an error rather than handing the program a value cut short.
///
/// Runs happen one at a time, in event order, off the caller's task: a slow program delays
/// the next run, never the command.
final class ProgramHook: Sendable {
    let arguments: [String]
    private let environment: [String: String]
    private let logger: Logger
    private let queue: DispatchQueue

    /// `nil` when `command` has no words.
    init?(command: String, environment: [String: String], logger: Logger, label: String) {
        let words = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !words.isEmpty else { return nil }
        arguments = words
        self.environment = environment
        self.logger = logger
        queue = DispatchQueue(label: label)
    }

    /// Queues a run with `variables` added to this process's environment. `subject` names
    /// the event in messages ("enter store"); `nulAdvice` says how to keep NULs out.
    func run(_ variables: [String: String], subject: String, nulAdvice: String) {
        if let cut = variables.keys.sorted().first(where: { variables[$0]?.utf8.contains(0) == true }) {
            logger.error("--exec \(arguments[0]) not run for \(subject): \(cut) would hold a NUL character, which an environment variable cannot carry; \(nulAdvice)")
            return
        }
        let environment = self.environment.merging(variables) { _, event in event }
        queue.async { [self] in
            let status = spawnAndWait(environment: environment)
            switch status {
            case .success(0):
                break
            case .success(let code):
                logger.warning("--exec \(arguments[0]) exited with status \(code) for \(subject)")
            case .failure(let reason):
                logger.error("--exec \(arguments[0]) could not run: \(reason)")
            }
        }
    }

    /// Waits for every queued run to finish.
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// The exit status (128 + signal for a killed program), or why it did not start.
    private func spawnAndWait(environment: [String: String]) -> Result<Int32, SpawnFailure> {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        guard let program = argv.first ?? nil else { return .failure(SpawnFailure("no program given")) }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, program, nil, nil, argv, envp)
        guard result == 0 else { return .failure(SpawnFailure(errno: result)) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .failure(SpawnFailure("waiting for it failed: \(String(cString: strerror(errno)))")) }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out: the C macros are not imported.
        let signal = status & 0x7F
        return .success(signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
    }
}

/// Why a program could not be started, with what to do about it.
struct SpawnFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// From `posix_spawnp`'s error number: the advice depends on the cause.
    init(errno code: Int32) {
        let reason = String(cString: strerror(code))
        switch code {
        case E2BIG:
            // The event's own variables are bounded; the rest is this process's environment.
            self.init("\(reason): the environment beaconctl was started with is too large to pass on; start it with fewer or shorter variables (env -i …)")
        case ENOENT:
            self.init("\(reason): no such program on PATH or at that path")
        case EACCES, ENOEXEC:
            self.init("\(reason): check that the file is an executable program and that you may run it")
        default:
            self.init("\(reason); check the path and that it is executable")
        }
    }
}
