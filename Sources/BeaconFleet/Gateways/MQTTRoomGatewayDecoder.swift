import BeaconCore

/// The Home Assistant `mqtt_room` convention: `BASE/ROOM` (`room_presence` by default), one
/// JSON object per device heard, with at least `id` and `distance` (what Home Assistant's
/// `homeassistant/components/mqtt_room/sensor.py` requires; the room is the topic's last
/// level). Two publishers write it, with different fields, read here by one reader:
///
/// - ESP32-mqtt-room (`src/ESP32-mqtt-room.ino`, `reportDevice`): for an iBeacon `uuid` is 32
///   lower-case hex digits without dashes (its bytes reversed back from the BLE library's
///   order), `major`, `minor`, `txPower` (the signed measured power), `rssi`, `distance`;
///   `id` is `UUID-MAJOR-MINOR`. Other devices carry their address as `id` and `uuid`
///   (12 hex digits). It scans 5 s, then waits 5 s, and reports each device once per scan,
///   nothing beyond `maxDistance` (2 m by default). `presence_nodes/ROOM` says `CONNECTED`,
///   and `DISCONNECTED` as last will.
/// - room-assistant 1.x (`services/ble.service.js`, `services/mqtt.service.js`): `id`,
///   `name`, `rssi`, `uuid`, `major`, `minor`, `distance` (Kalman-smoothed), no measured
///   power; without its iBeacon parsing (or for other devices) no major and minor.
enum MQTTRoomPayloadReader {
    static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, kind: GatewayKind
    ) -> GatewayReading {
        if kind == .mqttRoom, let levels = GatewaySighting.levels(of: topic, under: MQTTRoomGatewayDecoder.statusBase) {
            guard levels.count == 1, !levels[0].isEmpty else { return .ignored }
            let receiver = GatewaySighting.receiver(levels[0], kind: kind)
            guard let online = GatewaySighting.status(payload, online: ["CONNECTED"], offline: ["DISCONNECTED"]) else {
                return .malformed("availability \(GatewaySighting.quoted(payload)) of \(receiver) is neither CONNECTED nor DISCONNECTED")
            }
            return .receiverStatus(receiver: receiver, online: online)
        }
        guard let levels = GatewaySighting.levels(of: topic, under: base), levels.count == 1, !levels[0].isEmpty else {
            return .ignored
        }
        let receiver = GatewaySighting.receiver(levels[0], kind: kind)
        do throws(GatewayPayload.Problem) {
            let fields = try GatewayPayload(payload)
            guard let id = try fields.string("id") else { throw .init("no \"id\"") }
            let uuidText = try fields.string("uuid")
            // A device that is not an iBeacon: its `uuid` is its address (12 digits) or absent.
            guard let uuidText, uuidText.utf8.count == 32 || uuidText.utf8.count == 36 else { return .ignored }
            guard let uuid = GatewaySpelling.uuid(Substring(uuidText)) else {
                throw .init("\"uuid\" \(JSONText.stringLiteral(String(uuidText.prefix(40)))) is not 32 hexadecimal digits")
            }
            guard fields.has("major"), fields.has("minor") else {
                return .withoutIdentity("\(receiver) reported iBeacon \(uuid) (id \(JSONText.stringLiteral(String(id.prefix(80))))) without its major and minor")
            }
            guard let major = try fields.integer("major", in: 0...65535),
                  let minor = try fields.integer("minor", in: 0...65535)
            else { throw .init("no major or minor") }
            let identity = BeaconIdentity(uuid: uuid, major: UInt16(major), minor: UInt16(minor))
            let power: Int8
            if let written = try fields.integer("txPower", in: -128...127) {
                power = Int8(written)
            } else if kind == .roomAssistant {
                power = MQTTRoomGatewayDecoder.unknownMeasuredPower
            } else {
                throw .init("no \"txPower\" (the measured power)")
            }
            let rssi = try fields.number("rssi").map { value throws(GatewayPayload.Problem) in
                guard let rssi = GatewaySpelling.rssi(value) else { throw .init("\"rssi\" \(NumberText.plain(value)) is not an RSSI in dBm") }
                return rssi
            }
            return GatewaySighting.make(
                identity: identity, measuredPower: power, address: nil, rssi: rssi,
                arrivalTime: arrivalTime, receiver: receiver)
        } catch {
            return .malformed("\(receiver): \(error.reason)")
        }
    }
}

/// `mqtt-room`: the `room_presence/ROOM` convention as ESP32-mqtt-room publishes it (and as
/// `scan --publish-as mqtt-room` does).
public enum MQTTRoomGatewayDecoder: GatewayDecoder {
    /// ESP32-mqtt-room's availability topics, `presence_nodes/ROOM`: outside the base.
    static let statusBase = "presence_nodes"

    /// The measured power of a sighting from a gateway that does not publish it
    /// (`carriesMeasuredPower` false): a placeholder, never to be judged.
    public static let unknownMeasuredPower: Int8 = .min

    public static func topicFilters(base: String) -> [String] { ["\(base)/+", "\(statusBase)/+"] }
    public static var defaultBase: String { "room_presence" }
    public static var reportsEveryAdvertisement: Bool { false }
    /// ESP32-mqtt-room publishes what each 5 s scan heard.
    public static var reportPeriod: Double? { 5 }

    public static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry _: inout GatewayTelemetry
    ) -> GatewayReading {
        MQTTRoomPayloadReader.read(topic: topic, payload: payload, base: base, arrivalTime: arrivalTime, kind: .mqttRoom)
    }
}

/// room-assistant 1.x's BLE service on `room_presence/ROOM`. It publishes no measured power
/// (`carriesMeasuredPower` is false: its sightings carry `unknownMeasuredPower`), and may
/// throttle each device to one report per `updateFrequency` seconds, a setting beaconctl
/// cannot see.
public enum RoomAssistantGatewayDecoder: GatewayDecoder {
    public static func topicFilters(base: String) -> [String] { ["\(base)/+"] }
    public static var defaultBase: String { "room_presence" }
    public static var reportsEveryAdvertisement: Bool { false }
    public static var carriesMeasuredPower: Bool { false }

    public static func read(
        topic: String, payload: [UInt8], base: String, arrivalTime: Double, telemetry _: inout GatewayTelemetry
    ) -> GatewayReading {
        MQTTRoomPayloadReader.read(topic: topic, payload: payload, base: base, arrivalTime: arrivalTime, kind: .roomAssistant)
    }
}
