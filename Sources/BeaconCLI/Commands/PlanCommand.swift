import ArgumentParser

/// `beaconctl plan …`: venue planning on the floor plan.
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Plan venues on their floor plans: where the beacons are heard and where not.",
        subcommands: [PlanCoverageCommand.self])
}
