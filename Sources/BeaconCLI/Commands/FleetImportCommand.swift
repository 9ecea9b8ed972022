import ArgumentParser
import BeaconFleet
import FleetManifest

struct FleetImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn a CSV of beacons (the columns `fleet export` writes) into manifests.",
        discussion: """
            Columns: fleet, venue, beacon, uuid, major and minor are required; name, zone, \
            measured_power, interval_ms, tx_power, x, y, host and mac are optional. The manifest \
            is loaded back and validated before anything is written; problems are reported at \
            the CSV cell they come from. A CSV with several fleets needs --output-dir: one \
            FLEET.yaml is written per fleet.
            """)

    @OptionGroup var globals: GlobalOptions

    @Argument(help: "The CSV file to read ('-' for standard input).")
    var csv: String

    @Option(name: .shortAndLong, help: "Write the manifest to this file instead of standard output.")
    var output: String?

    @Option(name: .customLong("output-dir"), help: "Write one FLEET.yaml per fleet into this folder.")
    var outputDirectory: String?

    @Flag(help: "Overwrite output files that exist.")
    var force = false

    func validate() throws {
        if output != nil && outputDirectory != nil {
            throw ValidationError("Pass either --output or --output-dir, not both.")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("fleet import")
        let text = try await readInput(csv)
        let (manifests, diagnostics) = FleetImport.manifests(fromCSV: text, file: csv == "-" ? "<stdin>" : csv)
        for diagnostic in diagnostics { Console.current.errorLine(diagnostic.rendered) }
        if manifests.isEmpty || diagnostics.contains(where: { $0.severity == .error }) {
            throw ExitStatus.findings.exitCode
        }
        let destination: FleetImportDestination = outputDirectory.map { .directory($0) } ?? output.map { .file($0) } ?? .standardOutput
        let standardOutput: String?
        do {
            standardOutput = try FleetImporting.write(manifests, to: destination, force: force) { path in
                Console.current.errorLine("wrote \(path)")
            }
        } catch let error as FleetImportError {
            throw CommandFailure(.usageOrInput, error.description)
        }
        if let standardOutput { try writeOutput(standardOutput, to: nil) }
    }
}
