import BeaconCore
import BeaconMQTT

/// Home Assistant's MQTT discovery for the beacons a continuous audit watches
/// (`verify --watch --mqtt … --home-assistant`, docs/mqtt.md): for every beacon, one device
/// with three entities, announced by retained configuration messages on
/// `DISCOVERY/COMPONENT/NODE/OBJECT/config`:
///
/// - a `sensor` of device class `enum`: the audit's verdict (`ok`, `missing`,
///   `wrong-power`, …; `unknown` before this watch has judged it), for automations that
///   trigger on one; its options are every audit state, so states added later join by
///   themselves;
/// - a `binary_sensor` of device class `presence`: on while the audit hears the beacon
///   (`ok`, `wrong-power`, `duplicate`), off when it is `missing`, unknown otherwise;
/// - a `sensor` of device class `timestamp`: its latest reception on any receiver.
///
/// And for every receiver the watch follows, announced when the watch first knows it (it is
/// learned from the broker, not listed in the manifest), a device with one `binary_sensor`
/// of device class `connectivity`: on while the receiver is online, reading its latest
/// `receiver-offline`/`receiver-online`, retained on `PREFIX/audit/receivers/NAME`.
///
/// All read the beacon's standing, retained on `PREFIX/audit/beacons/ID` (AuditStanding),
/// which the verdict and presence entities also carry as attributes, and are available while
/// the audit's `PREFIX/audit/status` says `online`. A device per beacon, because a beacon is
/// one physical thing: Home Assistant groups its entities and places it in its venue's
/// area, named as the manifest names the venue.
public struct HomeAssistantDiscovery: Sendable {
    public static let defaultPrefix = "homeassistant"

    /// The first topic level Home Assistant listens to for discovery.
    public let discoveryPrefix: String
    public let topics: MQTTTopics

    /// The venues' names by id, where the manifest gives one: the area Home Assistant
    /// suggests for a beacon's device (else the venue's id).
    public let venueNames: [String: String]

    public init(discoveryPrefix: String = Self.defaultPrefix, topics: MQTTTopics, venueNames: [String: String] = [:]) {
        self.discoveryPrefix = discoveryPrefix
        self.topics = topics
        self.venueNames = venueNames
    }

    /// One message to publish, retained.
    public struct Announcement: Hashable, Sendable {
        public var topic: String
        public var payload: String
    }

    /// The announcements for `beacons`: three per beacon, verdict first, and two more for a
    /// beacon the manifest gives battery settings (its battery low, its voltage).
    public func announcements(for beacons: [ExpectedBeacon]) -> [Announcement] {
        beacons.flatMap { beacon in
            [verdict(beacon), presence(beacon), lastSeen(beacon)]
                + (beacon.battery == nil ? [] : [batteryLow(beacon), batteryVoltage(beacon)])
        }
    }

    /// Home Assistant's battery class on a binary sensor means "low" when on: what its battery
    /// dashboards and automations look for, with no template of the user's. Unknown until a
    /// reading was judged.
    private func batteryLow(_ beacon: ExpectedBeacon) -> Announcement {
        let objectID = Self.identifier(beacon.beaconID)
        let low = AuditBatteryEvent.Kind.low.rawValue
        let fields = common(beacon, entity: "battery", name: "Battery") + [
            ("device_class", string("battery")),
            ("entity_category", string("diagnostic")),
            ("value_template", string(
                "{{ 'ON' if value_json.battery_state == '\(low)' else ('OFF' if value_json.battery_state == 'ok' else 'None') }}")),
        ]
        return Announcement(topic: "\(discoveryPrefix)/binary_sensor/\(node)/\(objectID)_battery/config", payload: json(fields, device: device(beacon)))
    }

    /// The battery's voltage (or its percentage, for telemetry that gives one), as the watch
    /// judges it: a sensor of the voltage class in volts, so that history graphs show the
    /// decline the forecast reads.
    private func batteryVoltage(_ beacon: ExpectedBeacon) -> Announcement {
        let objectID = Self.identifier(beacon.beaconID)
        let percent: Bool
        if case .percent? = beacon.battery?.lowThreshold { percent = true } else { percent = false }
        let fields = common(beacon, entity: percent ? "battery_level" : "battery_voltage", name: percent ? "Battery level" : "Battery voltage") + [
            ("device_class", string(percent ? "battery" : "voltage")),
            ("unit_of_measurement", string(percent ? "%" : "V")),
            ("state_class", string("measurement")),
            ("entity_category", string("diagnostic")),
            ("value_template", string(percent
                ? "{{ value_json.battery_percent if value_json.battery_percent is not none else 'None' }}"
                : "{{ value_json.battery_v if value_json.battery_v is not none else 'None' }}")),
        ]
        let kind = percent ? "battery_level" : "battery_voltage"
        return Announcement(topic: "\(discoveryPrefix)/sensor/\(node)/\(objectID)_\(kind)/config", payload: json(fields, device: device(beacon)))
    }

    /// The states in which the audit hears a beacon: presence on.
    static let heardStates: [AuditState] = [.ok, .wrongPower, .duplicate]

    /// Node and object ids, and unique ids, may hold letters, digits, `_` and `-` only.
    public static func identifier(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-") ? scalar : "_"
        }))
        return cleaned.isEmpty ? "_" : cleaned
    }

    /// Unique per deployment (the topic prefix) and beacon, stable across restarts.
    private var node: String { "beaconctl_" + Self.identifier(topics.prefix) }

    private func verdict(_ beacon: ExpectedBeacon) -> Announcement {
        let objectID = Self.identifier(beacon.beaconID)
        let fields = common(beacon, entity: "verdict", name: "Verdict") + [
            ("device_class", string("enum")),
            ("options", "[" + AuditStanding.verdicts.map(string).joined(separator: ",") + "]"),
            // A standing of an older beaconctl has no verdict: its state, else unknown.
            ("value_template", string("{{ value_json.verdict | default(value_json.state | default('\(AuditStanding.unknown)')) }}")),
            ("json_attributes_topic", string(topics.auditBeacon(beacon.beaconID))),
        ]
        return Announcement(topic: "\(discoveryPrefix)/sensor/\(node)/\(objectID)_verdict/config", payload: json(fields, device: device(beacon)))
    }

    private func presence(_ beacon: ExpectedBeacon) -> Announcement {
        let objectID = Self.identifier(beacon.beaconID)
        // The states' names are letters and `-`: safe inside a template's quotes.
        let heard = Self.heardStates.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let fields = common(beacon, entity: "presence", name: "Presence") + [
            ("device_class", string("presence")),
            // `missing` is off, a state heard recently is on; any other verdict (not judged
            // yet, or a state that says nothing of the air) is unknown.
            ("value_template", string("{{ 'OFF' if value_json.state == '\(AuditState.missing.rawValue)' else ('ON' if value_json.state in [\(heard)] else 'None') }}")),
            ("json_attributes_topic", string(topics.auditBeacon(beacon.beaconID))),
        ]
        return Announcement(topic: "\(discoveryPrefix)/binary_sensor/\(node)/\(objectID)_presence/config", payload: json(fields, device: device(beacon)))
    }

    private func lastSeen(_ beacon: ExpectedBeacon) -> Announcement {
        let objectID = Self.identifier(beacon.beaconID)
        let fields = common(beacon, entity: "last_seen", name: "Last seen") + [
            ("device_class", string("timestamp")),
            // "None" makes the sensor unknown: a beacon never heard has no time (`null`).
            ("value_template", string("{{ value_json.last_seen_at or 'None' }}")),
        ]
        return Announcement(topic: "\(discoveryPrefix)/sensor/\(node)/\(objectID)_last_seen/config", payload: json(fields, device: device(beacon)))
    }

    /// The connectivity entity of the receiver named `receiver`.
    public func announcement(forReceiver receiver: String) -> Announcement {
        let objectID = Self.identifier(receiver)
        let state = topics.auditReceiver(receiver)
        let fields: [(String, String)] = [
            ("name", string("Connectivity")),
            ("unique_id", string("\(node)_receiver_\(objectID)_connectivity")),
            ("state_topic", string(state)),
            ("availability_topic", string(topics.status(role: "audit"))),
            ("payload_available", string("online")),
            ("payload_not_available", string("offline")),
            ("qos", "1"),
            ("device_class", string("connectivity")),
            ("value_template", string("{{ 'ON' if value_json.state == '\(ReceiverState.online.rawValue)' else 'OFF' }}")),
            ("json_attributes_topic", string(state)),
        ]
        let device: [(String, String)] = [
            ("identifiers", "[" + string("\(node)_receiver_\(objectID)") + "]"),
            ("name", string("Receiver \(receiver)")),
            ("model", string("beacon receiver")),
            ("manufacturer", string("beaconctl")),
        ]
        let deviceJSON = "{" + device.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        return Announcement(
            topic: "\(discoveryPrefix)/binary_sensor/\(node)/receiver_\(objectID)_connectivity/config", payload: json(fields, device: deviceJSON))
    }

    private func common(_ beacon: ExpectedBeacon, entity: String, name: String) -> [(String, String)] {
        [
            ("name", string(name)),
            ("unique_id", string("\(node)_\(Self.identifier(beacon.beaconID))_\(entity)")),
            ("state_topic", string(topics.auditBeacon(beacon.beaconID))),
            ("availability_topic", string(topics.status(role: "audit"))),
            ("payload_available", string("online")),
            ("payload_not_available", string("offline")),
            ("qos", "1"),
        ]
    }

    private func device(_ beacon: ExpectedBeacon) -> String {
        let fields: [(String, String)] = [
            ("identifiers", "[" + string("\(node)_\(Self.identifier(beacon.beaconID))") + "]"),
            ("name", string(beacon.name ?? beacon.beaconID)),
            ("model", string("iBeacon \(beacon.identity)")),
            ("manufacturer", string("beaconctl")),
            ("suggested_area", string(venueNames[beacon.venueID] ?? beacon.venueID)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private func json(_ fields: [(String, String)], device: String) -> String {
        "{" + (fields + [("device", device)]).map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private func string(_ text: String) -> String { JSONText.stringLiteral(text) }
}
