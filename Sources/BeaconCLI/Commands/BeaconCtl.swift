import ArgumentParser
import BeaconCore

/// The `beaconctl` command: the root of every subcommand.
public struct BeaconCtl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "beaconctl",
        abstract: "Turn Linux boxes into iBeacons, plan fleets of them, and check the air against the plan.",
        discussion: """
            Exit codes: 0 all good; 1 findings (an invalid manifest, a failed verification); \
            2 usage error or unreadable input; 3 controller or transport failure.
            Controllers are named by one transport string everywhere: hci0, hci-socket:0, \
            hci-user:0, tcp-client:HOST:PORT, serial:/dev/ttyACM0[,BAUD], virtual.
            """,
        version: BeaconCtlVersion.current,
        subcommands: BeaconCtl.subcommandTypes)

    public init() {}
}

public enum BeaconCtlVersion {
    public static let current = "0.1.0"
}

/// Runs `beaconctl` with `arguments` (without the program name) on `Console.current` and
/// returns the process exit code. `main` calls this; tests call it with a capturing console.
public enum BeaconCtlRunner {
    public static func run(_ arguments: [String]) async -> Int32 {
        // Library messages name settings and commands as typed values; here they are
        // spelled as this command line's flags and subcommands.
        await UserTerms.$spelling.withValue(.commandLine) {
            await runCommand(arguments)
        }
    }

    private static func runCommand(_ arguments: [String]) async -> Int32 {
        let command: any ParsableCommand
        do {
            command = try BeaconCtl.parseAsRoot(arguments)
        } catch {
            return report(error)
        }
        return await execute(command)
    }

    /// Runs a parsed command and turns whatever it throws into the documented exit status,
    /// printing the message on standard error.
    static func execute(_ command: any ParsableCommand) async -> Int32 {
        do {
            var command = command
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return ExitStatus.clean.rawValue
        } catch {
            return report(error)
        }
    }

    private static func report(_ error: any Error) -> Int32 {
        let console = Console.current
        switch error {
        case let failure as CommandFailure:
            console.errorLine("beaconctl: error: \(failure.message)")
            return failure.status.rawValue
        case let exit as ExitCode:
            // A command's own outcome (findings are 1), already reported by the command.
            return exit.rawValue
        default:
            break
        }
        let code = BeaconCtl.exitCode(for: error)
        if code == .success {
            // --help and --version: their text is the requested output.
            let message = BeaconCtl.fullMessage(for: error)
            if !message.isEmpty { console.line(message) }
            return ExitStatus.clean.rawValue
        }
        if code == .validationFailure {
            // ArgumentParser reports usage errors as EX_USAGE (64); our contract says 2.
            let message = BeaconCtl.fullMessage(for: error)
            if !message.isEmpty { console.errorLine(message) }
            return ExitStatus.usageOrInput.rawValue
        }
        // An error no command wrapped. ArgumentParser would leave with 1, which the contract
        // keeps for findings: it leaves with the status its kind documents instead.
        let status = ExitStatus.unexpected(error)
        console.errorLine("beaconctl: error: \(ExitStatus.message(for: error))")
        return status.rawValue
    }
}
