import ArgumentParser
import BeaconCore
import FleetManifest
import Foundation
import HCITransports

struct FleetExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write one row per beacon, with every inherited value resolved, as CSV or JSON.",
        discussion: "For installers' spreadsheets and other systems. Refuses a manifest with errors (exit 1).")

    enum ExportFormat: String, CaseIterable, ExpressibleByArgument {
        case csv, json
    }

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var input: ManifestInput

    @Option(help: "Output format: csv or json.")
    var format: ExportFormat = .csv

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    func run() async throws {
        try UnexpectedErrorProbe.reached("fleet export")
        let result = try await input.load()
        try reportBlockingDiagnostics(result)
        let text: String
        switch format {
        case .csv: text = FleetExport.csv(result.fleet.beacons)
        case .json: text = FleetExport.json(result.fleet.beacons)
        }
        try writeOutput(text, to: output)
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
        Console.current.write(text.hasSuffix("\n") ? text : text + "\n")
        return
    }
    do {
        try ManifestFileReplacement.write(Array(text.utf8), to: path)
    } catch {
        throw CommandFailure(.usageOrInput, error.description)
    }
}
