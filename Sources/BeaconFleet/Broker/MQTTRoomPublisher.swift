import BeaconCore
import BeaconMQTT
import Synchronization

/// What a beaconctl box hears, published in Home Assistant's `mqtt_room` convention
/// (`scan --publish-as mqtt-room`): `BASE/ROOM` (`room_presence` by default), one JSON object
/// per ranged beacon with the fields ESP32-mqtt-room writes (`id` `UUID-MAJOR-MINOR` with the
/// UUID as 32 lower-case hex digits, `uuid`, `major`, `minor`, `txPower`, `rssi`,
/// `distance` in metres). Home Assistant's `mqtt_room` sensor needs `id` and `distance` and
/// takes the room from the topic's last level; `mqtt-room` as a `--gateway` reads it back.
///
/// A beacon is published at most once per `minimumInterval` per room, and only once it has a
/// ranged distance: Home Assistant moves a device to the room that reports it nearest, and a
/// message per advertisement would only load the broker.
public final class MQTTRoomPublisher: Sendable {
    public static let defaultBase = MQTTRoomGatewayDecoder.defaultBase
    public static let minimumInterval = 1.0
    /// Beacons remembered for throttling; beyond, the oldest are forgotten (memory bounded).
    static let maximumTracked = 4096

    private struct State {
        var lastPublished: [String: Double] = [:]
        var published = 0
        var dropped = 0
    }

    public let client: MQTTClient
    private let base: String
    /// Every beacon is published as heard in this room; `nil` uses each one's receiver.
    private let room: String?
    private let state = Mutex(State())

    public init(client: MQTTClient, base: String, room: String?) {
        self.client = client
        self.base = base
        self.room = room
    }

    /// The topic a receiver's reports go to.
    public static func topic(base: String, room: String) -> String {
        base + "/" + MQTTTopics.level(room)
    }

    /// One ranged beacon's message, or `nil` while it has no distance.
    public static func payload(_ beacon: RangedBeacon) -> [UInt8]? {
        guard let distance = beacon.accuracy, distance.isFinite, distance >= 0 else { return nil }
        let uuid = String(beacon.identity.uuid.description.lowercased().filter { $0 != "-" })
        let id = "\(uuid)-\(beacon.identity.major)-\(beacon.identity.minor)"
        var text = "{\"id\":" + JSONText.stringLiteral(id) + ",\"uuid\":" + JSONText.stringLiteral(uuid)
        text += ",\"major\":\(beacon.identity.major),\"minor\":\(beacon.identity.minor),\"txPower\":\(beacon.measuredPower)"
        if let rssi = beacon.rssi { text += ",\"rssi\":\(rssi)" }
        // Centimetres are as fine as ranging gets.
        text += ",\"distance\":" + NumberText.plain((distance * 100).rounded() / 100) + "}"
        return Array(text.utf8)
    }

    /// Publishes `beacon` unless it was published less than `minimumInterval` ago (`now`:
    /// any clock, the same for every call).
    public func add(_ beacon: RangedBeacon, now: Double) {
        let room = self.room ?? beacon.receiver
        guard let payload = Self.payload(beacon) else { return }
        let topic = Self.topic(base: base, room: room)
        let key = topic + " " + beacon.identity.description
        let due: Bool = state.withLock { state in
            if let last = state.lastPublished[key], now - last < Self.minimumInterval, now >= last { return false }
            if state.lastPublished.count >= Self.maximumTracked, state.lastPublished[key] == nil {
                if let oldest = state.lastPublished.min(by: { $0.value < $1.value })?.key { state.lastPublished[oldest] = nil }
            }
            state.lastPublished[key] = now
            state.published += 1
            return true
        }
        guard due else { return }
        if !client.publish(topic: topic, payload: payload) {
            state.withLock {
                $0.published -= 1
                $0.dropped += 1
            }
        }
    }

    /// Messages handed to the broker client, and those dropped because it had too many
    /// waiting.
    public var counts: (published: Int, dropped: Int) {
        state.withLock { ($0.published, $0.dropped) }
    }
}
