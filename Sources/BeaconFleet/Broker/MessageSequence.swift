import BeaconMQTT

/// Numbers on the sightings messages a beaconctl publisher sends, so that a reader can tell
/// that messages were lost between them (a broker whose queue for a slow reader overflowed
/// drops messages without telling anyone): the MQTT 5 user property `beaconctl-seq`, value
/// `PUBLISHER/N` — a random id of the publishing process, and the message's number on its
/// topic, from 1. Under MQTT 3.1.1 there are no user properties, and no loss can be seen.
public enum MessageSequence {
    public static let propertyName = "beaconctl-seq"

    /// A publisher's numbering, one counter per topic.
    public struct Numbering: Sendable {
        /// Random: a restarted publisher starts a new numbering, never read as a gap.
        private let publisher = String(UInt64.random(in: 1...UInt64.max), radix: 36)
        private var numbers: [String: UInt64] = [:]

        public init() {}

        /// The property for the next message on `topic`.
        public mutating func next(topic: String) -> MQTTUserProperty {
            let number = (numbers[topic] ?? 0) &+ 1
            numbers[topic] = number
            return MQTTUserProperty(name: MessageSequence.propertyName, value: "\(publisher)/\(number)")
        }
    }

    /// A reader's view of every publisher's numbering: how many messages went missing.
    public struct Gaps: Sendable {
        /// Publisher-topic pairs followed at most; beyond, new ones are not followed (and the
        /// reader is told once, by `followsAll`).
        public static let maximumFollowed = 100_000
        private var expected: [String: UInt64] = [:]
        public private(set) var followsAll = true

        public init() {}

        /// The messages missing before this one, from its user properties; 0 when none are,
        /// or when the message carries no number (another publisher, MQTT 3.1.1).
        public mutating func missing(before message: MQTTMessage) -> Int {
            guard let property = message.userProperties.first(where: { $0.name == MessageSequence.propertyName }),
                  let slash = property.value.lastIndex(of: "/"),
                  let number = UInt64(property.value[property.value.index(after: slash)...]), number > 0
            else { return 0 }
            let key = message.topic + " " + property.value[..<slash]
            guard let next = expected[key] else {
                // A numbering seen for the first time: what came before it is not ours to count
                // (the publisher started before this reader).
                if expected.count < Self.maximumFollowed { expected[key] = number &+ 1 } else { followsAll = false }
                return 0
            }
            // Late (out of order) or repeated: nothing missing now.
            guard number >= next else { return 0 }
            expected[key] = number &+ 1
            return Int(clamping: number - next)
        }
    }
}
