import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import Foundation

struct PlanCoverageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Map where a venue's beacons are heard: heat map, dead zones, crowded zones, ties.",
        discussion: """
            Simulates every beacon of the venue at its manifest position and TX power with the \
            log-distance model the virtual radio uses (TX power − 41 dB at 1 m), judges a grid \
            over the venue's plan and prints a summary: coverage, dead-zone and crowded area, \
            the proximity class phones would give the nearest beacon (from its measured power), \
            and where two beacons tie for strongest. --output-dir also writes VENUE.svg and \
            VENUE.html. Walls come from a text file (--walls), one per line: \
            `VENUE X,Y X,Y … LOSSdB`; see docs/planning.md.
            """)

    @OptionGroup var globals: GlobalOptions

    @Argument(help: "Manifest files or folders (a folder is one namespace).")
    var manifests: [String] = []

    @Option(name: .customLong("venue"), help: "Map this venue (repeatable; default: every venue with a plan).")
    var venues: [String] = []

    @Option(name: .customLong("zone"), help: "Only the beacons of this zone (repeatable): for venues whose zones are floors, one floor.")
    var zones: [String] = []

    @Flag(name: .customLong("by-zone"), help: "One map per zone (for venues whose zones are floors): VENUE-ZONE.svg and .html.")
    var byZone = false

    @Option(help: "Grid cell size in metres.")
    var resolution: Double = 0.5

    @Option(name: .customLong("path-loss-exponent"), help: "Path-loss exponent n: 2 free space, 2.5–3.5 furnished rooms.")
    var pathLossExponent: Double = CoverageSettings.defaultPathLossExponent

    @Option(help: "Walls file: `VENUE X,Y X,Y … LOSSdB` per line (see docs/planning.md).")
    var walls: String?

    @Option(parsing: .unconditional, help: "Covered: the strongest beacon reaches this many dBm.")
    var threshold: Double = -85

    @Option(name: .customLong("dead-below"), parsing: .unconditional, help: "Dead zone: even the strongest beacon is below this many dBm.")
    var deadBelow: Double = -90

    @Option(help: "Crowded: at least this many beacons reach the crowding level (--crowded-threshold).")
    var crowded: Int = 3

    @Option(name: .customLong("crowded-threshold"), parsing: .unconditional,
            help: "Count a beacon towards crowding from this many dBm (default −70, or --threshold if stronger).")
    var crowdedThreshold: Double?

    @Option(name: .customLong("tie-margin"), help: "Two beacons tie for nearest when within this many dB.")
    var tieMargin: Double = 1

    @Option(name: .customLong("immediate-below"), help: "Proximity: immediate below this distance estimate, metres.")
    var immediateBelow: Double = 0.5

    @Option(name: .customLong("near-below"), help: "Proximity: near below this distance estimate, metres (far beyond).")
    var nearBelow: Double = 3

    @Flag(name: .customLong("air-from-measured-power"),
          help: "Start each beacon's air from its measured power (calibrated RSSI at 1 m) instead of TX power − 41 dB.")
    var airFromMeasuredPower = false

    @Option(name: .customLong("output-dir"), help: "Write VENUE.svg and VENUE.html for each map into this folder.")
    var outputDirectory: String?

    @Option(help: "Summary format: text (for people) or json (for programs).")
    var format: OutputFormat = .text

    var settings: CoverageSettings {
        CoverageSettings(
            resolution: resolution, environment: RadioEnvironment(pathLoss: PathLossModel(pathLossExponent: pathLossExponent)),
            threshold: threshold, deadBelow: deadBelow, crowdedAt: crowded,
            crowdedThreshold: crowdedThreshold, tieMargin: tieMargin,
            proximity: ProximityThresholds(immediateBelow: immediateBelow, nearBelow: nearBelow),
            airFromMeasuredPower: airFromMeasuredPower)
    }

    func validate() throws {
        if manifests.isEmpty {
            throw ValidationError("Name the manifest to map, e.g. `beaconctl plan coverage fleets/jays-donuts.yaml --venue cupertino`.")
        }
        if let problem = settings.problem {
            throw ValidationError("Cannot map coverage: \(problem).")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("plan coverage")
        let result = ManifestLoader.load(paths: manifests)
        try reportBlockingDiagnostics(result)
        let request = CoverageRequest(
            venueIDs: venues, zones: zones, byZone: byZone, settings: settings, walls: try await loadWalls())
        let reports: [CoverageReport]
        do {
            reports = try CoverageMapping.maps(request, in: result.fleet) { notes in
                for note in notes { Console.current.errorLine("note: \(note)") }
            }
        } catch {
            guard case .gridTooFine = error else { throw CommandFailure(.usageOrInput, error.description) }
            throw CommandFailure(.usageOrInput, "\(error.description); pass a coarser --resolution")
        }
        if let outputDirectory { try CoverageFiles.write(reports, to: outputDirectory) }

        switch format {
        case .text:
            let style = globals.style()
            Console.current.write(reports.map { CoverageReportText.render($0.summary, style: style) }.joined(separator: "\n"))
        case .json:
            Console.current.line(try JSONOutput.document(CoverageReportJSON(maps: reports.map(\.summary)), snakeCaseKeys: true))
        }
    }

    private func loadWalls() async throws -> CoverageWalls {
        guard let walls else { return CoverageWalls() }
        let text = try await readInput(walls)
        do {
            return try CoverageWalls.parse(text, file: walls)
        } catch {
            for problem in error.errors { Console.current.errorLine(problem.description) }
            throw CommandFailure(
                .usageOrInput,
                "the walls file \(walls) has \(NumberText.count(error.errors.count, "error")); fix them and map again.")
        }
    }
}
