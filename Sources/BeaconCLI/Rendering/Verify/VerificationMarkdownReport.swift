import BeaconCore
import BeaconFleet

/// The Markdown report, for pull requests and wikis: a heading with the outcome, a summary
/// line, and one table row per beacon (GitHub Flavored Markdown tables). Written as the
/// verdicts come.
package final class VerificationMarkdownReport: StreamedVerificationReport {
    private let sink: ReportSink
    let groupsByVenue = false

    init(_ sink: ReportSink) {
        self.sink = sink
    }

    /// The whole report as one string (tests, small results).
    /// (Package-wide: the fuzz targets render every report too.)
    package static func render(_ result: VerificationResult) -> String {
        let sink = ReportSink.kept()
        VerificationReportPass.write(result, to: [VerificationMarkdownReport(sink)])
        return sink.text
    }

    func begin(_ context: VerificationReportContext) {
        let result = context.result
        sink.write("## beaconctl verify: \(Self.cell(result.scope)) — \(result.passed ? "passed" : "**failed**")\n\n")
        sink.write(VerificationSummary.line(result) + "\n\n")
        for warning in context.warnings { sink.write("**Warning:** " + Self.cell(warning) + "\n\n") }
        // A Receivers column only when there is more than one receiver to tell apart.
        // A Battery column only when some beacon's battery is reported.
        let battery = context.showsBattery
        sink.write("| Venue | Beacon | Identity | Verdict | Heard |" + (context.showsReceivers ? " Receivers |" : "")
            + (battery ? " Battery |" : "") + " Details |\n")
        sink.write("|---|---|---|---|---:|" + (context.showsReceivers ? "---|" : "") + (battery ? "---|" : "") + "---|\n")
    }

    func beacon(_ verdict: BeaconVerdict, explanation: String, context: VerificationReportContext) {
        let beacon = verdict.beacon
        sink.write(Self.row([
            Self.cell(beacon.venueID), Self.cell(beacon.beaconID), "`\(beacon.identity)`", Self.status(verdict.status),
            "\(verdict.observation.sightings)",
        ] + Self.receivers(verdict.observation, context) + Self.battery(verdict, context) + [Self.cell(explanation)]))
    }

    private static func battery(_ verdict: BeaconVerdict, _ context: VerificationReportContext) -> [String] {
        guard context.showsBattery else { return [] }
        guard let battery = verdict.battery else { return ["—"] }
        let text = cell(battery.summary)
        return [battery.status.isFinding ? "**\(text)**" : text]
    }

    func end(_ context: VerificationReportContext) {
        let result = context.result
        for unexpected in result.unexpected {
            sink.write(Self.row([
                Self.cell(unexpected.likelyVenue ?? "—"), "—", "`\(unexpected.identity)`", Self.status(.unexpected),
                "\(unexpected.observation.sightings)",
            ] + Self.receivers(unexpected.observation, context) + (context.showsBattery ? ["—"] : [])
                + [Self.cell(unexpected.explanation)]))
        }
        if result.untrackedUnexpectedSightings > 0 {
            sink.write("\n\(result.untrackedUnexpectedSightings) receptions of more unexpected identities were heard and not listed.\n")
        }
    }

    private static func receivers(_ observation: BeaconObservation, _ context: VerificationReportContext) -> [String] {
        guard context.showsReceivers else { return [] }
        return [observation.receivers.isEmpty ? "—" : cell(VerdictWording.receivers(observation))]
    }

    private static func row(_ cells: [String]) -> String {
        "| " + cells.joined(separator: " | ") + " |\n"
    }

    private static func status(_ status: VerdictStatus) -> String {
        status == .ok ? "ok" : "**\(status.rawValue)**"
    }

    /// The bytes `cell` replaces or escapes (line breaks, `&` and Markdown's syntax).
    private static let markup: [Bool] = (0..<128).map { Array("\n\r&\\|*_`[]<>#~".utf8).contains(UInt8($0)) }

    /// Text safe in a table cell: one line, and every character Markdown would read as
    /// syntax (a pipe would even end the cell) escaped with a backslash.
    static func cell(_ text: String) -> String {
        // Most cells (ids, explanations) hold none of them: no walk by characters then.
        guard text.utf8.contains(where: { $0 < 0x80 && markup[Int($0)] }) else { return text }
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
        let batteries = [BatteryReport.Status.low, .noTelemetry].compactMap { status -> String? in
            let count = result.count(battery: status)
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        if !batteries.isEmpty { text += "; " + batteries.joined(separator: ", ") }
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
        case .inputLost: return "input lost"
        }
    }
}
