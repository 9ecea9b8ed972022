import BeaconMQTT

/// The topic layout of beaconctl on a broker (docs/mqtt.md), under the URL's prefix:
///
///     PREFIX/sightings/RECEIVER   one or more sightings, JSON lines (docs/sightings.md), QoS 1
///     PREFIX/status/RECEIVER      `online` / `offline`, retained (the last will says offline)
///
/// RECEIVER is the receiver's name with the characters MQTT reserves in a topic level
/// (`/`, `+`, `#`) and control characters replaced by `_`.
public struct MQTTTopics: Hashable, Sendable {
    public var prefix: String

    public init(prefix: String) {
        self.prefix = prefix
    }

    public init(_ broker: MQTTBrokerURL) {
        self.init(prefix: broker.topicPrefix)
    }

    public func sightings(receiver: String) -> String { "\(prefix)/sightings/\(Self.level(receiver))" }
    public func status(receiver: String) -> String { "\(prefix)/status/\(Self.level(receiver))" }
    /// Every receiver's sightings.
    public var allSightings: String { "\(prefix)/sightings/+" }
    /// Every receiver's status.
    public var allStatuses: String { "\(prefix)/status/+" }

    /// The receiver (its topic level) whose sightings `topic` carries; `nil` for another topic.
    public func receiver(ofSightings topic: String) -> String? { level(after: "\(prefix)/sightings/", in: topic) }
    /// The receiver (its topic level) whose status `topic` carries; `nil` for another topic.
    public func receiver(ofStatus topic: String) -> String? { level(after: "\(prefix)/status/", in: topic) }

    private func level(after head: String, in topic: String) -> String? {
        guard topic.hasPrefix(head) else { return nil }
        let rest = topic.dropFirst(head.count)
        return rest.isEmpty || rest.contains("/") ? nil : String(rest)
    }

    public static let online = Array("online".utf8)
    public static let offline = Array("offline".utf8)

    /// `name` as one topic level.
    public static func level(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            scalar == "/" || scalar == "+" || scalar == "#" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar
        }))
        return cleaned.isEmpty ? "_" : cleaned
    }
}
