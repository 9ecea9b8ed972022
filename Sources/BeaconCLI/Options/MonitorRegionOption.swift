import ArgumentParser
import BeaconCore
import FleetManifest

/// `--region ID=UUID[/MAJOR[/MINOR]]`: a region given on the command line. Absent values
/// are wildcards, as in `CLBeaconRegion`; a minor needs a major.
struct MonitorRegionOption: ExpressibleByArgument {
    var region: BeaconRegion

    init?(argument: String) {
        guard let parsed = try? Self.parse(argument) else { return nil }
        region = parsed
    }

    static func parse(_ argument: String) throws(ValidationError) -> BeaconRegion {
        let format = "write ID=UUID, ID=UUID/MAJOR or ID=UUID/MAJOR/MINOR"
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
            throw ValidationError("--region \(argument): no identifier; \(format)")
        }
        let identifier = String(argument[..<equals])
        let parts = argument[argument.index(after: equals)...].split(separator: "/", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { throw ValidationError("--region \(argument): \(format)") }
        let uuid: ProximityUUID
        do {
            uuid = try ProximityUUID(parsing: String(parts[0]))
        } catch {
            throw ValidationError("--region \(argument): \(error)")
        }
        var numbers: [UInt16] = []
        for (name, text) in zip(["major", "minor"], parts.dropFirst()) {
            guard let value = UInt16(text) else {
                throw ValidationError("--region \(argument): the \(name) must be 0 to 65535; got \"\(text)\"")
            }
            numbers.append(value)
        }
        let major = numbers.first
        let minor = numbers.count > 1 ? numbers[1] : nil
        guard let region = BeaconRegion(identifier: identifier, uuid: uuid, major: major, minor: minor) else {
            throw ValidationError("--region \(argument): \(format)")
        }
        return region
    }
}

extension MonitorRegionOption {
    /// The regions `monitor` watches: the manifests' `regions:` (a manifest with errors stops
    /// here), then `--region`s with the notification flags; and the manifests' beacons' ids
    /// by identity, to name them. A manifest without regions (and no --region) and two
    /// regions of one identifier are usage errors.
    static func load(
        manifest: [String], regions texts: [String], notifyOnEntry: Bool, notifyOnExit: Bool, notifyStateOnStart: Bool
    ) throws -> (regions: [MonitoredRegion], names: [BeaconIdentity: String]) {
        var regions: [MonitoredRegion] = []
        var names: [BeaconIdentity: String] = [:]
        if !manifest.isEmpty {
            let result = ManifestLoader.load(paths: manifest)
            try reportBlockingDiagnostics(result)
            regions += result.fleet.regions.map(MonitoredRegion.init)
            names = Dictionary(result.fleet.beacons.map { ($0.identity, $0.id) }) { first, _ in first }
            if result.fleet.regions.isEmpty && texts.isEmpty {
                throw CommandFailure(.usageOrInput, "\(manifest.joined(separator: ", ")) has no `regions:`; add some (docs/manifest.md) or give --region")
            }
        }
        for text in texts {
            regions.append(MonitoredRegion(
                region: try parse(text), notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit,
                notifyStateOnStart: notifyStateOnStart))
        }
        var seen: Set<String> = []
        for monitored in regions where !seen.insert(monitored.region.identifier).inserted {
            throw CommandFailure(.usageOrInput, "two regions are called `\(monitored.region.identifier)`; events name regions by identifier, so give each its own")
        }
        return (regions, names)
    }
}
