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
        let namespace = try loadNamespace()
        let existing = namespace.fleet.venues.first { $0.id == venue }
        // What the manifest text declares and the resolved model does not keep: the venue's
        // `major:`/`uuid:` and the fleet's `uuid:` (new beacons inherit them), and the
        // --append file's `fleet:` (for a file without venues or regions yet).
        let appendDeclared = try append.map { AllocationAppend.declarations(of: nil, in: try contents($0, in: namespace).bytes) }
        let fleetName = fleet ?? appendFileFleet(namespace.fleet) ?? appendDeclared?.fleetName
        var request = AllocationRequest(
            fleetName: fleetName, venueID: venue, venueName: venueName, plan: try planSize(), host: host,
            uuid: try proximityUUID(), groups: try groups(), majorScheme: majorPer, major: major,
            firstMinor: firstMinor, minorStep: minorStep, zoneGap: gap, zoneAlignment: align)
        if let file = existing?.location.file ?? append ?? fleetFile(fleetName, in: namespace.fleet) {
            let declared = AllocationAppend.declarations(of: existing, in: try contents(file, in: namespace).bytes)
            request.declaredVenueMajor = declared.venueMajor
            request.declaredVenueUUID = declared.venueUUID
            request.declaredFleetUUID = declared.fleetUUID
        }
        let allocation: AllocationPlan
        do {
            allocation = try AllocationPlanner.plan(request, in: namespace.fleet)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        for note in allocation.notes { Console.current.errorLine("note: \(note)") }

        guard let append else {
            Console.current.write(Self.printed(allocation, existing: existing))
            return
        }
        try write(allocation, into: append, namespace: namespace)
        for beacon in allocation.beacons {
            Console.current.line("\(beacon.id)\t\(beacon.zone ?? "-")\t\(beacon.identity)")
        }
    }

    /// The manifest YAML for standard output, with a comment saying where it goes.
    static func printed(_ allocation: AllocationPlan, existing: ResolvedVenue?) -> String {
        if allocation.isNewFleet {
            return "# A new fleet manifest for `\(allocation.fleetName)`: save it as a .yaml file in the fleets folder.\n"
                + AllocationYAML.manifest(allocation)
        }
        if let existing {
            return "# New beacons for venue `\(existing.id)` (\(existing.location)): add them to its `beacons:` list,\n"
                + "# or run again with --append \(existing.location.file).\n"
                + AllocationYAML.beacons(allocation, indentation: .standard)
        }
        return "# Venue `\(allocation.venue.id)` of fleet `\(allocation.fleetName)`: add it to the fleet's `venues:` list,\n"
            + "# or run again with --append FILE.\n" + AllocationYAML.venue(allocation, indentation: .standard)
    }

    private func write(_ allocation: AllocationPlan, into file: String, namespace: ManifestLoadResult) throws {
        // What the plan was made from, not the file as it is now: the write-back refuses
        // a file changed since.
        let original = try contents(file, in: namespace)
        let fleet = namespace.fleet
        let insertion: ManifestInsertion
        do {
            insertion = try AllocationAppend.insertion(for: allocation, into: original.bytes, file: file, fleet: fleet)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        let edited = insertion.applied(to: original.bytes)
        do {
            let diagnostics = try AllocationFileUpdate.validate(
                allocation, newBytes: edited, file: file, namespaceFiles: fleet.files, snapshots: namespace.snapshots)
            for warning in diagnostics where warning.severity == .warning {
                Console.current.errorLine(warning.rendered)
            }
            try AllocationFileUpdate.write(edited, replacing: original)
        } catch {
            if case .invalidResult(_, let diagnostics) = error {
                for diagnostic in diagnostics { Console.current.errorLine(diagnostic.rendered) }
                throw CommandFailure(.findings, error.description)
            }
            throw CommandFailure(.usageOrInput, error.description)
        }
        let added = allocation.beacons.count
        let beacons = "\(NumberText.count(added, "beacon"))"
        let what = allocation.venue.isNew
            ? "venue `\(allocation.venue.id)` with \(beacons)" : "\(beacons) to venue `\(allocation.venue.id)`"
        Console.current.errorLine("added \(what) in \(file) at line \(insertion.line)")
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

    /// A manifest file of the fleet, to read its top-level UUID from.
    private func fleetFile(_ name: String?, in fleet: Fleet) -> String? {
        guard let name else { return nil }
        return fleet.venues.first { $0.fleetName == name }?.location.file
            ?? fleet.regions.first { $0.fleetName == name }?.location.file
    }

    /// The fleet of the --append file, for when --fleet is not given.
    private func appendFileFleet(_ fleet: Fleet) -> String? {
        guard let append else { return nil }
        return fleet.venues.first { $0.location.file == append }?.fleetName
            ?? fleet.regions.first { $0.location.file == append }?.fleetName
    }

    /// A manifest as the namespace load read it (read now only for a file outside it).
    private func contents(_ path: String, in namespace: ManifestLoadResult) throws -> ManifestFileSnapshot {
        if let snapshot = namespace.snapshots[path] { return snapshot }
        do {
            return try AllocationFileUpdate.read(path)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
    }
}
