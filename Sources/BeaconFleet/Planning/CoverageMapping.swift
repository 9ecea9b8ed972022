import FleetManifest

/// Why `plan coverage` drew no map.
public enum CoverageMappingError: Error, Sendable, CustomStringConvertible {
    /// The request names venues or zones the manifest cannot map (`CoverageRequest.jobs`).
    case selection(CoverageSelectionError)
    /// The settings cannot draw a map (`CoverageSettings.problem`).
    case settings(String)
    /// `venue`'s grid at `resolution` metres would have more than `CoverageGrid.maximumCells`
    /// cells: the front end says which of its settings makes it coarser.
    case gridTooFine(venue: CoverageVenue, resolution: Double)

    public var description: String {
        switch self {
        case .selection(let error): error.description
        case .settings(let problem): "cannot map coverage: \(problem)"
        case .gridTooFine(let venue, let resolution):
            "\(venue.fileStem): a \(resolution) m grid over \(venue.plan.width) × \(venue.plan.height) m is more than \(CoverageGrid.maximumCells) cells"
        }
    }
}

/// A map drawn, with its summary.
public struct CoverageReport: Sendable {
    public let map: CoverageMap
    public let summary: CoverageSummary
}

/// The use case of `plan coverage`: the maps a request asks of a fleet, each drawn over its
/// grid and summarised.
public enum CoverageMapping {
    /// Every map `request` asks of `fleet`. `noted` is told the selection's notes (venues
    /// skipped, beacons left off, walls of unknown venues) before any map is drawn, so that
    /// they reach the user even when a map then cannot be drawn.
    public static func maps(
        _ request: CoverageRequest, in fleet: Fleet, noted: ([String]) -> Void = { _ in }
    ) throws(CoverageMappingError) -> [CoverageReport] {
        let selection: (jobs: [CoverageJob], notes: [String])
        do {
            selection = try request.jobs(in: fleet)
        } catch {
            throw .selection(error)
        }
        noted(selection.notes)
        var reports: [CoverageReport] = []
        for job in selection.jobs {
            guard let map = CoverageMap(venue: job.venue, settings: job.settings) else {
                if let problem = job.settings.problem { throw .settings(problem) }
                throw .gridTooFine(venue: job.venue, resolution: job.settings.resolution)
            }
            reports.append(CoverageReport(map: map, summary: map.summary))
        }
        return reports
    }
}
