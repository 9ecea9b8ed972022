import ArgumentParser
import BeaconCore
import FleetManifest

/// `scan --uuid`, `--major` and `--minor`: the region a scan is narrowed to, checked.
struct ScanRegionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only beacons with this proximity UUID.", valueName: "uuid"))
    var uuid: String?

    @Option(help: ArgumentHelp("Only this major (needs --uuid).", valueName: "major"))
    var major: Int?

    @Option(help: ArgumentHelp("Only this minor (needs --major).", valueName: "minor"))
    var minor: Int?

    init() {}

    func validate() throws {
        if let uuid {
            do {
                _ = try ProximityUUID(parsing: uuid)
            } catch {
                throw ValidationError("--uuid \(uuid): \(error)")
            }
        }
        if major != nil && uuid == nil {
            throw ValidationError("--major needs --uuid: a region is a UUID, optionally narrowed by major, then by minor.")
        }
        if minor != nil && major == nil {
            throw ValidationError("--minor needs --major: a region narrows by minor only within a major (UUID, UUID+major, UUID+major+minor).")
        }
        for (name, value) in [("--major", major), ("--minor", minor)] {
            if let value, !(0...65_535).contains(value) {
                throw ValidationError("\(name) must be 0 to 65535; got \(value).")
            }
        }
    }

    /// The region, or `nil` without --uuid (every beacon).
    func region() throws -> BeaconRegion? {
        guard let uuid else { return nil }
        let parsed = try ProximityUUID(parsing: uuid)
        return BeaconRegion(identifier: "scan", uuid: parsed, major: major.map(UInt16.init), minor: minor.map(UInt16.init))
    }

    /// Each beacon's id in the manifests at `paths`, by identity, to name what is heard (a
    /// manifest with errors stops here); none without manifests.
    static func beaconNames(in paths: [String]) throws -> [BeaconIdentity: String] {
        guard !paths.isEmpty else { return [:] }
        let result = ManifestLoader.load(paths: paths)
        try reportBlockingDiagnostics(result)
        return Dictionary(result.fleet.beacons.map { ($0.identity, $0.id) }) { first, _ in first }
    }
}
