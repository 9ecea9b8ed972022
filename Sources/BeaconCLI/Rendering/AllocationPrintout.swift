import BeaconCore
import BeaconFleet
import FleetManifest

/// What `fleet plan` says of an allocation: the manifest YAML for standard output, with a
/// comment saying where it goes, and the line that says where `--append` wrote it.
enum AllocationPrintout {
    static func text(_ allocation: AllocationPlan, existing: ResolvedVenue?) -> String {
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

    /// `line`: where the new text starts in `file`.
    static func appended(_ allocation: AllocationPlan, file: String, line: Int) -> String {
        let beacons = "\(NumberText.count(allocation.beacons.count, "beacon"))"
        let what = allocation.venue.isNew
            ? "venue `\(allocation.venue.id)` with \(beacons)" : "\(beacons) to venue `\(allocation.venue.id)`"
        return "added \(what) in \(file) at line \(line)"
    }
}
