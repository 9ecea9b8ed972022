#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import Dispatch
import Logging
import Synchronization

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
/// the next run, never the command. What waits is bounded: at most `maximumWaiting` runs
/// (beyond, events are not run, counted and said), and a stop waits for the program at most
/// `stopWait` (a program that hangs must not keep a service from stopping; what was not run
/// is said).
final class ProgramHook: Sendable {
    /// Runs queued behind the one under way, at most. Each holds its environment (a few
    /// hundred bytes): ten thousand bound the memory to a few megabytes, and a program that
    /// far behind is not keeping up anyway.
    static let maximumWaiting = 10_000
    /// How long a stop on SIGINT/SIGTERM waits for the runs already queued: well inside the
    /// watch's own limit for stopping (StopDeadline), so that the final report still comes.
    static let stopWait: Duration = .seconds(1)

    let arguments: [String]
    private let environment: [String: String]
    private let logger: Logger
    private let queue: DispatchQueue
    private let maximumWaiting: Int
    private let counts = Mutex(Counts())

    private struct Counts {
        /// Queued and not yet finished, the run under way included.
        var unfinished = 0
        /// Events not run because `maximumWaiting` runs were already waiting.
        var skipped = 0
        /// A stop stopped waiting: the runs still queued are not made.
        var abandoned = false
    }

    /// `nil` when `command` has no words.
    init?(command: String, environment: [String: String], logger: Logger, label: String, maximumWaiting: Int = ProgramHook.maximumWaiting) {
        let words = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !words.isEmpty else { return nil }
        arguments = words
        self.environment = environment
        self.logger = logger
        queue = DispatchQueue(label: label)
        self.maximumWaiting = maximumWaiting
    }

    /// Queues a run with `variables` added to this process's environment. `subject` names
    /// the event in messages ("enter store"); `nulAdvice` says how to keep NULs out.
    func run(_ variables: [String: String], subject: String, nulAdvice: String) {
        if let cut = variables.keys.sorted().first(where: { variables[$0]?.utf8.contains(0) == true }) {
            logger.error("--exec \(arguments[0]) not run for \(subject): \(cut) would hold a NUL character, which an environment variable cannot carry; \(nulAdvice)")
            return
        }
        let (accepted, skipped) = counts.withLock { counts -> (Bool, Int) in
            // The run under way is not waiting: `maximumWaiting` more may queue behind it.
            guard counts.unfinished <= maximumWaiting else {
                counts.skipped += 1
                return (false, counts.skipped)
            }
            counts.unfinished += 1
            return (true, counts.skipped)
        }
        guard accepted else {
            if skipped == 1 {
                logger.warning("--exec \(arguments[0]) is slower than the events: \(maximumWaiting) runs are waiting, so events are not run until it catches up (the total is said at the end)")
            }
            return
        }
        let environment = self.environment.merging(variables) { _, event in event }
        queue.async { [self] in
            defer { counts.withLock { $0.unfinished -= 1 } }
            guard !counts.withLock({ $0.abandoned }) else { return }
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

    /// Waits for every queued run to finish: at the end of the input, every event is run.
    /// A stop (SIGINT/SIGTERM received, or `stopping`: an error ending the command) waits at
    /// most `stopWait`, then says what was not run and leaves the program running. Either
    /// way, events not run because too many were waiting are said.
    func finish(stopping: Bool = false) async {
        let stopping = stopping || TerminationSignals.stopRequested
        let (ends, end) = AsyncStream.makeStream(of: Bool.self)
        queue.async { end.yield(true); end.finish() }
        let timer: Task<Void, Never>? = stopping ? Task {
            // A real wait: the program is another process, with no clock of ours.
            try? await Task.sleep(for: Self.stopWait)
            end.yield(false)
            end.finish()
        } : nil
        var iterator = ends.makeAsyncIterator()
        let drained = await iterator.next() ?? true
        timer?.cancel()
        let (unfinished, skipped) = counts.withLock { counts in
            if !drained { counts.abandoned = true }
            return (counts.unfinished, counts.skipped)
        }
        if !drained && unfinished > 0 {
            let waiting = unfinished - 1
            logger.warning(
                "--exec \(arguments[0]) was still running \(Self.stopWait.components.seconds) s after the stop began; left running, and \(waiting) queued run\(waiting == 1 ? "" : "s") not made")
        }
        if skipped > 0 {
            logger.warning("--exec \(arguments[0]) was not run for \(skipped) event\(skipped == 1 ? "" : "s"): it was \(maximumWaiting) runs behind; a faster program, or one that hands the event on (to a queue) and returns, keeps up")
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
        // The program starts as if from a shell: nothing blocked (the queue's thread blocks
        // most signals, and a mask is inherited) and SIGINT/SIGTERM/SIGPIPE at their default
        // actions (ignored ones would be inherited), so that it can be stopped as usual.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var nothingBlocked = sigset_t()
        sigemptyset(&nothingBlocked)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGINT, SIGTERM, SIGPIPE, SIGUSR1] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigmask(&attributes, &nothingBlocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        // Nothing of this process's but the standard streams: a program left running (a
        // hook that hangs) must not hold a socket, a pipe or a file of beaconctl's open.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        _ = Self.closeFrom?(&actions, 3)
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
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

extension ProgramHook {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later: every descriptor
    /// from the given one up is closed in the child), looked up at run time because the C
    /// header declares it only for GNU sources. `nil` on an older C library, where the
    /// program inherits what is not close-on-exec (beaconctl opens its own files and
    /// sockets close-on-exec).
    private static let closeFrom: AddCloseFrom? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
        #else
        return nil
        #endif
    }()
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
