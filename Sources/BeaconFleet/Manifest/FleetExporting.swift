import FleetManifest

/// What `fleet export` writes.
public enum FleetExportFormat: String, CaseIterable, Sendable {
    case csv, json
    case iOSRegions = "ios-regions"
    case swift
    case androidRegions = "android-regions"
    case espresense, theengs
    case openMQTTGateway = "openmqttgateway"

    /// The gateway whose keep-list this format is.
    public var keepList: GatewayKeepList.Kind? { GatewayKeepList.Kind(rawValue: rawValue) }

    /// An app's regions: the manifest's `regions`, whole (no venue chooses among them).
    public var isAppRegions: Bool { [.iOSRegions, .swift, .androidRegions].contains(self) }
}

/// Why `fleet export` wrote nothing.
public enum FleetExportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `--venue` names no venue of the manifest.
    case noSuchVenue(String, known: [String])
    /// An iOS app could not monitor every region: `advice` says what would cover them.
    case overBudget(regions: Int, limit: Int, advice: String)
    /// A receiver's keep-list cannot name every beacon (`GatewayKeepList.MissingAddresses`).
    case keepList(GatewayKeepList.MissingAddresses)

    /// A finding about the manifest (exit 1), not a mistake in the command (exit 2).
    public var isFinding: Bool {
        if case .noSuchVenue = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .noSuchVenue(let venue, let known):
            return "--venue \(venue): the manifest has no such venue (its venues: \(known.joined(separator: ", ")))"
        case .overBudget(let regions, let limit, let advice):
            return "the manifest has \(regions) regions and an app can monitor \(limit) (--region-budget): \(advice)"
        case .keepList(let missing):
            return missing.description
        }
    }
}

/// The use case of `fleet export`: the fleet (or one venue's beacons) as beacon rows, an
/// app's regions or a receiver's keep-list.
public enum FleetExporting {
    public static func text(
        _ fleet: Fleet, format: FleetExportFormat, venue: String?, budget: RegionBudget
    ) throws(FleetExportError) -> String {
        let beacons = try chosenBeacons(fleet, venue: venue)
        let name = Set(fleet.regions.map(\.fleetName) + fleet.venues.map(\.fleetName)).sorted().joined(separator: ", ")
        switch format {
        case .csv: return FleetExport.csv(beacons)
        case .json: return FleetExport.json(beacons)
        case .iOSRegions:
            try checkBudget(fleet, budget: budget)
            return AppRegionExport.iOSJSON(fleet.regions, fleet: name, budget: budget)
        case .swift:
            try checkBudget(fleet, budget: budget)
            return AppRegionSwiftSource.file(fleet.regions, fleet: name, budget: budget)
        case .androidRegions:
            return AppRegionExport.androidJSON(fleet.regions, fleet: name)
        case .espresense, .theengs, .openMQTTGateway:
            guard let kind = format.keepList else { return "" }
            do {
                return try GatewayKeepList(kind, beacons: beacons).text + "\n"
            } catch {
                throw .keepList(error)
            }
        }
    }

    /// The venue's beacons with `venue`, else the fleet's.
    static func chosenBeacons(_ fleet: Fleet, venue: String?) throws(FleetExportError) -> [ResolvedBeacon] {
        guard let venue else { return fleet.beacons }
        guard let chosen = fleet.venues.first(where: { $0.id == venue }) else {
            throw .noSuchVenue(venue, known: fleet.venues.map(\.id))
        }
        return chosen.beacons
    }

    /// An iOS app monitors at most the budget's regions: a file with more would fail in
    /// the app, region by region, past the limit.
    static func checkBudget(_ fleet: Fleet, budget: RegionBudget) throws(FleetExportError) {
        let verdict = budget.check(fleet.regions, beacons: fleet.beacons)
        guard let advice = verdict.advice(budget: budget) else { return }
        throw .overBudget(regions: fleet.regions.count, limit: budget.limit, advice: advice)
    }
}
