import ArgumentParser
import BeaconCore
import FleetManifest
import Foundation
import HCITransports
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

    enum ExportFormat: String, CaseIterable, ExpressibleByArgument {
        case csv, json
        case iOSRegions = "ios-regions"
        case swift
        case androidRegions = "android-regions"
        case espresense, theengs
        case openMQTTGateway = "openmqttgateway"

        /// The gateway whose keep-list this format is.
        var keepList: GatewayKeepList.Kind? { GatewayKeepList.Kind(rawValue: rawValue) }
    }

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var input: ManifestInput

    @Option(help: "Output format: csv, json, ios-regions, swift, android-regions, espresense, theengs or openmqttgateway.")
    var format: ExportFormat = .csv

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @Option(help: ArgumentHelp("Only this venue's beacons (csv, json and the receivers' keep-lists).", valueName: "id"))
    var venue: String?

    func validate() throws {
        if venue != nil, [.iOSRegions, .swift, .androidRegions].contains(format) {
            throw ValidationError("--venue chooses beacons; an app's regions are the manifest's `regions`, whole: leave --venue out with --format \(format.rawValue).")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("fleet export")
        let result = try await input.load()
        try reportBlockingDiagnostics(result)
        let fleet = result.fleet
        let beacons = try chosenBeacons(fleet)
        let name = Set(fleet.regions.map(\.fleetName) + fleet.venues.map(\.fleetName)).sorted().joined(separator: ", ")
        let text: String
        switch format {
        case .csv: text = FleetExport.csv(beacons)
        case .json: text = FleetExport.json(beacons)
        case .iOSRegions:
            try checkBudget(fleet)
            text = AppRegionExport.iOSJSON(fleet.regions, fleet: name, budget: input.budget)
        case .swift:
            try checkBudget(fleet)
            text = AppRegionSwiftSource.file(fleet.regions, fleet: name, budget: input.budget)
        case .androidRegions:
            text = AppRegionExport.androidJSON(fleet.regions, fleet: name)
        case .espresense, .theengs, .openMQTTGateway:
            guard let kind = format.keepList else { return }
            do {
                text = try GatewayKeepList(kind, beacons: beacons).text + "\n"
            } catch {
                throw CommandFailure(.findings, error.description)
            }
        }
        try writeOutput(text, to: output)
    }

    /// The venue's beacons with --venue, else the fleet's.
    private func chosenBeacons(_ fleet: Fleet) throws -> [ResolvedBeacon] {
        guard let venue else { return fleet.beacons }
        guard let chosen = fleet.venues.first(where: { $0.id == venue }) else {
            let known = fleet.venues.map(\.id).joined(separator: ", ")
            throw CommandFailure(.usageOrInput, "--venue \(venue): the manifest has no such venue (its venues: \(known))")
        }
        return chosen.beacons
    }

    /// An iOS app monitors at most the budget's regions: a file with more would fail in
    /// the app, region by region, past the limit.
    private func checkBudget(_ fleet: Fleet) throws {
        let budget = input.budget
        let verdict = budget.check(fleet.regions, beacons: fleet.beacons)
        guard let advice = verdict.advice(budget: budget) else { return }
        throw CommandFailure(
            .findings,
            "the manifest has \(fleet.regions.count) regions and an app can monitor \(budget.limit) (--region-budget): \(advice)")
    }
}

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
        if let outputDirectory {
            let targets = manifests.map { (path: outputDirectory + "/" + $0.fleet + ".yaml", yaml: $0.yaml) }
            try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
            for target in targets { try refuseOverwrite(target.path) }
            for target in targets {
                try writeOutput(target.yaml, to: target.path)
                Console.current.errorLine("wrote \(target.path)")
            }
            return
        }
        guard manifests.count == 1, let manifest = manifests.first else {
            let names = manifests.map(\.fleet).joined(separator: ", ")
            throw CommandFailure(.usageOrInput, "the CSV holds \(manifests.count) fleets (\(names)) and a manifest holds one; pass --output-dir DIR to write one file per fleet.")
        }
        if let output { try refuseOverwrite(output) }
        try writeOutput(manifest.yaml, to: output)
    }

    private func refuseOverwrite(_ path: String) throws {
        if !force, FileManager.default.fileExists(atPath: path) {
            throw CommandFailure(.usageOrInput, "\(path) exists; pass --force to overwrite it or write elsewhere.")
        }
    }
}

/// Prints a load's diagnostics to standard error and stops when they include errors or an
/// unreadable input: export and import never hand on a broken fleet.
func reportBlockingDiagnostics(_ result: ManifestLoadResult) throws {
    for diagnostic in result.diagnostics { Console.current.errorLine(diagnostic.rendered) }
    if !result.unreadableInputs.isEmpty { throw ExitStatus.usageOrInput.exitCode }
    if result.errorCount > 0 {
        Console.current.errorLine("beaconctl: error: the manifest has \(NumberText.count(result.errorCount, "error")); fix them first (`beaconctl fleet validate` lists them).")
        throw ExitStatus.findings.exitCode
    }
}

/// The whole text of `path`, or of standard input for `-`; read on a thread of its own (a
/// pipe may wait for as long as its writer takes), never on the cooperative pool.
func readInput(_ path: String) async throws -> String {
    let read: Result<String, CommandFailure>
    do {
        read = try await POSIXThread.run { () -> Result<String, CommandFailure> in
            if path == "-" {
                return .success(String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))
            }
            do {
                return .success(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self))
            } catch {
                return .failure(CommandFailure(.usageOrInput, "cannot read \(path): \(error.localizedDescription)"))
            }
        }
    } catch {
        throw CommandFailure(.usageOrInput, "cannot read \(path): \(error)")
    }
    return try read.get()
}

/// Writes `text` to `path` atomically (where every file beaconctl writes is written:
/// `ManifestFileReplacement`), or to standard output.
func writeOutput(_ text: String, to path: String?) throws {
    guard let path else {
        // By its last byte: "\r\n" (CSV's record end) is one Character, which `hasSuffix("\n")` misses.
        Console.current.write(text.utf8.last == UInt8(ascii: "\n") ? text : text + "\n")
        return
    }
    do {
        try ManifestFileReplacement.write(Array(text.utf8), to: path)
    } catch {
        throw CommandFailure(.usageOrInput, error.description)
    }
}
