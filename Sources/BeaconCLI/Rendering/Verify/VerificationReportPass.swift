import BeaconCore
import BeaconFleet

/// A report written as the verdicts are handed to it, one at a time (`VerificationReportPass`
/// hands them over): nothing of it is held but what it has not yet handed to its sink.
protocol StreamedVerificationReport: AnyObject {
    /// Whether it lists the beacons venue by venue, venues in manifest order (else in
    /// manifest order, as the verdicts come).
    var groupsByVenue: Bool { get }
    func begin(_ context: VerificationReportContext)
    /// One beacon's verdict with its explanation (made once for every report of the pass).
    func beacon(_ verdict: BeaconVerdict, explanation: String, context: VerificationReportContext)
    func end(_ context: VerificationReportContext)
}

/// What several reports need of the whole result before their first beacon, worked out once.
struct VerificationReportContext {
    /// One venue: where its beacons are, and the figures a report heads them with.
    struct Venue {
        var id: String
        var beacons = 0
        var failures = 0
        /// The latest verdict among its beacons, seconds since the start.
        var lastDecided = PassTime.origin
    }

    let result: VerificationResult
    /// The venues in manifest order (of their first beacon).
    let venues: [Venue]
    /// The verdicts' indices venue by venue; `nil` when that is manifest order already
    /// (each venue's beacons together, as a manifest lists them).
    let venueOrder: [Int]?
    /// More than one receiver heard the pass: reports then say which heard what.
    let showsReceivers: Bool
    /// `result.warnings`, worked out once (JUnit repeats them in every suite).
    let warnings: [String]
    /// Some beacon's battery is reported (`result.hasBatteryReports`, a walk over every
    /// verdict): worked out once, not for each beacon's row.
    let showsBattery: Bool
    private let positions: [String: Int]

    init(_ result: VerificationResult) {
        self.result = result
        var venues: [Venue] = []
        var position: [String: Int] = [:]
        var members: [[Int]] = []
        var contiguous = true
        for (index, verdict) in result.verdicts.enumerated() {
            let venueID = verdict.beacon.venueID
            let slot: Int
            if let last = venues.indices.last, venues[last].id == venueID {
                slot = last
            } else if let found = position[venueID] {
                slot = found
                contiguous = false
            } else {
                slot = venues.count
                position[venueID] = slot
                venues.append(Venue(id: venueID))
                members.append([])
            }
            venues[slot].beacons += 1
            if !verdict.passed { venues[slot].failures += 1 }
            venues[slot].lastDecided = max(venues[slot].lastDecided, verdict.decidedAt)
            members[slot].append(index)
        }
        self.venues = venues
        positions = position
        venueOrder = contiguous ? nil : members.flatMap { $0 }
        showsReceivers = result.heardBySeveralReceivers
        warnings = result.warnings
        showsBattery = result.hasBatteryReports
    }

    /// The figures of `venueID`'s venue.
    func venue(_ venueID: String) -> Venue? {
        positions[venueID].map { venues[$0] }
    }
}

/// Writes every report of a pass in one walk over its verdicts: each verdict's explanation
/// is made once, handed to every report, and let go.
enum VerificationReportPass {
    static func write(_ result: VerificationResult, to reports: [any StreamedVerificationReport]) {
        let context = VerificationReportContext(result)
        for report in reports { report.begin(context) }
        func hand(_ indices: some Sequence<Int>, to reports: [any StreamedVerificationReport]) {
            guard !reports.isEmpty else { return }
            for index in indices {
                let verdict = result.verdicts[index]
                let explanation = verdict.explanation(in: result)
                for report in reports { report.beacon(verdict, explanation: explanation, context: context) }
            }
        }
        if let venueOrder = context.venueOrder {
            // A venue's beacons apart in the manifest: the reports by venue take them in another order.
            hand(result.verdicts.indices, to: reports.filter { !$0.groupsByVenue })
            hand(venueOrder, to: reports.filter(\.groupsByVenue))
        } else {
            hand(result.verdicts.indices, to: reports)
        }
        for report in reports { report.end(context) }
    }
}
