#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import RangingEvaluation

/// The real-data half of the benchmark: every estimator on the Herald recordings, per rig.
///
/// beaconctl is run five ways: its default (the 1 m calibration alone, no walk), the
/// default with the exponent fitted on the *other* rig (cross-rig validation of the
/// default's exponent), the n = 2 law it used before, with the profile a walk of one
/// *other* recording of the same receiver in the same place gives ("fit on one, test on
/// another"), and with the place's profile fitted on every other recording of that place
/// (what a venue that walked its room a few times would have). Never fitted on the
/// recording being judged. Beside them the peers and the floor (a constant 1.5 m).
struct RealDataReport {
    var recordings: [DistanceRecording]

    /// How far below the floor the default must be, per rig: at most this share of the
    /// floor's median error ("clearly better", not a rounding error better).
    static let floorMargin = 0.85
    static let floor = DistanceEstimator.constant(metres: 1.5)

    static let bins: [(label: String, range: ClosedRange<Double>)] = [
        ("0.5–0.9 m", 0.5...0.95), ("1.0–1.4 m", 1.0...1.45), ("1.5–1.9 m", 1.5...1.95),
        ("2.0–2.4 m", 2.0...2.45), ("2.5–3.0 m", 2.5...3.0),
    ]

    static let peers: [DistanceEstimator] = [.logDistance(exponent: 2, window: 10), .androidBeaconLibrary, .homeAssistant]

    /// Rows of the tables, in this order.
    enum Row: Int, CaseIterable {
        case ours, crossRig, before, pairProfile, placeProfile, logDistance, android, homeAssistant, floor

        var name: String {
            switch self {
            case .ours: "beaconctl default (1 m calibration, n = \(format(RangingConfiguration.defaultPathLossExponent, 1)))"
            case .crossRig: "beaconctl, n fitted on the other rig"
            case .before: "beaconctl before (n = 2)"
            case .pairProfile: "beaconctl, profile of 1 other recording"
            case .placeProfile: "beaconctl, place profile (a walk)"
            case .logDistance: RealDataReport.peers[0].name
            case .android: RealDataReport.peers[1].name
            case .homeAssistant: RealDataReport.peers[2].name
            case .floor: RealDataReport.floor.name
            }
        }

        static let peerRows: [Row] = [.logDistance, .android, .homeAssistant]
    }

    /// One rig's (or all recordings') verdicts for `--check`.
    struct Verdict {
        var scope: String
        var failures: [String]
    }

    /// Prints the report; returns the verdicts for `--check`, one per rig and one for all.
    func run() -> [Verdict] {
        let places = Set(recordings.map(\.place)).sorted()
        // The default's exponent fitted (distance objective, as `calibrate --walk` fits) on
        // each rig, to range the *other* rig with: does the choice hold on data it never saw?
        var fittedExponent: [String: Double] = [:]
        for place in places {
            if let profile = Self.profile(recordings.filter { $0.place == place }, place: place) {
                fittedExponent[place] = profile.pathLossExponent
            }
        }
        var verdicts: [Verdict] = []
        var all: [RecordingEvaluation] = []
        for place in places {
            let here = recordings.filter { $0.place == place }
            let otherPlaces = places.filter { $0 != place }
            let crossExponent = otherPlaces.compactMap { fittedExponent[$0] }.first
            var evaluations: [RecordingEvaluation] = []
            var profileLines: [String] = []
            for recording in here {
                let others = here.filter { $0.name != recording.name }
                let placeProfile = Self.profile(others, place: place)
                let sameReceiver = others.first { $0.receiver == recording.receiver }
                let pairProfile = sameReceiver.flatMap { Self.profile([$0], place: place) }
                let base = RangingConfiguration()
                var cross = base
                if let crossExponent { cross.distanceModel = PathLossModel(pathLossExponent: crossExponent) }
                var before = base
                before.distanceModel = PathLossModel(pathLossExponent: 2)
                let estimators: [DistanceEstimator] = [
                    .beaconctl(name: Row.ours.name, configuration: base),
                    .beaconctl(name: Row.crossRig.name, configuration: cross),
                    .beaconctl(name: Row.before.name, configuration: before),
                    .beaconctl(name: Row.pairProfile.name, configuration: pairProfile.map { base.applying($0) } ?? base),
                    .beaconctl(name: Row.placeProfile.name, configuration: placeProfile.map { base.applying($0) } ?? base),
                ] + Self.peers + [Self.floor]
                guard var evaluation = RecordingEvaluation(recording: recording, estimators: estimators) else { continue }
                if pairProfile == nil { evaluation.errors[Row.pairProfile.rawValue] = [] }
                if crossExponent == nil { evaluation.errors[Row.crossRig.rawValue] = [] }
                evaluations.append(evaluation)
                if let placeProfile {
                    profileLines.append("  \(recording.name): place profile n = \(format(placeProfile.pathLossExponent, 2)), offset \(format(placeProfile.rssiOffset, 1)) dB"
                        + (pairProfile.map { "; profile of \(sameReceiver?.name ?? "-"): n = \(format($0.pathLossExponent, 2)), offset \(format($0.rssiOffset, 1)) dB" } ?? "; no other recording of this receiver"))
                }
            }
            all += evaluations
            print("\(place): \(evaluations.count) recordings, \(Set(evaluations.map(\.recording.receiver)).count) receiver/transmitter pairs")
            if let crossExponent, let fitted = fittedExponent[place] {
                print("The default's exponent fitted on this rig alone: n = \(format(fitted, 2)); on the other rig: n = \(format(crossExponent, 2)) (used in the row \"\(Row.crossRig.name)\").")
            }
            verdicts.append(printTables(place, evaluations, profileLines: profileLines))
        }
        if places.count > 1 { verdicts.append(printAll(all)) }
        printChoices(places)
        return verdicts
    }

    /// The evidence behind the default: the median error per rig for other exponents and
    /// filters, everything else as the default (1 m calibration, no profile).
    private func printChoices(_ places: [String]) {
        var choices: [(label: String, configuration: RangingConfiguration)] = []
        for exponent in [2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0] {
            choices.append(("n = \(format(exponent, 1)), 10 s, middle fifth", RangingConfiguration(distanceModel: PathLossModel(pathLossExponent: exponent))))
        }
        for (window, trim) in [(20.0, 0.4), (10.0, 0.1), (20.0, 0.1)] {
            var configuration = RangingConfiguration()
            configuration.filter = RSSIFilter.Configuration(window: .seconds(window), maximumSamples: Int(window) * 10, trimFraction: trim)
            choices.append(("n = 3.5, \(format(window, 0)) s, \(format(trim * 100, 0)) % trimmed at each end", configuration))
        }
        print("The choice of the default: median |error| at 0.5–3 m (pooled / median of recordings) per rig, 1 m calibration, no profile:")
        let estimators = choices.map { DistanceEstimator.beaconctl(name: $0.label, configuration: $0.configuration) }
        var rows: [[String]] = []
        for place in places {
            let evaluations = recordings.filter { $0.place == place }.compactMap { RecordingEvaluation(recording: $0, estimators: estimators) }
            rows.append(estimators.indices.map { index in
                let pooled = ErrorSummary(evaluations.flatMap { $0.errors[index] }).median
                let perRecording = ErrorSummary.medianOfMedians(evaluations.map { $0.errors[index] })
                return (pooled.map { format($0, 2) } ?? "-") + " / " + (perRecording.map { format($0, 2) } ?? "-")
            })
        }
        print(table(
            header: ["configuration"] + places,
            rows: choices.indices.map { index in [choices[index].label] + rows.map { $0[index] } }))
        print("")
    }

    static func profile(_ recordings: [DistanceRecording], place: String) -> RangingProfile? {
        guard case .success(let profile)? = RecordingProfiles.fit(recordings, receiver: "recordings", place: place) else { return nil }
        return profile
    }

    /// The tables of one rig, its per-recording lines, and its verdict: the default
    /// clearly below the floor and no worse than the best peer (pooled medians), and the
    /// same for the default with the other rig's exponent.
    private func printTables(_ place: String, _ evaluations: [RecordingEvaluation], profileLines: [String]) -> Verdict {
        print("Median / 90th-percentile |error| per true distance, metres; all at the same instants (from 30 s after each move).")
        print("Interval: share of beaconctl's 68 % intervals that held the true distance. Class: right / wrong (a known class that is not the true one).")
        print(table(
            header: ["estimator"] + Self.bins.map(\.label) + ["0.5–3 m", "median of recordings", "interval", "class right / wrong"],
            rows: Row.allCases.map { row in
                let errors = evaluations.flatMap { $0.errors[row.rawValue] }
                let binCells = Self.bins.map { bin in cell(ErrorSummary(errors.filter { bin.range.contains($0.distance) })) }
                let overall = ErrorSummary(errors)
                let perRecording = ErrorSummary.medianOfMedians(evaluations.map { $0.errors[row.rawValue] }.filter { !$0.isEmpty })
                return [row.name] + binCells + [
                    cell(overall), perRecording.map { format($0, 2) } ?? "-",
                    overall.coverage.map { format($0 * 100, 0) + " %" } ?? "-",
                    classCell(overall),
                ]
            }))
        let pooled = Row.allCases.map { row in ErrorSummary(evaluations.flatMap { $0.errors[row.rawValue] }).median }
        var failures: [String] = []
        failures += gate(place, pooled, .ours, "median")
        failures += gate(place, pooled, .crossRig, "median")
        failures += gate(place, pooled, .placeProfile, "median")
        if let walk = pooled[Row.placeProfile.rawValue], let ours = pooled[Row.ours.rawValue] {
            print("A walk (place profile) here: median \(format(walk, 2)) m against the default's \(format(ours, 2)) m (ratio \(format(walk / ours, 2))).")
        }
        if let without = pooled[Row.before.rawValue], let withPair = pooled[Row.pairProfile.rawValue] {
            print("Fit on one recording, test on another (same receiver, same place): median \(format(without, 2)) m with n = 2 and no profile, \(format(withPair, 2)) m with the other recording's profile")
        }
        print("Per recording, median |error| at 0.5–3 m:")
        for evaluation in evaluations {
            let medians = evaluation.errors.map { ErrorSummary($0).median }
            let columns: [Row] = [.ours, .placeProfile] + Row.peerRows + [.floor]
            let text = columns.map { "\($0 == .ours ? "default" : $0 == .placeProfile ? "walk" : $0.name) \(medians[$0.rawValue].map { format($0, 2) } ?? "-")" }
                .joined(separator: ", ")
            let bestPeer = Row.peerRows.compactMap { medians[$0.rawValue] }.min()
            var marks: [String] = []
            if let ours = medians[Row.ours.rawValue], let bestPeer, ours > bestPeer { marks.append("a peer is closer here") }
            if let ours = medians[Row.ours.rawValue], let floor = medians[Row.floor.rawValue], ours > floor { marks.append("the floor is closer here") }
            print("  \(evaluation.recording.name) \(evaluation.recording.receiver), 1 m = \(evaluation.measuredPower) dBm: \(text)"
                + (marks.isEmpty ? "" : "  (" + marks.joined(separator: "; ") + ")"))
        }
        print("Profiles used (never fitted on the recording they are judged on):")
        for line in profileLines { print(line) }
        print("")
        return Verdict(scope: place, failures: failures)
    }

    /// Every recording of every rig, each weighing the same (median of the recordings'
    /// medians), as the table in docs/ranging.md counts them.
    private func printAll(_ evaluations: [RecordingEvaluation]) -> Verdict {
        let medians = Row.allCases.map { row in
            ErrorSummary.medianOfMedians(evaluations.map { $0.errors[row.rawValue] }.filter { !$0.isEmpty })
        }
        print("All \(evaluations.count) recordings, median over recordings of each one's median |error| at 0.5–3 m:")
        for row in Row.allCases {
            let overall = ErrorSummary(evaluations.flatMap { $0.errors[row.rawValue] })
            print("  \(row.name): \(medians[row.rawValue].map { format($0, 2) + " m" } ?? "-")"
                + (overall.coverage.map { "; interval held the truth \(format($0 * 100, 0)) % of the time" } ?? "")
                + "; class right \(overall.classAccuracy.map { format($0 * 100, 0) } ?? "-") %, wrong \(overall.wrongClassShare.map { format($0 * 100, 0) } ?? "-") %")
        }
        let ratios = evaluations.flatMap { $0.errors[Row.ours.rawValue].flatMap(\.logRatios) }.sorted()
        if let low = ErrorSummary.quantile(ratios, 0.16), let high = ErrorSummary.quantile(ratios, 0.84) {
            let uncertainty = RangingConfiguration().uncertainty
            print("True ÷ estimated distance with the default, 16th / 84th percentile: \(format(pow(10, low), 2)) / \(format(pow(10, high), 2)) "
                + "(the interval uses \(format(uncertainty.lowerRatio, 2)) / \(format(uncertainty.upperRatio, 2)))")
        }
        var bestOn = 0
        var worstRatio = 0.0
        for evaluation in evaluations {
            let recording = evaluation.errors.map { ErrorSummary($0).median }
            guard let ours = recording[Row.ours.rawValue],
                  let bestPeer = Row.peerRows.compactMap({ recording[$0.rawValue] }).min() else { continue }
            if ours <= bestPeer { bestOn += 1 }
            if bestPeer > 0 { worstRatio = max(worstRatio, ours / bestPeer) }
        }
        print("The default is the closest of itself and the peers on \(bestOn) of \(evaluations.count) recordings (worst \(format(worstRatio, 1))× the best peer there).")
        print("")
        return Verdict(scope: "all recordings", failures: gate("all recordings (median over recordings)", medians, .ours, "median over recordings"))
    }

    /// `row`'s figure against the floor (at most `floorMargin` of it) and the best peer
    /// (at most equal); prints the verdict and returns what failed.
    private func gate(_ scope: String, _ figures: [Double?], _ row: Row, _ what: String) -> [String] {
        guard let ours = figures[row.rawValue], let floor = figures[Row.floor.rawValue],
              let best = Row.peerRows.compactMap({ peer in figures[peer.rawValue].map { (peer, $0) } }).min(by: { $0.1 < $1.1 })
        else { return ["\(scope): \(row.name) has no \(what)"] }
        let belowFloor = ours <= floor * Self.floorMargin
        let noWorse = ours <= best.1
        print("\(scope), \(row.name): \(what) \(format(ours, 2)) m; floor \(format(floor, 2)) m (ratio \(format(ours / floor, 2)), must be ≤ \(format(Self.floorMargin, 2))): \(belowFloor ? "ok" : "FAILS"); "
            + "best peer \(best.0.name) \(format(best.1, 2)) m (ratio \(format(ours / best.1, 2)), must be ≤ 1): \(noWorse ? "ok" : "FAILS")")
        var failures: [String] = []
        if !belowFloor { failures.append("\(scope): \(row.name)'s \(what) \(format(ours, 2)) m is not clearly below the floor's \(format(floor, 2)) m") }
        if !noWorse { failures.append("\(scope): \(row.name)'s \(what) \(format(ours, 2)) m is larger than \(best.0.name)'s \(format(best.1, 2)) m") }
        return failures
    }

    private func cell(_ summary: ErrorSummary) -> String {
        guard let median = summary.median, let p90 = summary.percentile90 else { return "-" }
        return format(median, 2) + " / " + format(p90, 2)
    }

    private func classCell(_ summary: ErrorSummary) -> String {
        guard let right = summary.classAccuracy, let wrong = summary.wrongClassShare else { return "-" }
        return format(right * 100, 0) + " / " + format(wrong * 100, 0) + " %"
    }

    private func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                let text = row[column]
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return column == 0 ? text + padding : padding + text
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
