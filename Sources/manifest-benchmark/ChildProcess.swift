#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs this executable again as `--child MODE FILE` and reads its one-line answer. A
/// fresh process per measurement is what makes its peak memory that measurement's alone.
func runChild(_ mode: ChildMode, file: String) -> Measurement? {
    #if os(Linux)
    let executable = "/proc/self/exe"
    #else
    let executable = CommandLine.arguments.first ?? "manifest-benchmark"
    #endif
    let arguments = [CommandLine.arguments.first ?? "manifest-benchmark", "--child", mode.rawValue, file]
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
    posix_spawn_file_actions_addclose(&actions, pipeEnds[0])

    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var child: pid_t = 0
    let status = posix_spawn(&child, executable, &actions, nil, &argv, environ)
    close(pipeEnds[1])
    guard status == 0 else {
        close(pipeEnds[0])
        return nil
    }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
        if count <= 0 { break }
        output.append(contentsOf: buffer[0..<count])
    }
    close(pipeEnds[0])
    var exitStatus: Int32 = 0
    waitpid(child, &exitStatus, 0)
    return Measurement(line: String(decoding: output, as: UTF8.self).trimmingNewlines)
}

extension String {
    var trimmingNewlines: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
