import ArgumentParser

/// `beaconctl fleet …`: manifests in, diagnostics and spreadsheets out.
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Validate, export and import fleet manifests.",
        subcommands: [
            FleetValidateCommand.self, FleetPlanCommand.self, FleetExportCommand.self, FleetImportCommand.self,
            FleetBatteriesCommand.self,
        ])
}
