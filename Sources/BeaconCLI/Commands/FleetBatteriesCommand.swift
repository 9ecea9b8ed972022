import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest

/// `beaconctl fleet batteries`: the beacons to replace on the next visit, from a watch's
/// state file.
struct FleetBatteriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batteries",
        abstract: "List the beacons whose batteries to replace on the next visit, per venue, soonest first.",
        discussion: """
            Reads the daily battery medians a watch keeps in its state file \
            (beaconctl verify --watch … --state FILE) against the manifest's battery_low: a \
            beacon below it now, or whose trend reaches it within --within days, is to replace \
            (docs/health.md). A forecast needs medians on 3 days or more. Exit 0 whatever it \
            lists; 2 for a manifest or state file that cannot be read.
            """)

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case text, csv, json
    }

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var input: ManifestInput

    @Option(help: ArgumentHelp("The watch's state file (verify --watch --state FILE).", valueName: "file"))
    var state: String

    @Option(help: ArgumentHelp("Days ahead: a battery due within them is replaced on this visit.", valueName: "days"))
    var within: Double = 30

    @Option(help: ArgumentHelp("Only this venue's beacons.", valueName: "id"))
    var venue: String?

    @Option(help: "Output format: text, csv or json.")
    var format: Format = .text

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    func validate() throws {
        guard within.isFinite, within >= 0, within <= 3650 else {
            throw ValidationError("--within must be a number of days from 0 to 3650; got \(within).")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("fleet batteries")
        let result = try await input.load()
        try reportBlockingDiagnostics(result)
        let saved: AuditStateFile.Contents
        do {
            guard let found = try AuditStateFile.read(state) else {
                throw CommandFailure(.usageOrInput, "\(state) does not exist: run beaconctl verify --watch … --state \(state) first")
            }
            saved = found
        } catch let error as AuditStateFileError {
            throw CommandFailure(.usageOrInput, error.description)
        }
        var beacons = result.fleet.beacons
        if let venue {
            guard result.fleet.venues.contains(where: { $0.id == venue }) else {
                let known = result.fleet.venues.map(\.id).joined(separator: ", ")
                throw CommandFailure(.usageOrInput, "--venue \(venue): the manifest has no such venue (its venues: \(known))")
            }
            beacons = beacons.filter { $0.venueID == venue }
        }
        let today = Int((WallClock.unixTime() / 86_400).rounded(.down))
        let plan = BatteryReplacementPlan(beacons: beacons, histories: saved.batteries, today: today, within: within)
        switch format {
        case .text: try writeOutput(BatteryReplacementOutput.text(plan, today: today), to: output)
        case .csv: try writeOutput(BatteryReplacementOutput.csv(plan, today: today), to: output)
        case .json: try writeOutput(BatteryReplacementOutput.json(plan, today: today), to: output)
        }
    }
}
