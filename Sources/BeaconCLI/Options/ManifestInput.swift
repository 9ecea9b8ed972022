import ArgumentParser
import FleetManifest
import HCITransports

/// Options for reading manifests, shared by the commands that load them.
struct ManifestInput: ParsableArguments {
    @Argument(help: "Manifest files or folders. A folder is one namespace: every .yaml/.yml file in it, recursively.")
    var paths: [String] = []

    @Option(name: .customLong("max-beacons-per-host"),
            help: "Advertising sets one controller holds, for the per-host warning (default: the manifest's max_beacons_per_host, else 16).")
    var maxBeaconsPerHost: Int?

    @Option(name: .customLong("region-budget"),
            help: "Regions an app can monitor, 1 to 20: Core Location's 20 less the app's geofences (default 20).")
    var regionBudget: Int?

    func validate() throws {
        if paths.isEmpty {
            throw ValidationError("Name at least one manifest file or folder, e.g. `beaconctl fleet validate fleets/`.")
        }
        if let maxBeaconsPerHost, maxBeaconsPerHost < 1 {
            throw ValidationError("--max-beacons-per-host must be at least 1; got \(maxBeaconsPerHost).")
        }
        if let regionBudget, RegionBudget(regionBudget) == nil {
            throw ValidationError("--region-budget must be from 1 to \(RegionBudget.iOSLimit) (Core Location monitors \(RegionBudget.iOSLimit) regions per app); got \(regionBudget).")
        }
    }

    var options: ValidationOptions {
        var options = ValidationOptions()
        if let maxBeaconsPerHost { options.maxBeaconsPerHost = maxBeaconsPerHost }
        options.regionBudget = budget
        return options
    }

    /// `--region-budget`, or Core Location's limit.
    var budget: RegionBudget { regionBudget.flatMap(RegionBudget.init) ?? .iOS }

    /// Reads and checks the manifests on a thread of its own: reading files blocks, and a
    /// fleet of a million beacons takes seconds, neither of which belongs on Swift's small
    /// cooperative pool, where it would hold up every other task of the process.
    func load() async throws -> ManifestLoadResult {
        try await Self.load(paths: paths, options: options)
    }

    /// `load()` for a command that takes manifests without this group's budgets.
    static func load(paths: [String], options: ValidationOptions) async throws -> ManifestLoadResult {
        do {
            return try await POSIXThread.run { ManifestLoader.load(paths: paths, options: options) }
        } catch {
            throw CommandFailure(.usageOrInput, "cannot start a thread to read the manifests: \(error)")
        }
    }
}
