import BeaconCore
import BeaconMQTT

/// Home Assistant's MQTT discovery for the beacons a continuous audit watches
/// (`verify --watch --mqtt … --home-assistant`, docs/mqtt.md): for every beacon, one device
/// with two entities, announced by retained configuration messages on
/// `DISCOVERY/COMPONENT/NODE/OBJECT/config`:
///
/// - a `binary_sensor` of device class `presence`: on while the audit hears the beacon
///   (`ok`, `wrong-power`, `duplicate`), off when it is `missing`;
/// - a `sensor` of device class `timestamp`: its latest reception on any receiver.
///
/// Both read the audit's retained `PREFIX/audit/beacons/ID` (its latest change, refreshed
/// with every statistics report) and are available while the audit's
/// `PREFIX/audit/status` says `online`. A device per beacon, because a beacon is one
/// physical thing: Home Assistant groups its entities and places it in its venue's area.
public struct HomeAssistantDiscovery: Sendable {
    public static let defaultPrefix = "homeassistant"

    /// The first topic level Home Assistant listens to for discovery.
    public let discoveryPrefix: String
    public let topics: MQTTTopics

    public init(discoveryPrefix: String = Self.defaultPrefix, topics: MQTTTopics) {
        self.discoveryPrefix = discoveryPrefix
        self.topics = topics
    }

    /// One message to publish, retained.
    public struct Announcement: Hashable, Sendable {
        public var topic: String
        public var payload: String
    }

    /// The announcements for `beacons`: two per beacon, presence first.
    public func announcements(for beacons: [ExpectedBeacon]) -> [Announcement] {
        beacons.flatMap { beacon in [presence(beacon), lastSeen(beacon)] }
    }

    /// Node and object ids, and unique ids, may hold letters, digits, `_` and `-` only.
    public static func identifier(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-") ? scalar : "_"
        }))
        return cleaned.isEmpty ? "_" : cleaned
    }

    /// Unique per deployment (the topic prefix) and beacon, stable across restarts.
    private var node: String { "beaconctl_" + Self.identifier(topics.prefix) }

    private func presence(_ beacon: ExpectedBeacon) -> Announcement {
        let objectID = Self.identifier(beacon.beaconID)
        let fields = common(beacon, entity: "presence", name: "Presence") + [
            ("device_class", string("presence")),
            // `missing` is off, a state heard recently is on; before the first state, unknown.
            ("value_template", string("{{ 'OFF' if value_json.state == 'missing' else ('ON' if value_json.state is defined else 'None') }}")),
            ("json_attributes_topic", string(topics.auditBeacon(beacon.beaconID))),
        ]
        return Announcement(topic: "\(discoveryPrefix)/binary_sensor/\(node)/\(objectID)_presence/config", payload: json(fields, device: device(beacon)))
    }

    private func lastSeen(_ beacon: ExpectedBeacon) -> Announcement {
        let objectID = Self.identifier(beacon.beaconID)
        let fields = common(beacon, entity: "last_seen", name: "Last seen") + [
            ("device_class", string("timestamp")),
            // "None" makes the sensor unknown: a beacon never heard has no time.
            ("value_template", string("{{ value_json.last_seen_at | default('None') }}")),
        ]
        return Announcement(topic: "\(discoveryPrefix)/sensor/\(node)/\(objectID)_last_seen/config", payload: json(fields, device: device(beacon)))
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
            ("suggested_area", string(beacon.venueID)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private func json(_ fields: [(String, String)], device: String) -> String {
        "{" + (fields + [("device", device)]).map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private func string(_ text: String) -> String { JSONText.stringLiteral(text) }
}
