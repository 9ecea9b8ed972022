#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process of a benchmark (a broker, RootCanal, Bumble, the watch): started with
/// posix_spawn, its standard output and error written to files, ended by a signal and waited
/// for with `wait4`, whose resource usage gives its peak resident set.
public final class BenchmarkChild {
    public let pid: pid_t
    public let name: String
    public private(set) var exitStatus: Int32?
    /// The child's peak resident set (`ru_maxrss`), bytes; known once it has exited.
    public private(set) var peakBytes = 0

    /// Starts `executable` with `arguments`, standard input `/dev/null`, standard output and
    /// error into `output` and `errors` (created or truncated), the environment of this
    /// process plus `environment`. `nil` when it could not be started.
    public init?(_ executable: String, _ arguments: [String], output: String, errors: String, environment: [String: String] = [:]) {
        name = executable.split(separator: "/").last.map(String.init) ?? executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var inherited: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let key = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if environment[key] == nil { inherited.append(text) }
            pointer += 1
        }
        var envp: [UnsafeMutablePointer<CChar>?] = (inherited + environment.map { "\($0.key)=\($0.value)" }).map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var child: pid_t = 0
        guard posix_spawn(&child, executable, &actions, nil, &argv, &envp) == 0 else { return nil }
        pid = child
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
    }

    /// Whether it has exited (reaped without blocking).
    public var hasExited: Bool { exitStatus != nil || reap(blocking: false) }

    @discardableResult
    private func reap(blocking: Bool) -> Bool {
        guard exitStatus == nil else { return true }
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let result = wait4(pid, &status, blocking ? 0 : WNOHANG, &usage)
            if result < 0 && errno == EINTR { continue }
            guard result == pid else { return false }
            break
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (Glibc's are macros).
        let signal = status & 0x7F
        exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        // Linux reports ru_maxrss in kilobytes.
        peakBytes = Int(usage.ru_maxrss) * 1024
        return true
    }

    public func signal(_ signal: Int32) {
        if exitStatus == nil { kill(pid, signal) }
    }

    /// Waits up to `limit` for the exit, looking every millisecond (a child's exit has no
    /// event an async caller can await without a thread of its own); returns the seconds it
    /// took, or `nil` when it had not exited by then.
    public func waitForExit(within limit: Duration) async -> Double? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if hasExited { return Self.seconds(ContinuousClock.now - start) }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return hasExited ? Self.seconds(ContinuousClock.now - start) : nil
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// SIGTERM (and SIGCONT, should it be stopped), then SIGKILL if it has not exited within
    /// `grace`.
    public func stop(grace: Duration = .seconds(10)) async {
        signal(SIGTERM)
        signal(SIGCONT)
        if await waitForExit(within: grace) == nil {
            signal(SIGKILL)
            _ = reap(blocking: true)
        }
    }
}

/// A free TCP port on 127.0.0.1 (the kernel's choice for a socket bound to port 0), or `nil`.
public func freeLoopbackPort() -> UInt16? {
    #if os(Linux)
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else { return nil }
    return UInt16(bigEndian: address.sin_port)
}

/// The whole file as text (empty when it cannot be read).
public func readText(_ path: String) -> String {
    guard let file = fopen(path, "rb") else { return "" }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Writes `text` as the whole file; false when it could not.
public func writeText(_ text: String, to path: String) -> Bool {
    guard let file = fopen(path, "wb") else { return false }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    return fwrite(bytes, 1, bytes.count, file) == bytes.count
}
