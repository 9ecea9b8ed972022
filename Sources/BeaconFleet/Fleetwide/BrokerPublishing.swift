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

    public let client: MQTTClient
    public let publisher: MQTTSightingPublisher
    /// Set in the mqtt-room convention: ranged beacons go there instead of sightings to `publisher`.
    let roomPublisher: MQTTRoomPublisher?
    let logging: Task<Void, Never>

    /// Connects (in the background: a broker that is not up yet is retried while sightings
    /// queue) and returns the publisher. `receiver` renames every sighting; `nil` keeps
    /// each one's own (a recording of several receivers). `wallClockOffset` moves a live
    /// scan's elapsed times onto the Unix time the broker gets (`LiveScan.unixTimeOffset()`);
    /// `nil` publishes each sighting on the clock it carries (a recording), saying which.
    public static func start(
        _ url: String, receiver: String?, wallClockOffset: Double?, convention: Convention = .beaconctl,
        environment: [String: String], logger: Logger
    ) throws(BrokerSetupError) -> SightingPublishing {
        let broker: MQTTBrokerURL
        do {
            broker = try MQTTBrokerURL(parsing: url)
        } catch {
            throw .url(error)
        }
        let topics = MQTTTopics(broker)
        // beaconctl's status topic means nothing to Home Assistant's room sensors.
        let status = convention == .beaconctl ? receiver.map { topics.status(receiver: $0) } : nil
        let (client, logging) = try BrokerConnection.start(
            url, name: "scan-\(receiver ?? ReceiverName.hostName())", status: status,
            environment: environment, logger: logger)
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
            client: client, publisher: MQTTSightingPublisher(client: client, topics: topics, receiver: receiver, wallClockOffset: wallClockOffset),
            roomPublisher: roomPublisher, logging: logging)
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

    /// Sends what is batched, waits up to `drainTimeout` for the broker to acknowledge
    /// everything, says what was delivered or what could not be, and disconnects (status
    /// `offline`). Returns whether every sighting was delivered.
    @discardableResult
    public func finish(logger: Logger) async -> Bool {
        publisher.flushAll()
        let drained = await BrokerConnection.drain(client, within: Self.drainTimeout)
        let counts = roomPublisher?.counts ?? publisher.counts
        let delivery = Delivery(
            broker: client.broker.description, published: counts.published, dropped: counts.dropped,
            drained: drained, unacknowledged: client.pendingMessages,
            maximumPendingMessages: client.configuration.maximumPendingMessages, refusal: client.refusal?.description,
            refused: client.refusedPublications, unconfirmedAuthorisation: BrokerConnection.unconfirmedAuthorisation(client))
        for (level, message) in delivery.summary { logger.log(level: level, "\(message)") }
        await client.stop()
        logging.cancel()
        return delivery.delivered
    }

    /// What became of a scan's sightings at its end, as `scan --mqtt` words it on standard
    /// error (docs/mqtt.md): the count of sightings the broker acknowledged, or what went wrong.
    public struct Delivery: Sendable {
        var broker: String
        /// Sightings handed to the client (the dropped ones not included).
        var published: Int
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
                lines.append((.error, "\(refusal); the sightings were not delivered"))
            } else if !drained || unacknowledged > 0 {
                lines.append((.error, "\(broker) did not acknowledge \(NumberText.count(unacknowledged, "message")) within \(Int(SightingPublishing.drainTimeout)) s: some of the last sightings were not delivered"))
            }
            if !refused.isEmpty {
                lines.append((.error, "\(broker) refused \(refused.items) of the \(NumberText.count(published, "sighting")) published (\(refused.summary)): they were not delivered; the broker's ACL must let this client write there"))
            }
            if dropped > 0 {
                lines.append((.error, "\(dropped) sightings were dropped: the broker was away and \(maximumPendingMessages) messages were already waiting for it"))
            }
            if delivered {
                lines.append((.notice, "published \(NumberText.count(published, "sighting")) to \(broker), every one acknowledged"))
                if let unconfirmedAuthorisation { lines.append((.notice, unconfirmedAuthorisation)) }
            }
            return lines
        }
    }

    public static let drainTimeout = 10.0
}

/// A client publishing what a use case reports (`monitor --mqtt`, `verify --watch --mqtt`),
/// with a retained `online`/`offline` status (the last will says `offline`).
public struct ReportPublishing: Sendable {
    public let client: MQTTClient
    let logging: Task<Void, Never>
    /// What is published, for messages: "region events", "audit changes".
    public let what: String

    /// Connects in the background (a broker that is not up yet is retried while reports
    /// queue). `role` names the status topic (`PREFIX/ROLE/status`) and the client id.
    public static func start(
        _ url: String, role: String, what: String, environment: [String: String], logger: Logger
    ) throws(BrokerSetupError) -> ReportPublishing {
        let broker: MQTTBrokerURL
        do {
            broker = try MQTTBrokerURL(parsing: url)
        } catch {
            throw .url(error)
        }
        let (client, logging) = try BrokerConnection.start(
            url, name: "\(role)-\(ReceiverName.hostName())", status: MQTTTopics(broker).status(role: role),
            environment: environment, logger: logger)
        return ReportPublishing(client: client, logging: logging, what: what)
    }

    public var topics: MQTTTopics { MQTTTopics(client.broker) }

    /// Waits up to `SightingPublishing.drainTimeout` for the broker to acknowledge
    /// everything, says what it did not take, and disconnects (status `offline`). Whether
    /// everything was delivered.
    public func finish(logger: Logger) async -> Bool {
        let drained = await BrokerConnection.drain(client, within: SightingPublishing.drainTimeout)
        var delivered = true
        if let refusal = client.refusal {
            logger.error("\(refusal); the \(what) were not published")
            delivered = false
        } else if !drained || client.pendingMessages > 0 {
            logger.error("\(client.broker) did not acknowledge \(client.pendingMessages) message(s) of \(what) within \(Int(SightingPublishing.drainTimeout)) s")
            delivered = false
        }
        let refused = client.refusedPublications
        if !refused.isEmpty {
            logger.error("\(client.broker) refused \(refused.messages) message(s) of \(what) (\(refused.summary)): they were not published; the broker's ACL must let this client write there")
            delivered = false
        }
        if client.droppedMessages > 0 {
            logger.error("\(client.droppedMessages) message(s) of \(what) were dropped while the broker was away")
            delivered = false
        }
        if delivered, let unconfirmed = BrokerConnection.unconfirmedAuthorisation(client) { logger.notice("\(unconfirmed)") }
        await client.stop()
        logging.cancel()
        return delivered
    }
}

