import BeaconCore
import BeaconMQTT
import Logging

/// Publishing a scan's sightings to a broker (`scan --mqtt`), from connecting to what is said
/// at the end: the client, the publisher, and the receiver's retained status.
public struct SightingPublishing: Sendable {
    /// The convention the sightings are published in (`scan --publish-as`).
    public enum Convention: String, CaseIterable, Sendable {
        /// `PREFIX/sightings/RECEIVER`, JSON lines (docs/mqtt.md).
        case beaconctl
        /// Home Assistant's `room_presence/ROOM` with the ranged distance (docs/gateways.md).
        case mqttRoom = "mqtt-room"
    }

    let connection: PublishingClient
    public let publisher: MQTTSightingPublisher
    /// Set in the mqtt-room convention: ranged beacons go there instead of sightings to `publisher`.
    let roomPublisher: MQTTRoomPublisher?

    public var client: MQTTClient { connection.client }

    /// Connects (in the background: a broker that is not up yet is retried while sightings
    /// queue) and returns the publisher. `receiver` renames every sighting; `nil` keeps
    /// each one's own (a recording of several receivers). `wallClockOffset` moves a live
    /// scan's elapsed times onto the Unix time the broker gets (`LiveScan.unixTimeOffset()`);
    /// `nil` publishes each sighting on the clock it carries (a recording), saying which.
    public static func start(
        _ url: String, receiver: String?, wallClockOffset: Double?, convention: Convention = .beaconctl,
        environment: [String: String], logger: Logger
    ) throws(BrokerSetupError) -> SightingPublishing {
        let broker = try BrokerConnection.broker(url)
        let topics = MQTTTopics(broker)
        // beaconctl's status topic means nothing to Home Assistant's room sensors.
        let status = convention == .beaconctl ? receiver.map { topics.status(receiver: $0) } : nil
        let connection = try PublishingClient.start(
            broker, name: "scan-\(receiver ?? ReceiverName.hostName())", status: status,
            environment: environment, logger: logger)
        let client = connection.client
        var roomPublisher: MQTTRoomPublisher?
        if convention == .mqttRoom {
            // A URL without a path names beaconctl's own prefix; the convention's is room_presence.
            let base = broker.topicPrefix == MQTTBrokerURL.defaultPrefix ? MQTTRoomPublisher.defaultBase : broker.topicPrefix
            roomPublisher = MQTTRoomPublisher(client: client, base: base, room: receiver)
            logger.notice("publishing ranged beacons to \(broker) in the mqtt_room convention (\(MQTTRoomPublisher.topic(base: base, room: receiver ?? "RECEIVER")))")
        } else {
            logger.notice("publishing sightings to \(broker) (\(receiver.map { topics.sightings(receiver: $0) } ?? topics.allSightings))")
        }
        return SightingPublishing(
            connection: connection,
            publisher: MQTTSightingPublisher(client: client, topics: topics, receiver: receiver, wallClockOffset: wallClockOffset),
            roomPublisher: roomPublisher)
    }

    /// Publishes one sighting the scan took: as it is, or (mqtt-room) its beacon as the scan
    /// ranges it (`ranged`) once it has a distance.
    public func add(_ sighting: Sighting, now: Double, ranged: () -> RangedBeacon?) {
        if let roomPublisher {
            if let beacon = ranged() { roomPublisher.add(beacon, now: now) }
        } else {
            publisher.add(sighting, now: now)
        }
    }

    /// Publishes one telemetry reading as a telemetry line, in the beaconctl convention (the
    /// mqtt-room convention has no place for it).
    public func add(_ reading: TelemetryReading, now: Double) {
        guard roomPublisher == nil else { return }
        publisher.add(reading, now: now)
    }

    /// Sends what is batched, then ends as every publishing client does
    /// (`PublishingClient.finish`): whether every sighting was delivered.
    @discardableResult
    public func finish(logger: Logger) async -> Bool {
        publisher.flushAll()
        return await connection.finish(.sightings, logger: logger) {
            // What the publisher counted in sightings (or, mqtt-room, in ranged beacons).
            roomPublisher?.counts ?? publisher.counts
        }
    }
}

/// A client publishing what a use case reports (`monitor --mqtt`, `verify --watch --mqtt`),
/// with a retained `online`/`offline` status (the last will says `offline`).
public struct ReportPublishing: Sendable {
    let connection: PublishingClient
    /// What is published, for messages: "region events", "audit changes".
    public let what: String

    public var client: MQTTClient { connection.client }

    /// Connects in the background (a broker that is not up yet is retried while reports
    /// queue). `role` names the status topic (`PREFIX/ROLE/status`) and the client id.
    public static func start(
        _ url: String, role: String, what: String, environment: [String: String], logger: Logger
    ) throws(BrokerSetupError) -> ReportPublishing {
        let broker = try BrokerConnection.broker(url)
        let connection = try PublishingClient.start(
            broker, name: "\(role)-\(ReceiverName.hostName())", status: MQTTTopics(broker).status(role: role),
            environment: environment, logger: logger)
        return ReportPublishing(connection: connection, what: what)
    }

    public var topics: MQTTTopics { MQTTTopics(client.broker) }

    /// Ends as every publishing client does (`PublishingClient.finish`), counting the
    /// reports in messages, one each: whether every one was delivered.
    public func finish(logger: Logger) async -> Bool {
        await connection.finish(.reports(what), logger: logger) { nil }
    }
}

/// A started publishing client and the task logging its connection: what `SightingPublishing`
/// and `ReportPublishing` both hold, and the one way either ends.
struct PublishingClient: Sendable {
    let client: MQTTClient
    let logging: Task<Void, Never>

    /// Starts the client (`BrokerConnection.start`): connecting in the background, `status`
    /// saying `online` while connected.
    static func start(
        _ broker: MQTTBrokerURL, name: String, status: String?, environment: [String: String], logger: Logger
    ) throws(BrokerSetupError) -> PublishingClient {
        let (client, logging) = try BrokerConnection.start(broker, name: name, status: status, environment: environment, logger: logger)
        return PublishingClient(client: client, logging: logging)
    }

    /// Waits up to `BrokerDelivery.drainTimeout` for the broker to acknowledge everything,
    /// says what became of `content` (`BrokerDelivery.summary`), and disconnects (status
    /// `offline`). `counted` reads, once the wait is over, what the publisher counted in
    /// `content`'s own units (published, dropped); `nil` when it is one message each, which
    /// the client counts. Whether everything was delivered.
    func finish(
        _ content: BrokerDelivery.Content, logger: Logger, counted: () -> (published: Int, dropped: Int)?
    ) async -> Bool {
        let drained = await BrokerConnection.drain(client, within: BrokerDelivery.drainTimeout)
        let counts = counted()
        let delivery = BrokerDelivery(
            content: content, broker: client.broker.description, published: counts?.published,
            dropped: counts?.dropped ?? client.droppedMessages, drained: drained, unacknowledged: client.pendingMessages,
            maximumPendingMessages: client.configuration.maximumPendingMessages, refusal: client.refusal?.description,
            refused: client.refusedPublications, unconfirmedAuthorisation: BrokerConnection.unconfirmedAuthorisation(client))
        for (level, message) in delivery.summary { logger.log(level: level, "\(message)") }
        await client.stop()
        logging.cancel()
        return delivery.delivered
    }
}

/// What became of what a client published, at its end, as `scan --mqtt`, `monitor --mqtt`
/// and `verify --watch --mqtt` word it on standard error (docs/mqtt.md): what went wrong,
/// or, for sightings, the count the broker acknowledged.
public struct BrokerDelivery: Sendable {
    /// How long the end waits for the broker to acknowledge what is still pending.
    public static let drainTimeout = 10.0

    /// What was published, as the end words name and count it.
    public enum Content: Sendable, Equatable {
        /// Sightings (or mqtt-room's ranged beacons), counted one by one by their publisher
        /// (a message carries several): the count the broker took is said at the end, the
        /// number a subscriber's count can be checked against.
        case sightings
        /// A use case's reports ("region events", "audit changes"), one message each.
        case reports(String)

        /// "the sightings", "the region events".
        var plural: String {
            switch self {
            case .sightings: "sightings"
            case .reports(let what): what
            }
        }

        /// "64 sightings", "3 messages of region events".
        func counted(_ count: Int) -> String {
            switch self {
            case .sightings: NumberText.count(count, "sighting")
            case .reports(let what): NumberText.count(count, "message") + " of " + what
            }
        }
    }

    var content: Content
    var broker: String
    /// Handed to the client in `content`'s units (the dropped ones not included); `nil`
    /// when not counted (reports).
    var published: Int?
    /// Dropped because `maximumPendingMessages` were already waiting, in `content`'s units.
    var dropped: Int
    /// Whether the broker acknowledged everything within `drainTimeout`.
    var drained: Bool
    /// Messages the broker had not acknowledged when the wait for it ended.
    var unacknowledged: Int
    var maximumPendingMessages: Int
    var refusal: String?
    /// Answered with a refusal (MQTT 5 PUBACK reason codes): not delivered.
    var refused = MQTTRefusedPublications()
    /// Set when the client spoke MQTT 3.1.1: said with the count, which it qualifies.
    var unconfirmedAuthorisation: String?

    public var delivered: Bool { refusal == nil && drained && unacknowledged == 0 && dropped == 0 && refused.isEmpty }

    public var summary: [(level: Logger.Level, message: String)] {
        var lines: [(level: Logger.Level, message: String)] = []
        if let refusal {
            lines.append((.error, "\(refusal); the \(content.plural) were not delivered"))
        } else if !drained || unacknowledged > 0 {
            lines.append((.error, "\(broker) did not acknowledge \(NumberText.count(unacknowledged, "message")) within \(Int(Self.drainTimeout)) s: some of the last \(content.plural) were not delivered"))
        }
        if !refused.isEmpty {
            // Sightings say how many of those published were refused; reports, how many messages.
            let what = published.map { "\(refused.items) of the \(content.counted($0)) published" } ?? content.counted(refused.messages)
            lines.append((.error, "\(broker) refused \(what) (\(refused.summary)): they were not delivered; the broker's ACL must let this client write there"))
        }
        if dropped > 0 {
            lines.append((.error, "\(content.counted(dropped)) \(dropped == 1 ? "was" : "were") dropped: the broker was away and \(maximumPendingMessages) messages were already waiting for it"))
        }
        if delivered {
            if let published {
                lines.append((.notice, "published \(content.counted(published)) to \(broker), every one acknowledged"))
            }
            if let unconfirmedAuthorisation { lines.append((.notice, unconfirmedAuthorisation)) }
        }
        return lines
    }
}
