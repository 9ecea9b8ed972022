import BeaconCore
import BeaconMQTT

/// The receivers on a broker whose messages `--input mqtt://…` can read, by the software
/// that publishes them (`--gateway NAME`, docs/gateways.md). Each has its own topic layout,
/// its own spelling of an iBeacon's identity and its own cadence.
public enum GatewayKind: String, CaseIterable, Hashable, Sendable {
    /// beaconctl's own boxes: `PREFIX/sightings/RECEIVER`, JSON lines (docs/mqtt.md).
    case beaconctl
    /// ESPresense boards: `espresense/devices/ID/ROOM`.
    case espresense
    /// Theengs Gateway: `home/NAME/BTtoMQTT/ADDRESS`.
    case theengs
    /// OpenMQTTGateway: `home/NAME/BTtoMQTT/ADDRESS`.
    case openMQTTGateway = "openmqttgateway"
    /// Home Assistant's `mqtt_room` convention as ESP32-mqtt-room publishes it: `room_presence/ROOM`.
    case mqttRoom = "mqtt-room"
    /// room-assistant 1.x: `room_presence/ROOM`, without the measured power.
    case roomAssistant = "room-assistant"
    /// andrewjfreyer/monitor: `monitor/IDENTITY/ID`.
    case monitor

    /// The decoder of this kind's messages.
    public var decoder: any GatewayDecoder.Type {
        switch self {
        case .beaconctl: BeaconCtlGatewayDecoder.self
        case .espresense: ESPresenseGatewayDecoder.self
        case .theengs: TheengsGatewayDecoder.self
        case .openMQTTGateway: OpenMQTTGatewayDecoder.self
        case .mqttRoom: MQTTRoomGatewayDecoder.self
        case .roomAssistant: RoomAssistantGatewayDecoder.self
        case .monitor: MonitorGatewayDecoder.self
        }
    }
}

/// What one message on a gateway's topics says.
public enum GatewayReading: Sendable, Equatable {
    /// Sightings, stamped with the message's arrival time unless the gateway says when the
    /// advertisement was heard.
    case sightings([Sighting])
    /// A receiver's own status (its retained status topic, its last will).
    case receiverStatus(receiver: String, online: Bool)
    /// A report of a beacon that carries no identity to audit (no major/minor, a bare UUID):
    /// counted and said once, never guessed. The text says what was missing.
    case withoutIdentity(String)
    /// Not about beacons (a configuration topic, another device kind): passed over silently.
    case ignored
    /// On a topic this kind publishes sightings on, but not a readable message: counted,
    /// and the reason said for the first few.
    case malformed(String)
    /// A batch of lines (beaconctl's own messages carry up to 64 sightings) of which some
    /// could not be read: the readable ones are kept, each unreadable line counted (one bad
    /// line must not cost the audit its neighbours' evidence). `firstReason` says why the
    /// first of them was unreadable.
    case partlyReadable([Sighting], unreadableLines: Int, firstReason: String)
}

/// Reads one gateway kind's messages. Pure: no state, no clock but the arrival time given.
public protocol GatewayDecoder {
    /// The topic filters to subscribe to under `base` (the gateway's base topic).
    static func topicFilters(base: String) -> [String]
    /// The base topic when `--input` names none (the gateway's factory default).
    static var defaultBase: String { get }
    /// Whether every advertisement a receiver hears is published (so gaps between reports are
    /// evidence of the beacon's interval); `false` for gateways that throttle or sample.
    static var reportsEveryAdvertisement: Bool { get }
    /// Whether its sightings carry the beacon's advertised measured power; `false` for
    /// gateways that do not publish it (their sightings carry
    /// `MQTTRoomGatewayDecoder.unknownMeasuredPower`, which must not be judged).
    static var carriesMeasuredPower: Bool { get }
    /// The time a receiver may take between two reports of a beacon it keeps hearing, at the
    /// gateway's factory settings, seconds (its throttle or its scan cycle); `nil` when it
    /// reports every advertisement, or reports on change with no such bound. What
    /// `--timeout` and `--silence` must leave room for (`GatewayPacing`).
    static var reportPeriod: Double? { get }
    /// One message, and the telemetry it carries beside its sightings (`GatewayTelemetry`;
    /// gateways whose messages carry none this reader takes leave it alone). `arrivalTime`
    /// is Unix seconds on this host when the message arrived.
    static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry: inout GatewayTelemetry
    ) -> GatewayReading
}

extension GatewayDecoder {
    public static var carriesMeasuredPower: Bool { true }
    public static var reportPeriod: Double? { nil }

    /// One message, its telemetry (if any) left aside.
    public static func read(topic: String, payload: [UInt8], base: String, arrivalTime: Double) -> GatewayReading {
        var ignored = GatewayTelemetry()
        return read(topic: topic, payload: payload, base: base, arrivalTime: arrivalTime, telemetry: &ignored)
    }

    /// What its sightings can vouch for, from `reportsEveryAdvertisement` and
    /// `carriesMeasuredPower`: the audit judges nothing else from them.
    public static var sightingEvidence: SightingEvidence {
        var evidence: SightingEvidence = []
        if reportsEveryAdvertisement { evidence.insert(.everyAdvertisement) }
        if carriesMeasuredPower { evidence.insert(.measuredPower) }
        return evidence
    }

    /// `read`, with every sighting marked with `sightingEvidence`: what the broker input
    /// passes on, so that no gateway's cadence or placeholder is judged as the beacon's.
    public static func readMarkingEvidence(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double
    ) -> GatewayReading {
        var ignored = GatewayTelemetry()
        return readMarkingEvidence(topic: topic, payload: payload, base: base, arrivalTime: arrivalTime, telemetry: &ignored)
    }

    /// `readMarkingEvidence`, with the message's telemetry added to `telemetry`.
    public static func readMarkingEvidence(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry: inout GatewayTelemetry
    ) -> GatewayReading {
        let reading = read(topic: topic, payload: payload, base: base, arrivalTime: arrivalTime, telemetry: &telemetry)
        let evidence = sightingEvidence
        guard evidence != .complete else { return reading }
        switch reading {
        case .sightings(var sightings):
            for index in sightings.indices { sightings[index].evidence.formIntersection(evidence) }
            return .sightings(sightings)
        case .partlyReadable(var sightings, let unreadable, let reason):
            for index in sightings.indices { sightings[index].evidence.formIntersection(evidence) }
            return .partlyReadable(sightings, unreadableLines: unreadable, firstReason: reason)
        default:
            return reading
        }
    }
}

/// beaconctl's own layout (`MQTTTopics`): JSON lines of sightings, a retained status.
public enum BeaconCtlGatewayDecoder: GatewayDecoder {
    public static func topicFilters(base: String) -> [String] {
        let topics = MQTTTopics(prefix: base)
        return [topics.allSightings, topics.allStatuses]
    }

    public static var defaultBase: String { MQTTBrokerURL.defaultPrefix }
    public static var reportsEveryAdvertisement: Bool { true }

    /// Sighting lines and telemetry lines (`scan --mqtt --telemetry`) alike, line by line.
    public static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry: inout GatewayTelemetry
    ) -> GatewayReading {
        let topics = MQTTTopics(prefix: base)
        if let receiver = topics.receiver(ofStatus: topic) {
            if payload == MQTTTopics.online { return .receiverStatus(receiver: receiver, online: true) }
            if payload == MQTTTopics.offline { return .receiverStatus(receiver: receiver, online: false) }
            return .malformed("status \(JSONText.stringLiteral(String(decoding: payload.prefix(64), as: UTF8.self))) is neither online nor offline")
        }
        guard topics.receiver(ofSightings: topic) != nil else { return .ignored }
        var sightings: [Sighting] = []
        var readings: [TelemetryReading] = []
        var unreadable = 0
        var firstReason: String?
        // Line by line: a corrupt line is counted with its reason, its neighbours are kept.
        for (index, line) in payload.split(separator: 0x0A).enumerated() {
            do {
                // beaconctl publishes Unix time (`MQTTSightingPublisher`) and says so; a line
                // that does not say is on the broker's clock too: receivers share it.
                if let sighting = try SightingJSONLines.decode(
                    line: line, lineNumber: index + 1, source: topic, defaultClock: .unix, telemetry: { readings.append($0) }) {
                    sightings.append(sighting)
                }
            } catch {
                unreadable += 1
                if firstReason == nil { firstReason = "\(error)" }
            }
        }
        telemetry.readings += readings
        guard let firstReason else { return .sightings(sightings) }
        // Nothing readable at all: the message as a whole is unreadable.
        guard !sightings.isEmpty || !readings.isEmpty else { return .malformed(firstReason) }
        guard !sightings.isEmpty else { return .malformed("\(unreadable) of its lines unreadable, its telemetry lines kept: \(firstReason)") }
        return .partlyReadable(sightings, unreadableLines: unreadable, firstReason: firstReason)
    }
}
