import BeaconCore

/// One beacon's standing as a broker keeps it, retained on `PREFIX/audit/beacons/ID`
/// (docs/mqtt.md): what a dashboard connecting at any moment, or Home Assistant reading the
/// message as an entity's attributes, needs to know. Every standing has the same fields,
/// whether a change or a statistics report published it, so that attributes never come and
/// go; a value not known is `null`:
///
///     {"event":"state","time":60,"beacon":"door","venue":"store-12","uuid":"…","major":1,"minor":1,
///      "state":"ok","verdict":"ok","reason":"…","addresses":["…"],"receivers":[{…}],
///      "last_seen":59.9,"last_seen_at":"2026-…Z"}
///
/// A beacon the manifest says something of its battery about (docs/health.md) has four more,
/// always: `"battery_v"` (or `null`), `"battery_percent"` (or `null`), `"battery_state"`
/// (`ok`, `battery-low` or `unknown`), `"battery_at"` (the latest reading's time, or `null`) and
/// `"battery_days_left"` (the forecast, or `null` before three days of history).
///
/// `verdict` repeats `state` because Home Assistant's MQTT integration drops an attribute
/// named `state`; both say `unknown` while this watch has not judged the beacon yet.
public struct AuditStanding: Hashable, Sendable {
    /// The verdict of a beacon this watch has not judged yet: none of the audit's states.
    public static let unknown = "unknown"

    /// On the audit's clock; `nil` before the watch's clock has started.
    public var time: Double?
    /// `nil` for an unexpected identity, which has no id.
    public var beaconID: String?
    public var venueID: String?
    public var identity: BeaconIdentity
    /// `nil` until this watch has judged it.
    public var state: AuditState?
    public var reason: String
    public var addresses: [String]
    public var receivers: [AuditReceiverSummary]
    public var lastSeen: Double?
    public var lastSeenUnixTime: Double?
    /// Its battery, for a beacon the manifest gives battery settings; `nil` for the others
    /// (their standings have no battery fields).
    public var battery: Battery?

    /// What a standing says of a battery.
    public struct Battery: Hashable, Sendable {
        public var level: BatteryLevel?
        public var standing: BatteryJudge.Standing
        /// The latest reading, Unix time, when the audit's clock can tell it.
        public var readAt: Double?
        /// Days until the threshold by the trend of its daily medians (docs/health.md); `nil`
        /// before three days of history, or when it does not decline.
        public var daysLeft: Double?

        public init(level: BatteryLevel?, standing: BatteryJudge.Standing, readAt: Double?, daysLeft: Double? = nil) {
            self.level = level
            self.standing = standing
            self.readAt = readAt
            self.daysLeft = daysLeft
        }

        /// The word `battery_state` carries.
        var state: String {
            switch standing {
            case .unknown: AuditStanding.unknown
            case .ok: "ok"
            case .low: AuditBatteryEvent.Kind.low.rawValue
            }
        }
    }

    /// The standing a change leaves.
    public init(_ event: AuditEvent) {
        time = event.time
        beaconID = event.beaconID
        venueID = event.venueID
        identity = event.identity
        state = event.state
        reason = event.reason
        addresses = event.addresses
        receivers = event.receivers
        lastSeen = event.lastSeen
        lastSeenUnixTime = event.lastSeenUnixTime
    }

    /// A beacon's standing at a statistics report: its state and latest reception as the
    /// report has them; why, and who heard it, as of `latestChange`, the change that set
    /// that state (the watch publishes every change, so a known state always has one).
    public init(_ summary: AuditBeaconSummary, at time: Double, latestChange: AuditEvent?) {
        self.time = time
        beaconID = summary.beacon.beaconID
        venueID = summary.beacon.venueID
        identity = summary.beacon.identity
        state = summary.state
        lastSeen = summary.lastSeen
        lastSeenUnixTime = summary.lastSeenUnixTime
        if let latestChange, summary.state != nil, latestChange.state == summary.state {
            reason = latestChange.reason
            addresses = latestChange.addresses
            receivers = latestChange.receivers
        } else {
            reason = summary.state == nil ? Self.notYetJudged : ""
            addresses = []
            receivers = []
        }
    }

    /// A manifest beacon before this watch has judged it: what a restarted watch publishes
    /// at once in place of the previous run's standing, which it cannot vouch for.
    public static func unconfirmed(_ beacon: ExpectedBeacon) -> AuditStanding {
        AuditStanding(beacon: beacon)
    }

    private init(beacon: ExpectedBeacon) {
        time = nil
        beaconID = beacon.beaconID
        venueID = beacon.venueID
        identity = beacon.identity
        state = nil
        reason = Self.notYetJudged
        addresses = []
        receivers = []
        lastSeen = nil
        lastSeenUnixTime = nil
    }

    static let notYetJudged = "not judged yet: this watch has not heard it, and its silence period has not passed"

    /// The state's name, or `unknown`.
    public var verdict: String { state?.rawValue ?? Self.unknown }

    /// Every value `verdict` can take: the audit's states (those added later too) and `unknown`.
    public static var verdicts: [String] {
        let states = AuditState.allCases.map(\.rawValue)
        // Once, should the audit ever name one of its states so.
        return states.contains(unknown) ? states : states + [unknown]
    }

    /// The retained message, one JSON object.
    public var jsonLine: String {
        func optional(_ text: String?) -> String { text.map(JSONText.stringLiteral) ?? "null" }
        var line = "{\"event\":\"state\",\"time\":" + (time.map(SightingJSONLines.timeText) ?? "null")
        line += ",\"beacon\":" + optional(beaconID) + ",\"venue\":" + optional(venueID)
        line += ",\"uuid\":\"\(identity.uuid)\",\"major\":\(identity.major),\"minor\":\(identity.minor)"
        line += ",\"state\":\"\(verdict)\",\"verdict\":\"\(verdict)\""
        line += ",\"reason\":" + JSONText.stringLiteral(reason)
        line += ",\"addresses\":[" + addresses.map(JSONText.stringLiteral).joined(separator: ",") + "]"
        line += ",\"receivers\":[" + receivers.map(AuditJSONLines.encode(_:)).joined(separator: ",") + "]"
        line += ",\"last_seen\":" + (lastSeen.map(SightingJSONLines.timeText) ?? "null")
        line += ",\"last_seen_at\":" + optional(lastSeenUnixTime.flatMap { WallClock.iso8601($0) })
        if let battery {
            if case .millivolts(let value)? = battery.level {
                line += ",\"battery_v\":" + BatteryLevel.voltsText(value) + ",\"battery_percent\":null"
            } else if case .percent(let value)? = battery.level {
                line += ",\"battery_v\":null,\"battery_percent\":\(value)"
            } else {
                line += ",\"battery_v\":null,\"battery_percent\":null"
            }
            line += ",\"battery_state\":\"\(battery.state)\",\"battery_at\":" + optional(battery.readAt.flatMap { WallClock.iso8601($0) })
            line += ",\"battery_days_left\":" + (battery.daysLeft.map { SightingJSONLines.timeText(($0 * 10).rounded() / 10) } ?? "null")
        }
        return line + "}"
    }
}
