import BeaconCore

/// The JSON-lines form of `verify --watch` output, one object per line, in a fixed field
/// order (docs/verify.md, "--watch"):
///
///     {"event":"change","time":15,"beacon":"door","venue":"shop","uuid":"…","major":1,"minor":1,
///      "state":"missing","previous":"ok","reason":"…","addresses":[],"receivers":[{"receiver":"hci1",
///      "rssi":-70,"sightings":6,"last_seen":5}]}
///     {"event":"receiver-offline","time":42,"receiver":"store-12","state":"offline","previous":"online",
///      "cause":"status","reason":"…","beacons":["door","till"],"last_seen":40.5}
///     {"event":"stats","time":60,"sightings":600,"lost_sightings":0,…,"beacons":{"ok":3,…},
///      "receivers":{"online":12,"offline":1}}
///     {"event":"summary",…the stats fields…,"end":"input-ended","passed":false,"not_ok":[…]}
///
/// An unexpected identity has no `beacon` or `venue`; a first state has no `previous`.
public enum AuditJSONLines {
    public static func encode(_ event: AuditEvent) -> String {
        var line = "{\"event\":\"change\",\"time\":" + SightingJSONLines.timeText(event.time)
        if let beaconID = event.beaconID { line += ",\"beacon\":" + JSONText.stringLiteral(beaconID) }
        if let venueID = event.venueID { line += ",\"venue\":" + JSONText.stringLiteral(venueID) }
        line += ",\"uuid\":\"\(event.identity.uuid)\",\"major\":\(event.identity.major),\"minor\":\(event.identity.minor)"
        line += ",\"state\":\"\(event.state.rawValue)\""
        if let previous = event.previous { line += ",\"previous\":\"\(previous.rawValue)\"" }
        line += ",\"reason\":" + JSONText.stringLiteral(event.reason)
        line += ",\"addresses\":[" + event.addresses.map(JSONText.stringLiteral).joined(separator: ",") + "]"
        line += ",\"receivers\":[" + event.receivers.map(encode(_:)).joined(separator: ",") + "]"
        return line + lastSeenFields(event.lastSeen, event.lastSeenUnixTime) + "}"
    }

    /// The input lost or back: `{"event":"input-lost","time":…,"input":"mqtt://…","reason":"…",
    /// "at":"…"}`; `input-restored` adds `"lost_for"` (seconds) and keeps the loss's reason.
    public static func encode(_ event: AuditInputEvent) -> String {
        var line = "{\"event\":\"\(event.kind.rawValue)\",\"time\":" + SightingJSONLines.timeText(event.time)
        line += ",\"input\":" + JSONText.stringLiteral(event.input)
        line += ",\"reason\":" + JSONText.stringLiteral(event.reason)
        if let lostFor = event.lostFor { line += ",\"lost_for\":" + SightingJSONLines.timeText(lostFor) }
        if let at = event.unixTime.flatMap({ WallClock.iso8601($0) }) { line += ",\"at\":\"\(at)\"" }
        return line + "}"
    }

    /// A receiver offline or online: `{"event":"receiver-offline","time":…,"receiver":"…",
    /// "state":"offline","previous":"online","cause":"silence","reason":"…","beacons":[…],
    /// "last_seen":…,"at":"…"}`; `previous` is left out the first time the receiver is known,
    /// `last_seen` when it was never heard. `beacons`: offline, those it leaves unmonitored;
    /// online, the unmonitored ones it hears again.
    public static func encode(_ event: AuditReceiverEvent) -> String {
        var line = "{\"event\":\"receiver-\(event.state.rawValue)\",\"time\":" + SightingJSONLines.timeText(event.time)
        line += ",\"receiver\":" + JSONText.stringLiteral(event.receiver)
        line += ",\"state\":\"\(event.state.rawValue)\""
        if let previous = event.previous { line += ",\"previous\":\"\(previous.rawValue)\"" }
        line += ",\"cause\":\"\(event.cause.rawValue)\",\"reason\":" + JSONText.stringLiteral(event.reason)
        line += ",\"beacons\":[" + event.beacons.map(JSONText.stringLiteral).joined(separator: ",") + "]"
        if let lastSeen = event.lastSeen { line += ",\"last_seen\":" + SightingJSONLines.timeText(lastSeen) }
        if let at = event.unixTime.flatMap({ WallClock.iso8601($0) }) { line += ",\"at\":\"\(at)\"" }
        return line + "}"
    }

    /// A battery low or ok again: `{"event":"battery-low","time":…,"beacon":"…","venue":"…",
    /// "identity":"UUID/major/minor","level":"2.41 V","battery_mv":2410,"threshold":"2.5 V",
    /// "source":"eddystone-tlm","reason":"…","at":"…"}`: `battery_mv` or `battery_percent` by
    /// the threshold's unit.
    public static func encode(_ event: AuditBatteryEvent) -> String {
        var line = "{\"event\":\"\(event.kind.rawValue)\",\"time\":" + SightingJSONLines.timeText(event.time)
        line += ",\"beacon\":" + JSONText.stringLiteral(event.beaconID)
        line += ",\"venue\":" + JSONText.stringLiteral(event.venueID)
        line += ",\"identity\":\"\(event.identity)\""
        line += ",\"level\":\"\(event.level)\""
        switch event.level {
        case .millivolts(let value): line += ",\"battery_mv\":\(value)"
        case .percent(let value): line += ",\"battery_percent\":\(value)"
        }
        line += ",\"threshold\":\"\(event.threshold)\",\"source\":\"\(event.source.rawValue)\""
        line += ",\"reason\":" + JSONText.stringLiteral(event.reason)
        // Going low, the forecast is moot; back ok, a new cell has no trend yet.
        if let at = event.unixTime.flatMap({ WallClock.iso8601($0) }) { line += ",\"at\":\"\(at)\"" }
        return line + "}"
    }

    /// `,"last_seen":12.5,"last_seen_at":"2026-…Z"`, each when known.
    private static func lastSeenFields(_ lastSeen: Double?, _ unixTime: Double?) -> String {
        var fields = ""
        if let lastSeen { fields += ",\"last_seen\":" + SightingJSONLines.timeText(lastSeen) }
        if let at = unixTime.flatMap({ WallClock.iso8601($0) }) { fields += ",\"last_seen_at\":\"\(at)\"" }
        return fields
    }

    /// A periodic `stats` line, or the final `summary` when `report.end` is set.
    public static func encode(_ report: AuditStatusReport) -> String {
        let statistics = report.statistics
        var line = "{\"event\":\"\(report.end == nil ? "stats" : "summary")\",\"time\":" + SightingJSONLines.timeText(report.time)
        line += ",\"sightings\":\(statistics.sightings),\"lost_sightings\":\(report.lostSightings),\"lost_messages\":\(report.lostMessages)"
        line += ",\"ignored_sightings\":\(statistics.ignoredSightings)"
        line += ",\"untracked_unexpected_sightings\":\(statistics.untrackedUnexpectedSightings)"
        line += ",\"untracked_receiver_sightings\":\(statistics.untrackedReceiverSightings)"
        var counts = AuditState.beaconStates.map { state in "\"\(state.rawValue)\":\(statistics.beaconStates[state] ?? 0)" }
        counts.append("\"unknown\":\(statistics.unknownBeacons)")
        line += ",\"beacons\":{\(counts.joined(separator: ","))}"
        line += ",\"unexpected\":\(statistics.unexpectedNow),\"gone\":\(statistics.unexpectedGone)"
        line += ",\"receivers\":{\"online\":\(statistics.receiversOnline),\"offline\":\(statistics.receiversOffline)}"
        // Only when telemetry was heard or batteries are expected: other watches' lines unchanged.
        let lowBatteries = report.batteries.filter { $0.standing == .low }
        if report.telemetry.received > 0 || !report.batteries.isEmpty {
            line += ",\"batteries\":{\"low\":\(lowBatteries.count),\"telemetry_readings\":\(report.telemetry.received)"
                + ",\"unpaired_telemetry\":\(report.telemetry.unpaired)}"
        }
        if let end = report.end {
            line += ",\"end\":\"\(end.rawValue)\",\"passed\":\(statistics.allOK && lowBatteries.isEmpty)"
            var notOK: [String] = report.beaconsNotOK.map { beacon, state in
                let name = JSONText.stringLiteral(beacon.beaconID)
                return "{\"beacon\":\(name),\"state\":\"\(state?.rawValue ?? "unknown")\"}"
            }
            notOK += lowBatteries.map { "{\"beacon\":\(JSONText.stringLiteral($0.beacon.beaconID)),\"state\":\"battery-low\"}" }
            line += ",\"not_ok\":[\(notOK.joined(separator: ","))]"
        }
        return line + "}"
    }

    /// One receiver's summary (also in a beacon's standing, AuditStanding).
    static func encode(_ receiver: AuditReceiverSummary) -> String {
        let name = JSONText.stringLiteral(receiver.receiver)
        let rssi = receiver.latestRSSI.map(String.init) ?? "null"
        return "{\"receiver\":\(name),\"rssi\":\(rssi),\"sightings\":\(receiver.sightings),\"last_seen\":\(SightingJSONLines.timeText(receiver.lastSeen))}"
    }
}
