import ArgumentParser

/// `--exec COMMAND`, shared by the commands that report events as they happen (`monitor`,
/// `verify --watch`): one help text, one check.
struct ExecHookOption: ParsableArguments, Sendable {
    @Option(
        name: .customLong("exec"),
        help: ArgumentHelp(
            "Run this program on every event reported (words split at spaces, no shell); the event is in BEACONCTL_* variables.",
            valueName: "command"))
    var command: String?

    init() {}

    func validate() throws {
        if let command, command.split(separator: " ").isEmpty {
            throw ValidationError("--exec needs a program to run.")
        }
    }
}
