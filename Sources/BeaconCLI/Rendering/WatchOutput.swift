import BeaconCore
import BeaconFleet

/// `verify --watch` on standard output: JSON lines, or a readable log (a terminal's
/// default); periodic statistics go to standard error in the log, to standard output as
/// `stats` lines in JSON lines.
struct WatchOutput: AuditEventSink {
    enum Format: Sendable {
        case text, jsonl
    }

    let format: Format
    let console: Console

    func deliver(_ event: AuditEvent) {
        switch format {
        case .jsonl: console.line(AuditJSONLines.encode(event))
        case .text: console.line(Self.text(event))
        }
    }

    func deliver(_ event: AuditInputEvent) {
        switch format {
        case .jsonl: console.line(AuditJSONLines.encode(event))
        case .text: console.line(Self.text(event))
        }
    }

    func deliver(_ event: AuditReceiverEvent) {
        switch format {
        case .jsonl: console.line(AuditJSONLines.encode(event))
        case .text: console.line(Self.text(event))
        }
    }

    func deliver(_ event: AuditBatteryEvent) {
        switch format {
        case .jsonl: console.line(AuditJSONLines.encode(event))
        case .text: console.line(Self.text(event))
        }
    }

    func deliver(_ report: AuditStatusReport) {
        switch format {
        case .jsonl:
            console.line(AuditJSONLines.encode(report))
        case .text:
            console.errorLine("\(Self.time(report.time))  stats  \(Self.counts(report))")
            if let end = report.end { console.line(Self.summary(report, end: end)) }
        }
    }

    /// `     15.0 s  missing      door 04F6…/1/1 (was ok): not heard for 30 s …; hci1 -70 dBm ×6`
    static func text(_ event: AuditEvent) -> String {
        let name = event.beaconID.map { printable($0) + " " } ?? ""
        let was = event.previous.map { " (was \($0.rawValue))" } ?? ""
        let state = event.state.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
        let receivers = event.receivers.map { receiver in
            let rssi = receiver.latestRSSI.map { "\($0) dBm" } ?? "no RSSI"
            return "\(printable(receiver.receiver)) \(rssi) ×\(receiver.sightings)"
        }
        let heardBy = receivers.isEmpty ? "" : "; " + receivers.joined(separator: ", ")
        return "\(time(event.time))  \(state)  \(name)\(event.identity)\(was): \(printable(event.reason))\(heardBy)"
    }

    /// `     42.0 s  input-lost   mqtt://broker/fleet: connection lost; no beacon is judged by silence until it is back`
    static func text(_ event: AuditInputEvent) -> String {
        let kind = event.kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
        switch event.kind {
        case .lost:
            return "\(time(event.time))  \(kind)  \(printable(event.input)): \(printable(event.reason)); no beacon is judged by silence until it is back"
        case .restored:
            let away = event.lostFor.map { " after \(SightingJSONLines.timeText(($0 * 10).rounded() / 10)) s" } ?? ""
            return "\(time(event.time))  \(kind)  \(printable(event.input)) delivers again\(away); every beacon has a full silence from now before it can be missing"
        case .sightingsLost:
            return "\(time(event.time))  \(kind)  \(printable(event.input)): \(printable(event.reason)); no beacon is judged missing on a silence that includes them"
        case .watchStalled, .receiverClock, .boundReached:
            return "\(time(event.time))  \(kind)  \(printable(event.reason))"
        }
    }

    /// `   3600.0 s  battery-low     door 04F6…/1/1: battery 2.41 V below 2.5 V: replace it on the next visit`
    static func text(_ event: AuditBatteryEvent) -> String {
        let kind = event.kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
        return "\(time(event.time))  \(kind)  \(printable(event.beaconID)) \(event.identity): \(event.reason)"
    }

    /// `     42.0 s  receiver-offline  store-12 (was online): none of its sightings for 30 s; unmonitored: door, till`
    static func text(_ event: AuditReceiverEvent) -> String {
        let kind = "receiver-\(event.state.rawValue)".padding(toLength: 16, withPad: " ", startingAt: 0)
        let was = event.previous.map { " (was \($0.rawValue))" } ?? ""
        var text = "\(time(event.time))  \(kind)  \(printable(event.receiver))\(was): \(printable(event.reason))"
        if !event.beacons.isEmpty {
            let beacons = event.beacons.map(printable).joined(separator: ", ")
            switch event.state {
            case .offline: text += "; no receiver monitors \(beacons) (unmonitored, not missing)"
            case .online: text += "; \(beacons) monitored again, each with a full silence from now before it can be missing"
            }
        }
        return text
    }

    /// `600 sightings, 0 lost; 3 ok, 0 missing, 0 wrong-power, 0 duplicate, 0 unmonitored; 0 unexpected; 2 receivers online, 0 offline`
    static func counts(_ report: AuditStatusReport) -> String {
        let statistics = report.statistics
        var text = "\(statistics.sightings) sightings, \(report.lostSightings) lost"
        if report.lostMessages > 0 { text += " (and \(NumberText.count(report.lostMessages, "message")) from the broker)" }
        text += "; "
        text += AuditState.beaconStates.map { "\(statistics.beaconStates[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
        if statistics.unknownBeacons > 0 { text += ", \(statistics.unknownBeacons) not heard yet" }
        text += "; \(statistics.unexpectedNow) unexpected"
        if statistics.unexpectedGone > 0 { text += " (\(statistics.unexpectedGone) gone)" }
        if statistics.receiversOnline + statistics.receiversOffline > 0 {
            text += "; \(NumberText.count(statistics.receiversOnline, "receiver")) online, \(statistics.receiversOffline) offline"
        }
        if statistics.ignoredSightings > 0 { text += "; \(statistics.ignoredSightings) sightings outside the audit" }
        let untracked = statistics.untrackedUnexpectedSightings + statistics.untrackedReceiverSightings
        if untracked > 0 { text += "; \(untracked) sightings beyond the tracked identities and receivers" }
        return text
    }

    /// `passed at the end of input: every beacon ok (3)`, or what is not ok.
    static func summary(_ report: AuditStatusReport, end: AuditWatchEnd) -> String {
        let when = end == .inputEnded ? "at the end of input" : "when interrupted"
        var losses: [String] = []
        if report.lostSightings > 0 { losses.append("\(LossWording.reports(report.lostSightings)) lost on this host") }
        if report.lostMessages > 0 { losses.append("\(NumberText.count(report.lostMessages, "message")) of sightings lost on the way from the broker") }
        let lost = losses.isEmpty ? "" : "; " + losses.joined(separator: " and ") + " (no beacon was judged missing on a silence that included them)"
        let lowBatteries = report.batteries.filter { $0.standing == .low }.map { "\(printable($0.beacon.beaconID)) battery-low" }
        if report.statistics.allOK && lowBatteries.isEmpty {
            let count = report.statistics.beaconStates[.ok] ?? 0
            return "passed \(when): every beacon ok (\(count))\(lost)"
        }
        var problems = report.beaconsNotOK.map { beacon, state in "\(printable(beacon.beaconID)) \(state?.rawValue ?? "not heard yet")" }
        problems += lowBatteries
        if report.statistics.unexpectedNow > 0 {
            problems.append("\(report.statistics.unexpectedNow) unexpected identit\(report.statistics.unexpectedNow == 1 ? "y" : "ies") on the air")
        }
        return "failed \(when): \(problems.joined(separator: ", "))\(lost)"
    }

    static func printable(_ text: String) -> String {
        ControlCharacters.escaped(text)
    }

    private static func time(_ seconds: Double) -> String {
        let text = ScanTable.decimal(seconds, places: 1) + " s"
        return String(repeating: " ", count: max(0, 9 - text.count)) + text
    }
}

/// `verify --watch --exec`: a program run on every change of state. It learns about the
/// change from `BEACONCTL_EVENT` (`change`), `BEACONCTL_BEACON` (the manifest id; empty for
/// an unexpected identity), `BEACONCTL_VENUE`, `BEACONCTL_IDENTITY` (`UUID/major/minor`),
/// `BEACONCTL_STATE`, `BEACONCTL_PREVIOUS_STATE` (empty for the first state),
/// `BEACONCTL_REASON`, `BEACONCTL_TIME` (seconds on the watch's clock),
/// `BEACONCTL_ADDRESSES` (comma-separated) and `BEACONCTL_RECEIVERS`
/// (`receiver=RSSI`, comma-separated; the RSSI empty when none was reported). Addresses and
/// receivers are few per identity (`ContinuousAudit.Configuration`), so the environment stays small.
struct WatchEventHook: AuditEventSink {
    let program: ProgramHook

    static func variables(for event: AuditEvent) -> [String: String] {
        [
            "BEACONCTL_EVENT": "change",
            "BEACONCTL_BEACON": event.beaconID ?? "",
            "BEACONCTL_VENUE": event.venueID ?? "",
            "BEACONCTL_IDENTITY": event.identity.description,
            "BEACONCTL_STATE": event.state.rawValue,
            "BEACONCTL_PREVIOUS_STATE": event.previous?.rawValue ?? "",
            "BEACONCTL_REASON": event.reason,
            "BEACONCTL_TIME": String(event.time),
            "BEACONCTL_ADDRESSES": event.addresses.joined(separator: ","),
            "BEACONCTL_RECEIVERS": event.receivers.map { "\($0.receiver)=\($0.latestRSSI.map(String.init) ?? "")" }.joined(separator: ","),
        ]
    }

    func deliver(_ event: AuditEvent) {
        let subject = "\(event.state.rawValue) \(WatchOutput.printable(event.beaconID ?? event.identity.description))"
        program.run(Self.variables(for: event), subject: subject, nulAdvice: "rename the receiver or beacon so that it holds no control characters")
    }

    /// `BEACONCTL_EVENT=input-lost` or `input-restored`, with the input and why.
    static func variables(for event: AuditInputEvent) -> [String: String] {
        [
            "BEACONCTL_EVENT": event.kind.rawValue,
            "BEACONCTL_INPUT": event.input,
            "BEACONCTL_REASON": event.reason,
            "BEACONCTL_TIME": String(event.time),
            "BEACONCTL_LOST_FOR": event.lostFor.map { String($0) } ?? "",
        ]
    }

    /// The longest list of beacons handed to the program: one variable must stay well under
    /// the kernel's 128 KB per string (a receiver may hear a large part of a fleet).
    static let maximumBeaconListBytes = 32_768

    /// `BEACONCTL_EVENT=receiver-offline` or `receiver-online`, with the receiver, its state,
    /// the previous one, the cause and why, and the beacons it leaves unmonitored (offline)
    /// or monitors again (online): `BEACONCTL_BEACONS` (comma-separated, cut at
    /// `maximumBeaconListBytes`) and `BEACONCTL_BEACON_COUNT` (all of them).
    static func variables(for event: AuditReceiverEvent) -> [String: String] {
        var list = ""
        for beacon in event.beacons {
            let next = list.isEmpty ? beacon : list + "," + beacon
            if next.utf8.count > maximumBeaconListBytes { break }
            list = next
        }
        return [
            "BEACONCTL_EVENT": "receiver-\(event.state.rawValue)",
            "BEACONCTL_RECEIVER": event.receiver,
            "BEACONCTL_STATE": event.state.rawValue,
            "BEACONCTL_PREVIOUS_STATE": event.previous?.rawValue ?? "",
            "BEACONCTL_CAUSE": event.cause.rawValue,
            "BEACONCTL_REASON": event.reason,
            "BEACONCTL_TIME": String(event.time),
            "BEACONCTL_BEACONS": list,
            "BEACONCTL_BEACON_COUNT": String(event.beacons.count),
        ]
    }

    func deliver(_ event: AuditReceiverEvent) {
        program.run(
            Self.variables(for: event), subject: "receiver-\(event.state.rawValue) \(WatchOutput.printable(event.receiver))",
            nulAdvice: "rename the receiver so that it holds no control characters")
    }

    /// `BEACONCTL_EVENT=battery-low` or `battery-ok`, with the beacon, its venue and identity,
    /// `BEACONCTL_BATTERY` (the level judged, `2.41 V` or `15 %`), `BEACONCTL_THRESHOLD`,
    /// `BEACONCTL_SOURCE`, `BEACONCTL_REASON` and `BEACONCTL_TIME`.
    static func variables(for event: AuditBatteryEvent) -> [String: String] {
        [
            "BEACONCTL_EVENT": event.kind.rawValue,
            "BEACONCTL_BEACON": event.beaconID,
            "BEACONCTL_VENUE": event.venueID,
            "BEACONCTL_IDENTITY": event.identity.description,
            "BEACONCTL_BATTERY": event.level.description,
            "BEACONCTL_THRESHOLD": event.threshold.description,
            "BEACONCTL_SOURCE": event.source.rawValue,
            "BEACONCTL_REASON": event.reason,
            "BEACONCTL_TIME": String(event.time),
        ]
    }

    func deliver(_ event: AuditBatteryEvent) {
        program.run(
            Self.variables(for: event), subject: "\(event.kind.rawValue) \(WatchOutput.printable(event.beaconID))",
            nulAdvice: "rename the beacon so that it holds no control characters")
    }

    func deliver(_ event: AuditInputEvent) {
        program.run(
            Self.variables(for: event), subject: "\(event.kind.rawValue) \(WatchOutput.printable(event.input))",
            nulAdvice: "give the input a name without control characters")
    }
}
