import Testing
@testable import BeaconCLI

/// What one in-process `beaconctl` run produced.
struct CommandResult {
    var status: Int32
    var output: String
    var error: String
}

/// Runs `beaconctl` with `arguments` in this process on a capturing console.
func runBeaconctl(
    _ arguments: [String], terminal: Bool = false, environment: [String: String] = [:]
) async -> CommandResult {
    let captured = CapturedOutput()
    let status = await Console.$current.withValue(
        captured.console(terminal: terminal, environment: environment)
    ) {
        await BeaconCtlRunner.run(arguments)
    }
    return CommandResult(status: status, output: captured.output, error: captured.error)
}
