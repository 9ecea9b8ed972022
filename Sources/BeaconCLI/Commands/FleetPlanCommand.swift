import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import Foundation

struct FleetPlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Allocate majors and minors for a new venue, or new zones and beacons in one, without collisions.",
        discussion: """
            Loads the namespace (--fleets, default fleets/) and picks identities nothing in it \
            uses: a new venue gets the major after the highest its UUID uses (or --major), \
            beacons get minors zone by zone, --minor-step apart, with --gap free slots after \
            each zone and zones starting at multiples of --align. Zones already in the venue \
            grow into the gap after their last minor. Prints the manifest YAML, or with \
            --append FILE writes it into the manifest in place (comments and layout kept), \
            after checking the whole namespace still validates.
            Example: beaconctl fleet plan --fleet jays-donuts --venue store-5 \
            --zones entrance,register=2,pickup --minor-step 1 --gap 2
            """)

    @OptionGroup var globals: GlobalOptions

    @Option(name: .customLong("fleets"), help: "The namespace to allocate in: a folder (or file) of manifests (default: fleets).")
    var fleetsPath: String?

    @Option(help: "The fleet the venue belongs to (default: the venue's, or the --append file's).")
    var fleet: String?

    @Option(help: "The venue: a new id, or one in the namespace to add beacons to.")
    var venue: String

    @Option(help: "Zones to add, comma-separated; ZONE=N for N beacons (default --beacons-per-zone each).")
    var zones: String?

    @Option(help: "Beacon ids to add, comma-separated; ID@ZONE puts one in a zone.")
    var beacons: String?

    @Option(name: .customLong("beacons-per-zone"), help: "Beacons for each zone of --zones without its own count.")
    var beaconsPerZone = 1

    @Option(name: .customLong("major-per"), help: "Who gets a major of their own: venue, or zone (for venues whose zones are floors).")
    var majorPer: AllocationRequest.MajorScheme = .venue

    @Option(help: "The venue's major (default: the venue's own, or the next free one).")
    var major: UInt16?

    @Option(name: .customLong("first-minor"), help: "Where minors start (default: after the highest in the major, else 1).")
    var firstMinor: UInt16?

    @Option(name: .customLong("minor-step"), help: "Distance between the minors of one zone.")
    var minorStep = 1

    @Option(help: "Free slots left after each zone, for beacons added later.")
    var gap = 0

    @Option(help: "Start each new zone at a multiple of this (10: zone × 10, as department codes).")
    var align: Int?

    @Option(help: "Proximity UUID: required for a new fleet; for a new venue, when it differs from the fleet's.")
    var uuid: String?

    @Option(name: .customLong("venue-name"), help: "A new venue's display name.")
    var venueName: String?

    @Option(help: "A new venue's floor plan in metres, WIDTHxHEIGHT (e.g. 24x16).")
    var plan: String?

    @Option(help: "A new venue's advertising host.")
    var host: String?

    @Option(help: "Write the allocation into this manifest (in place, layout kept) instead of printing it.")
    var append: String?

    func validate() throws {
        if zones == nil && beacons == nil {
            throw ValidationError("Name what to add: --zones entrance,register=2 or --beacons ID[@ZONE],….")
        }
        if beaconsPerZone < 1 { throw ValidationError("--beacons-per-zone must be at least 1; got \(beaconsPerZone).") }
        _ = try groups()
        _ = try planSize()
        _ = try proximityUUID()
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("fleet plan")
        let allocating = FleetAllocating(namespace: try loadNamespace(), appendFile: append)
        let request = AllocationRequest(
            fleetName: fleet, venueID: venue, venueName: venueName, plan: try planSize(), host: host,
            uuid: try proximityUUID(), groups: try groups(), majorScheme: majorPer, major: major,
            firstMinor: firstMinor, minorStep: minorStep, zoneGap: gap, zoneAlignment: align)
        let allocation: AllocationPlan
        do {
            allocation = try allocating.plan(request)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        for note in allocation.notes { Console.current.errorLine("note: \(note)") }

        guard let append else {
            Console.current.write(AllocationPrintout.text(allocation, existing: allocating.existingVenue(venue)))
            return
        }
        let line: Int
        do {
            line = try allocating.append(allocation, into: append) { warnings in
                for warning in warnings { Console.current.errorLine(warning.rendered) }
            }
        } catch {
            if case .file(.invalidResult(_, let diagnostics)) = error {
                for diagnostic in diagnostics { Console.current.errorLine(diagnostic.rendered) }
                throw CommandFailure(.findings, error.description)
            }
            throw CommandFailure(.usageOrInput, error.description)
        }
        Console.current.errorLine(AllocationPrintout.appended(allocation, file: append, line: line))
        for beacon in allocation.beacons {
            Console.current.line("\(beacon.id)\t\(beacon.zone ?? "-")\t\(beacon.identity)")
        }
    }

    /// The namespace's manifests, with the --append file among them. The default folder
    /// may be missing (a first fleet); a folder named on the command line may not.
    private func loadNamespace() throws -> ManifestLoadResult {
        var paths: [String] = []
        // The --append file first, so its venues carry the name it was given here.
        if let append { paths.append(append) }
        let folder = fleetsPath ?? "fleets"
        if FileManager.default.fileExists(atPath: folder) {
            paths.append(folder)
        } else if fleetsPath != nil {
            throw CommandFailure(.usageOrInput, "cannot read \(folder): no such file or folder; pass --fleets with the folder of manifests")
        } else {
            Console.current.errorLine("note: no fleets/ folder here: allocating in an empty namespace (pass --fleets DIR to use one)")
        }
        guard !paths.isEmpty else { return ManifestLoadResult(fleet: Fleet(), diagnostics: []) }
        let result = ManifestLoader.load(paths: paths, keepingSnapshots: true)
        try reportBlockingDiagnostics(result)
        return result
    }
}
