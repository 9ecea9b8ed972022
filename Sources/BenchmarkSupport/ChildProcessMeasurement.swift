#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the release-built benchmarks share: each measurement runs in a fresh child process
/// (this executable again, with the arguments that name the measurement), so that the peak
/// memory it reports is that measurement's alone.
public enum ChildProcessMeasurement {
    /// Runs this executable again with `arguments` (after its own name) and returns what it
    /// printed, trailing newlines removed; `nil` when it could not be started.
    public static func run(_ arguments: [String]) -> String? {
        #if os(Linux)
        let executable = "/proc/self/exe"
        #else
        let executable = CommandLine.arguments.first ?? ""
        #endif
        let argumentsWithName = [CommandLine.arguments.first ?? executable] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return nil }
        // Close-on-exec: no other child inherits the pipe (the child's standard output is a
        // duplicate, which exec keeps). The benchmarks start one child at a time, so nothing
        // is spawned between pipe and fcntl.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        var argv: [UnsafeMutablePointer<CChar>?] = argumentsWithName.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, &argv, environ)
        close(pipeEnds[1])
        guard status == 0 else {
            close(pipeEnds[0])
            return nil
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output += chunk[0..<count]
        }
        close(pipeEnds[0])
        var exitStatus: Int32 = 0
        while waitpid(child, &exitStatus, 0) < 0 && errno == EINTR {}
        var text = String(decoding: output, as: UTF8.self)
        while text.last == "\n" { text.removeLast() }
        return text
    }

    /// This process's peak resident set (VmHWM of /proc/self/status), bytes; 0 where it
    /// cannot be read.
    public static func peakResidentBytes() -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmHWM:") {
                return (Int(text.dropFirst(6).filter(\.isNumber)) ?? 0) * 1024
            }
        }
        return 0
    }
}
