#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif
import Synchronization

/// Where a command's output goes. Commands never call `print` directly: they write through
/// `Console.current`, which the tests replace with a capturing console to compare output
/// word for word without spawning a process.
public final class Console: Sendable {
    public let standardOutputIsTerminal: Bool
    public let standardErrorIsTerminal: Bool
    public let environment: [String: String]
    private let writeOutput: @Sendable (String) -> Void
    private let writeError: @Sendable (String) -> Void

    public init(
        standardOutputIsTerminal: Bool, standardErrorIsTerminal: Bool,
        environment: [String: String],
        writeOutput: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void
    ) {
        self.standardOutputIsTerminal = standardOutputIsTerminal
        self.standardErrorIsTerminal = standardErrorIsTerminal
        self.environment = environment
        self.writeOutput = writeOutput
        self.writeError = writeError
    }

    /// The process's real standard output and error.
    public static let standard = Console(
        standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1,
        standardErrorIsTerminal: isatty(STDERR_FILENO) == 1,
        environment: currentEnvironment(),
        writeOutput: { writeAll($0, to: STDOUT_FILENO) },
        writeError: { writeAll($0, to: STDERR_FILENO) })

    @TaskLocal public static var current: Console = .standard

    /// Writes `text` and a newline to standard output.
    public func line(_ text: String = "") { writeOutput(text + "\n") }
    /// Writes `text` to standard output as it is.
    public func write(_ text: String) { writeOutput(text) }
    /// Writes `text` and a newline to standard error.
    public func errorLine(_ text: String) { writeError(text + "\n") }
    /// Writes `text` to standard error as it is (a progress line redrawn in place).
    public func writeToError(_ text: String) { writeError(text) }

    private static func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return  // stdout closed (e.g. `| head`): nothing useful left to do with the text
            }
            bytes = bytes.dropFirst(written)
        }
    }

    private static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return result
    }
}

/// A console that keeps what was written, for tests and for callers embedding the CLI.
public final class CapturedOutput: Sendable {
    private let state = Mutex<(output: String, error: String)>(("", ""))

    public init() {}

    public var output: String { state.withLock { $0.output } }
    public var error: String { state.withLock { $0.error } }

    public func console(
        terminal: Bool = false, environment: [String: String] = [:]
    ) -> Console {
        Console(
            standardOutputIsTerminal: terminal, standardErrorIsTerminal: terminal,
            environment: environment,
            writeOutput: { text in self.state.withLock { $0.output += text } },
            writeError: { text in self.state.withLock { $0.error += text } })
    }
}
