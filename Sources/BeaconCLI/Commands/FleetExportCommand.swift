import ArgumentParser
import BeaconFleet

struct FleetExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the fleet for other systems: beacons as CSV or JSON, regions for apps, keep-lists for receivers.",
        discussion: """
            csv, json: one row per beacon, with every inherited value resolved, for installers' \
            spreadsheets. ios-regions, swift, android-regions: the manifest's regions for an app \
            (docs/apps.md); refused (exit 1) when they are more than --region-budget, with the \
            wildcard regions that would cover them. espresense, theengs, openmqttgateway: what a \
            receiver keeps (docs/gateways.md). Refuses a manifest with errors (exit 1).
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var input: ManifestInput

    @Option(help: "Output format: csv, json, ios-regions, swift, android-regions, espresense, theengs or openmqttgateway.")
    var format: FleetExportFormat = .csv

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @Option(help: ArgumentHelp("Only this venue's beacons (csv, json and the receivers' keep-lists).", valueName: "id"))
    var venue: String?

    func validate() throws {
        if venue != nil, format.isAppRegions {
            throw ValidationError("--venue chooses beacons; an app's regions are the manifest's `regions`, whole: leave --venue out with --format \(format.rawValue).")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("fleet export")
        let result = try await input.load()
        try reportBlockingDiagnostics(result)
        let text: String
        do {
            text = try FleetExporting.text(result.fleet, format: format, venue: venue, budget: input.budget)
        } catch {
            throw CommandFailure(error.isFinding ? .findings : .usageOrInput, error.description)
        }
        try writeOutput(text, to: output)
    }
}
