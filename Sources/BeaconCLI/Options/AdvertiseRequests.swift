import BeaconCore
import BeaconFleet
import FleetManifest

/// What `advertise` is asked to put on the air, from its flags.
enum AdvertiseRequests {
    /// The beacons to advertise: the flags' one, or the manifest's selection. Manifest
    /// errors are printed and end the command with exit 1.
    static func load(
        beacon: AdvertiseBeaconOptions, manifest: AdvertiseManifestOptions, errorStyle: Style
    ) throws -> [AdvertisingRequest] {
        if beacon.isAnyGiven { return [try beacon.request()] }
        let result = ManifestLoader.load(paths: manifest.manifest)
        let console = Console.current
        // Errors stop the command; warnings (e.g. more beacons on a host than it has sets) are shown too.
        for diagnostic in result.diagnostics where diagnostic.severity != .note {
            console.errorLine(errorStyle.rendered(diagnostic))
        }
        if !result.unreadableInputs.isEmpty {
            throw CommandFailure(.usageOrInput, "cannot read \(result.unreadableInputs.joined(separator: ", "))")
        }
        if result.errorCount > 0 {
            throw CommandFailure(
                .findings,
                "the manifest has \(NumberText.count(result.errorCount, "error")); fix them (`beaconctl fleet validate` lists them too)")
        }
        do {
            let beacons = try manifest.selection().beacons(in: result.fleet)
            return try beacons.map { beacon throws(AdvertisingError) in try AdvertisingRequest(beacon) }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(.usageOrInput, "\(error)")
        }
    }
}
