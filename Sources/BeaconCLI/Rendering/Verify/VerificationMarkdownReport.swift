import BeaconCore
import BeaconFleet
/// The Markdown report, for pull requests and wikis: a heading with the outcome, a summary
/// line, and one table row per beacon (GitHub Flavored Markdown tables).
public enum VerificationMarkdownReport {
    public static func render(_ result: VerificationResult) -> String {
        var text = "## beaconctl verify: \(cell(result.scope)) — \(result.passed ? "passed" : "**failed**")\n\n"
        text += VerificationSummary.line(result) + "\n\n"
        for warning in result.warnings { text += "**Warning:** " + cell(warning) + "\n\n" }
        // A Receivers column only when there is more than one receiver to tell apart.
        let showsReceivers = result.receivers.count > 1
        func receivers(_ observation: BeaconObservation) -> [String] {
            guard showsReceivers else { return [] }
            return [observation.receivers.isEmpty ? "—" : cell(VerdictWording.receivers(observation))]
        }
        text += "| Venue | Beacon | Identity | Verdict | Heard |" + (showsReceivers ? " Receivers |" : "") + " Details |\n"
        text += "|---|---|---|---|---:|" + (showsReceivers ? "---|" : "") + "---|\n"
        for verdict in result.verdicts {
            let beacon = verdict.beacon
            text += row([
                cell(beacon.venueID), cell(beacon.beaconID), "`\(beacon.identity)`", status(verdict.status),
                "\(verdict.observation.sightings)",
            ] + receivers(verdict.observation) + [cell(verdict.explanation(in: result))])
        }
        for unexpected in result.unexpected {
            text += row([
                cell(unexpected.likelyVenue ?? "—"), "—", "`\(unexpected.identity)`", status(.unexpected),
                "\(unexpected.observation.sightings)",
            ] + receivers(unexpected.observation) + [cell(unexpected.explanation)])
        }
        if result.untrackedUnexpectedSightings > 0 {
            text += "\n\(result.untrackedUnexpectedSightings) receptions of more unexpected identities were heard and not listed.\n"
        }
        return text
    }

    private static func row(_ cells: [String]) -> String {
        "| " + cells.joined(separator: " | ") + " |\n"
    }

    private static func status(_ status: VerdictStatus) -> String {
        status == .ok ? "ok" : "**\(status.rawValue)**"
    }

    /// Text safe in a table cell: one line, and every character Markdown would read as
    /// syntax (a pipe would even end the cell) escaped with a backslash.
    static func cell(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\n", "\r", "\r\n": result += " "
            case "&": result += "&amp;"
            case "\\", "|", "*", "_", "`", "[", "]", "<", ">", "#", "~": result += "\\" + String(character)
            default: result.append(character)
            }
        }
        return result
    }
}

/// The one-line summary every report shares.
public enum VerificationSummary {
    /// "34 beacons: 30 ok, 2 missing, 1 wrong-power, 1 duplicate; 1 unexpected; 4512 sightings in 3.2 s (all decided)".
    public static func line(_ result: VerificationResult) -> String {
        let beaconStatuses = VerdictStatus.allCases.filter { $0 != .unexpected }
        let counts = beaconStatuses.compactMap { status -> String? in
            let count = result.count(status)
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        var text = "\(NumberText.count(result.verdicts.count, "beacon"))"
        text += counts.isEmpty ? "" : ": " + counts.joined(separator: ", ")
        if result.unexpectedCount > 0 { text += "; \(result.unexpectedCount) unexpected" }
        text += "; \(NumberText.count(result.sightings, "sighting")) in \(VerdictWording.seconds(result.duration))"
        if result.lostReports > 0 { text += ", \(result.lostReports) lost" }
        return text + " (\(endText(result.endReason)))"
    }

    static func endText(_ reason: VerificationEndReason) -> String {
        switch reason {
        case .allDecided: return "every beacon decided"
        case .timeout: return "timeout"
        case .inputEnded: return "end of input"
        case .interrupted: return "interrupted"
        }
    }
}
