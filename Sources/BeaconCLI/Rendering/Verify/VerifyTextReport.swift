import BeaconCore
import BeaconFleet

/// The human report of a verification pass: beacons grouped by venue in manifest order,
/// one line each (verdict, beacon, identity, receptions, explanation), then the identities
/// nobody expected, then one summary line. Written as the verdicts come.
final class VerifyTextReport: StreamedVerificationReport {
    private let sink: ReportSink
    private let style: Style
    private var openVenue: String?
    private var idWidth = 1
    /// The widest identity of the report (`UUID/major/minor`): the counts after it line up.
    private var identityWidth = 0
    private let statusWidth = VerdictStatus.allCases.map(\.rawValue.count).max() ?? 0
    let groupsByVenue = true

    init(_ sink: ReportSink, style: Style) {
        self.sink = sink
        self.style = style
    }

    /// The whole report as one string (tests, small results).
    static func render(_ result: VerificationResult, style: Style) -> String {
        let sink = ReportSink.kept()
        VerificationReportPass.write(result, to: [VerifyTextReport(sink, style: style)])
        return sink.text
    }

    func begin(_ context: VerificationReportContext) {
        idWidth = min(32, context.result.verdicts.reduce(1) { max($0, $1.beacon.beaconID.count) })
        // From the digits of majors and minors, without writing 100 000 identities twice.
        identityWidth = context.result.unexpected.reduce(
            context.result.verdicts.reduce(0) { max($0, Self.descriptionLength(of: $1.beacon.identity)) }
        ) { max($0, Self.descriptionLength(of: $1.identity)) }
        line(style.bold(Self.printable(context.result.scope)))
    }

    func beacon(_ verdict: BeaconVerdict, explanation: String, context: VerificationReportContext) {
        let venueID = verdict.beacon.venueID
        if venueID != openVenue {
            openVenue = venueID
            line("")
            line(style.bold(Self.printable(venueID)))
        }
        line(beaconLine(
            verdict.status, verdict.beacon.beaconID, verdict.beacon.identity.description, verdict.observation.sightings,
            explanation))
        batteryLine(verdict)
        receiverLine(verdict.observation, context)
    }

    /// A line under a beacon whose battery was reported: "battery 2.41 V (low: below 2.5 V), 12 s old".
    private func batteryLine(_ verdict: BeaconVerdict) {
        guard let battery = verdict.battery else { return }
        let indent = String(repeating: " ", count: 2 + statusWidth + 2 + idWidth + 2)
        let text = battery.summary
        line(indent + (battery.status.isFinding ? style.error(text) : style.dim(text)))
    }

    func end(_ context: VerificationReportContext) {
        let result = context.result
        if result.unexpectedCount > 0 {
            line("")
            line(style.bold("not in the manifest"))
            for unexpected in result.unexpected {
                line(beaconLine(
                    .unexpected, "—", unexpected.identity.description, unexpected.observation.sightings,
                    unexpected.explanation))
                receiverLine(unexpected.observation, context)
            }
            if result.untrackedUnexpectedSightings > 0 {
                line("  … and \(result.untrackedUnexpectedSightings) receptions of more identities using the fleet's UUIDs")
            }
        }
        if !result.otherManifestBeacons.isEmpty {
            let names = result.otherManifestBeacons.map { "\(Self.printable($0.beaconID)) (\($0.sightings)×)" }
            line("")
            line(style.dim("also heard, outside this pass: " + names.joined(separator: ", ")))
        }
        line("")
        let verdict = result.passed ? style.success("passed") : style.error("failed")
        line(verdict + ": " + Self.printable(VerificationSummary.line(result)))
        for warning in context.warnings { line(style.warning("warning") + ": " + warning) }
    }

    private func line(_ text: String) {
        sink.write(text + "\n")
    }

    private func beaconLine(_ status: VerdictStatus, _ id: String, _ identity: String, _ sightings: Int, _ text: String) -> String {
        let statusText = status.rawValue.padding(statusWidth)
        return "  " + Self.colour(status, statusText, style) + "  " + Self.printable(id).padding(idWidth) + "  "
            + identity.padding(identityWidth) + "  " + style.dim("\(sightings)×".leftPadding(5)) + "  " + Self.printable(text)
    }

    /// The length of `identity.description`: the UUID's 36 characters, two slashes, the
    /// digits of major and minor.
    static func descriptionLength(of identity: BeaconIdentity) -> Int {
        func digits(_ value: UInt16) -> Int { value >= 10_000 ? 5 : value >= 1000 ? 4 : value >= 100 ? 3 : value >= 10 ? 2 : 1 }
        return 38 + digits(identity.major) + digits(identity.minor)
    }

    /// With several receivers, a line under each beacon heard says which heard it and how
    /// strongly: coverage at a glance. One receiver would only repeat itself.
    private func receiverLine(_ observation: BeaconObservation, _ context: VerificationReportContext) {
        guard context.showsReceivers, !observation.receivers.isEmpty else { return }
        let indent = String(repeating: " ", count: 2 + statusWidth + 2 + idWidth + 2)
        line(indent + style.dim("heard by " + Self.printable(VerdictWording.receivers(observation))))
    }

    private static func colour(_ status: VerdictStatus, _ text: String, _ style: Style) -> String {
        switch status {
        case .ok: return style.success(text)
        case .slow, .weak, .unmonitored: return style.warning(text)
        default: return style.error(text)
        }
    }

    /// Ids come from a manifest: control characters would move the terminal's cursor.
    /// (`ControlCharacters` is exactly Unicode's category Cc, and much cheaper to ask than
    /// a scalar's general category: this runs for every line of a fleet's report.)
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: ControlCharacters.isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { ControlCharacters.isControl($0) ? "?" : $0 }))
    }
}

extension String {
    /// Padded with spaces on the right to `width` characters (never cut).
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// Padded with spaces on the left to `width` characters (never cut).
    fileprivate func leftPadding(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
