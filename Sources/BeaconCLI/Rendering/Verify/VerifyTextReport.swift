import BeaconFleet

/// The human report of a verification pass: beacons grouped by venue in manifest order,
/// one line each (verdict, beacon, identity, receptions, explanation), then the identities
/// nobody expected, then one summary line.
enum VerifyTextReport {
    static func render(_ result: VerificationResult, style: Style) -> String {
        var lines: [String] = [style.bold(printable(result.scope))]
        let idWidth = min(32, (result.verdicts.map(\.beacon.beaconID.count) + [1]).max() ?? 1)
        let statusWidth = VerdictStatus.allCases.map(\.rawValue.count).max() ?? 0

        func line(_ status: VerdictStatus, _ id: String, _ identity: String, _ sightings: Int, _ text: String) -> String {
            let statusText = status.rawValue.padding(statusWidth)
            return "  " + colour(status, statusText, style) + "  " + printable(id).padding(idWidth) + "  " + identity
                + "  " + style.dim("\(sightings)×".leftPadding(5)) + "  " + printable(text)
        }

        // With several receivers, a line under each beacon heard says which heard it and how
        // strongly: coverage at a glance. One receiver would only repeat itself.
        let showsReceivers = result.receivers.count > 1
        let receiverIndent = String(repeating: " ", count: 2 + statusWidth + 2 + idWidth + 2)
        func receiverLine(_ observation: BeaconObservation) -> String? {
            guard showsReceivers, !observation.receivers.isEmpty else { return nil }
            return receiverIndent + style.dim("heard by " + printable(VerdictWording.receivers(observation)))
        }

        for (venue, verdicts) in result.verdictsByVenue {
            lines.append("")
            lines.append(style.bold(printable(venue)))
            for verdict in verdicts {
                lines.append(line(
                    verdict.status, verdict.beacon.beaconID, verdict.beacon.identity.description,
                    verdict.observation.sightings, verdict.explanation(in: result)))
                if let receivers = receiverLine(verdict.observation) { lines.append(receivers) }
            }
        }
        if result.unexpectedCount > 0 {
            lines.append("")
            lines.append(style.bold("not in the manifest"))
            for unexpected in result.unexpected {
                lines.append(line(
                    .unexpected, "—", unexpected.identity.description, unexpected.observation.sightings,
                    unexpected.explanation))
                if let receivers = receiverLine(unexpected.observation) { lines.append(receivers) }
            }
            if result.untrackedUnexpectedSightings > 0 {
                lines.append("  … and \(result.untrackedUnexpectedSightings) receptions of more identities using the fleet's UUIDs")
            }
        }
        if !result.otherManifestBeacons.isEmpty {
            let names = result.otherManifestBeacons.map { "\(printable($0.beaconID)) (\($0.sightings)×)" }
            lines.append("")
            lines.append(style.dim("also heard, outside this pass: " + names.joined(separator: ", ")))
        }
        lines.append("")
        let verdict = result.passed ? style.success("passed") : style.error("failed")
        lines.append(verdict + ": " + printable(VerificationSummary.line(result)))
        for warning in result.warnings { lines.append(style.warning("warning") + ": " + warning) }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func colour(_ status: VerdictStatus, _ text: String, _ style: Style) -> String {
        switch status {
        case .ok: return style.success(text)
        case .slow, .weak: return style.warning(text)
        default: return style.error(text)
        }
    }

    /// Ids come from a manifest: control characters would move the terminal's cursor.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
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
