import BeaconCore
import RangingEvaluation

/// The real-data half of the benchmark: every estimator on the Herald recordings, per place.
///
/// beaconctl is run three ways: without a profile (measured power only, n = 2), with the
/// profile a walk of one *other* recording of the same receiver in the same place gives
/// ("fit on one, test on another"), and with the place's profile fitted on every other
/// recording of that place (what a venue that walked its room a few times would have).
/// Never on the recording being judged.
struct RealDataReport {
    var recordings: [DistanceRecording]

    struct PlaceResult {
        var place: String
        var placeProfileMedian: Double?
        var bestPeerMedian: Double?
    }

    static let bins: [(label: String, range: ClosedRange<Double>)] = [
        ("0.5–0.9 m", 0.5...0.95), ("1.0–1.4 m", 1.0...1.45), ("1.5–1.9 m", 1.5...1.95),
        ("2.0–2.4 m", 2.0...2.45), ("2.5–3.0 m", 2.5...3.0),
    ]

    static let peers: [DistanceEstimator] = [.logDistance(exponent: 2, window: 10), .androidBeaconLibrary, .homeAssistant]
    static let estimatorNames = ["beaconctl, no profile", "beaconctl, profile of 1 other recording", "beaconctl, place profile"]
        + peers.map(\.name)

    /// Prints the report; returns per place whether beaconctl with the place profile was at
    /// least as close (median, 0.5–3 m) as the best peer.
    func run() -> [PlaceResult] {
        var results: [PlaceResult] = []
        for place in Set(recordings.map(\.place)).sorted() {
            let here = recordings.filter { $0.place == place }
            var evaluations: [RecordingEvaluation] = []
            var profileLines: [String] = []
            for recording in here {
                let others = here.filter { $0.name != recording.name }
                let placeProfile = Self.profile(others, place: place)
                let sameReceiver = others.first { $0.receiver == recording.receiver }
                let pairProfile = sameReceiver.flatMap { Self.profile([$0], place: place) }
                let base = RangingConfiguration()
                let estimators: [DistanceEstimator] = [
                    .beaconctl(name: Self.estimatorNames[0], configuration: base),
                    .beaconctl(name: Self.estimatorNames[1], configuration: pairProfile.map { base.applying($0) } ?? base),
                    .beaconctl(name: Self.estimatorNames[2], configuration: placeProfile.map { base.applying($0) } ?? base),
                ] + Self.peers
                guard var evaluation = RecordingEvaluation(recording: recording, estimators: estimators) else { continue }
                if pairProfile == nil { evaluation.errors[1] = [] }
                evaluations.append(evaluation)
                if let placeProfile {
                    profileLines.append("  \(recording.name): place profile n = \(format(placeProfile.pathLossExponent, 2)), offset \(format(placeProfile.rssiOffset, 1)) dB"
                        + (pairProfile.map { "; profile of \(sameReceiver?.name ?? "-"): n = \(format($0.pathLossExponent, 2)), offset \(format($0.rssiOffset, 1)) dB" } ?? "; no other recording of this receiver"))
                }
            }
            results.append(printPlace(place, evaluations, profileLines: profileLines))
        }
        return results
    }

    static func profile(_ recordings: [DistanceRecording], place: String) -> RangingProfile? {
        guard case .success(let profile)? = RecordingProfiles.fit(recordings, receiver: "recordings", place: place) else { return nil }
        return profile
    }

    private func printPlace(_ place: String, _ evaluations: [RecordingEvaluation], profileLines: [String]) -> PlaceResult {
        let receivers = Set(evaluations.map(\.recording.receiver)).count
        print("\(place): \(evaluations.count) recordings, \(receivers) receiver/transmitter pairs")
        print("Median / 90th-percentile |error| per true distance, metres; all at the same instants.")
        print(table(
            header: ["estimator"] + Self.bins.map(\.label) + ["0.5–3 m", "class right"],
            rows: Self.estimatorNames.indices.map { index in
                let all = evaluations.flatMap { $0.errors[index] }
                let binCells = Self.bins.map { bin in
                    cell(ErrorSummary(all.filter { bin.range.contains($0.distance) }))
                }
                let overall = ErrorSummary(all)
                return [Self.estimatorNames[index]] + binCells + [cell(overall), overall.classAccuracy.map { format($0 * 100, 0) + " %" } ?? "-"]
            }))
        let pooled = Self.estimatorNames.indices.map { index in ErrorSummary(evaluations.flatMap { $0.errors[index] }).median }
        let peerIndices = Self.estimatorNames.indices.suffix(Self.peers.count)
        let bestPeer = peerIndices.compactMap { index in pooled[index].map { (index, $0) } }.min { $0.1 < $1.1 }
        if let ours = pooled[2], let bestPeer {
            let verdict = ours <= bestPeer.1 ? "no larger than" : "LARGER than"
            print("beaconctl with the place profile: median \(format(ours, 2)) m, \(verdict) the best peer (\(Self.estimatorNames[bestPeer.0]), \(format(bestPeer.1, 2)) m): ratio \(format(ours / bestPeer.1, 2))")
        }
        if let without = pooled[0], let withPair = pooled[1] {
            print("Fit on one recording, test on another (same receiver, same place): median \(format(without, 2)) m without a profile, \(format(withPair, 2)) m with it")
        }
        print("Per recording, median |error| at 0.5–3 m (beaconctl with the place profile against each peer):")
        for evaluation in evaluations {
            let medians = evaluation.errors.map { ErrorSummary($0).median }
            let peerText = peerIndices.map { "\(Self.estimatorNames[$0]) \(medians[$0].map { format($0, 2) } ?? "-")" }.joined(separator: ", ")
            let bestHere = peerIndices.compactMap { medians[$0] }.min()
            var mark = ""
            if let ours = medians[2], let bestHere, ours > bestHere { mark = "  (a peer is closer here)" }
            print("  \(evaluation.recording.name) \(evaluation.recording.receiver), 1 m = \(evaluation.measuredPower) dBm: beaconctl \(medians[2].map { format($0, 2) } ?? "-"); \(peerText)\(mark)")
        }
        print("Profiles used (never fitted on the recording they are judged on):")
        for line in profileLines { print(line) }
        print("")
        return PlaceResult(place: place, placeProfileMedian: pooled[2], bestPeerMedian: bestPeer?.1)
    }

    private func cell(_ summary: ErrorSummary) -> String {
        guard let median = summary.median, let p90 = summary.percentile90 else { return "-" }
        return format(median, 2) + " / " + format(p90, 2)
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
