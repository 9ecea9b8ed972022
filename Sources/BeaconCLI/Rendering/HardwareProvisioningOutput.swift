import BeaconCore
import BeaconFleet
import BeaconProfiles

/// The result of `provision --hardware`: a table for people, a JSON document for programs.
enum HardwareProvisioningOutput {
    static func table(_ result: HardwareProvisioningResult, style: Style) -> String {
        var rows: [[String]] = [["BEACON", "ADDRESS", "PROFILE", "RESULT", "DETAIL"]]
        for beacon in result.results {
            rows.append([
                beacon.beaconID, beacon.address.map { "\($0)" } ?? "-", beacon.profile ?? "-", beacon.status.rawValue, beacon.detail,
            ])
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            (0..<4).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                + "  " + row[4]
        }
        lines[0] = style.bold(lines[0])
        lines.append(summary(result))
        return lines.joined(separator: "\n")
    }

    /// `passed: 2 beacons: 1 provisioned, 1 already-correct`, statuses in a fixed order.
    static func summary(_ result: HardwareProvisioningResult) -> String {
        let counts = HardwareBeaconStatus.allCases.compactMap { status -> String? in
            let count = result.count(status)
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        let verdict = result.passed ? "passed" : "failed"
        let dryRun = result.dryRun ? " (dry run: nothing written)" : ""
        return "\(verdict): \(NumberText.count(result.results.count, "beacon")): \(counts.joined(separator: ", "))\(dryRun)"
    }

    struct Document: Encodable {
        var passed: Bool
        var dryRun: Bool
        var beacons: [Beacon]

        struct Beacon: Encodable {
            var id: String
            var address: String?
            var profile: String?
            var status: String
            var written: [String]
            var notWritten: [String]
            var wouldWrite: [String]
            var passwordChanged: Bool
            var addressAssigned: Bool
            var verdict: String?
            var detail: String
        }
    }

    static func document(_ result: HardwareProvisioningResult) -> Document {
        Document(
            passed: result.passed, dryRun: result.dryRun,
            beacons: result.results.map { beacon in
                Document.Beacon(
                    id: beacon.beaconID, address: beacon.address.map { "\($0)" }, profile: beacon.profile, status: beacon.status.rawValue,
                    written: beacon.written.map(\.rawValue), notWritten: beacon.notWritten.map(\.rawValue),
                    wouldWrite: beacon.wouldWrite.map(\.rawValue), passwordChanged: beacon.passwordChanged,
                    addressAssigned: beacon.addressAssigned, verdict: beacon.verdict, detail: beacon.detail)
            })
    }

    static func json(_ result: HardwareProvisioningResult) throws -> String {
        try JSONOutput.document(document(result), snakeCaseKeys: true)
    }
}
