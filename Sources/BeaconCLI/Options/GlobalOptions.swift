import ArgumentParser
import Logging

/// Options every command takes: verbosity and colour.
public struct GlobalOptions: ParsableArguments, Sendable {
    @Flag(name: .shortAndLong, help: "Log more detail (repeat for trace: -vv).")
    var verbose: Int

    @Flag(name: .shortAndLong, help: "Log only errors.")
    var quiet = false

    @Option(name: .long, help: "Colour output: auto (only on a terminal and without NO_COLOR), always or never.")
    var color: ColorChoice = .auto

    public init() {}

    public func validate() throws {
        if quiet && verbose > 0 {
            throw ValidationError("--quiet and --verbose contradict each other; pass one of them.")
        }
    }

    var logLevel: Logger.Level {
        if quiet { return .error }
        switch verbose {
        case 0: return .notice
        case 1: return .info
        case 2: return .debug
        default: return .trace
        }
    }

    /// A logger writing to the current console's standard error at the chosen level.
    /// No global `LoggingSystem.bootstrap`: commands can run many times in one process (tests).
    func makeLogger(label: String = "beaconctl") -> Logger {
        let console = Console.current
        var logger = Logger(label: label) { label in
            ConsoleLogHandler(label: label, console: console)
        }
        logger.logLevel = logLevel
        return logger
    }

    func style(forStandardError: Bool = false) -> Style {
        let console = Console.current
        return Style(
            choice: color,
            isTerminal: forStandardError ? console.standardErrorIsTerminal : console.standardOutputIsTerminal,
            environment: console.environment)
    }
}

/// Machine-readable or human output; commands that stream use `jsonl`.
public enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case text, json
}
