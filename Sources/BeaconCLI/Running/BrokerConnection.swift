import BeaconCore
import BeaconFleet
import BeaconMQTT
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How beaconctl reaches a broker, from the environment — secrets never go on a command
/// line (docs/mqtt.md):
///
/// | variable | what |
/// |---|---|
/// | `BEACONCTL_MQTT_USERNAME`, `BEACONCTL_MQTT_PASSWORD` | credentials |
/// | `BEACONCTL_MQTT_CREDENTIALS` | a file: line 1 the user name, line 2 the password |
/// | `BEACONCTL_MQTT_CA_FILE`, `BEACONCTL_MQTT_CERT_FILE`, `BEACONCTL_MQTT_KEY_FILE` | TLS for `mqtts://` |
/// | `BEACONCTL_MQTT_CLIENT_ID_PREFIX` | the start of every client id (default `beaconctl`): ids are PREFIX-ROLE-NAME |
/// | `BEACONCTL_MQTT_PROTOCOL` | `5` (the default; 3.1.1 when the broker speaks nothing newer) or `3.1.1` |
enum BrokerConnection {
    static let clientIDPrefixVariable = "BEACONCTL_MQTT_CLIENT_ID_PREFIX"
    static let protocolVariable = "BEACONCTL_MQTT_PROTOCOL"

    /// A client for `url` (not started), configured from `environment`; its id is
    /// `PREFIX-NAME` (PREFIX `beaconctl` unless the environment sets one). A persistent
    /// session is per id, and two clients with the same id take it from each other: every
    /// client of a process has its own NAME.
    static func client(
        _ url: String, name: String, defaultPrefix: String = MQTTBrokerURL.defaultPrefix,
        will: MQTTClient.Will? = nil, online: MQTTClient.Will? = nil,
        maximumReconnectDelaySeconds: UInt32? = nil, environment: [String: String], logger: Logger
    ) throws(CommandFailure) -> MQTTClient {
        let protocolVersion = try protocolVersion(environment)
        do {
            let broker = try MQTTBrokerURL(parsing: url, defaultPrefix: defaultPrefix)
            var credentials = try MQTTCredentials.fromEnvironment(environment)
            if credentials == nil, let file = environment[MQTTCredentials.fileVariable], !file.isEmpty {
                credentials = try MQTTCredentials.fromFile(file) { logger.warning("\($0)") }
            }
            let tls = broker.usesTLS ? MQTTTLS.fromEnvironment(environment) : nil
            let prefix = environment[clientIDPrefixVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "beaconctl"
            let clientID = prefix + "-" + MQTTTopics.level(name)
            var configuration = MQTTClient.Configuration(
                clientID: clientID, credentials: credentials, tls: tls, will: will, online: online,
                protocolVersion: protocolVersion)
            if let maximumReconnectDelaySeconds { configuration.maximumReconnectDelaySeconds = maximumReconnectDelaySeconds }
            return try MQTTClient(broker: broker, configuration: configuration)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
    }

    /// `BEACONCTL_MQTT_PROTOCOL`: `5` by default, `3.1.1` to hold the client to it.
    static func protocolVersion(_ environment: [String: String]) throws(CommandFailure) -> MQTTProtocolVersion {
        switch environment[protocolVariable] ?? "" {
        case "", "5", "5.0": return .v5
        case "3.1.1", "311": return .v311
        case let other:
            throw CommandFailure(.usageOrInput, "\(protocolVariable)=\(other): not an MQTT version beaconctl speaks; use 5 (the default, falling back to 3.1.1 by itself) or 3.1.1")
        }
    }

    /// Logs connection changes until the client stops, handing each to `forward` too; a
    /// refusal is an error.
    static func logConnection(
        _ client: MQTTClient, logger: Logger, forward: (@Sendable (MQTTConnectionEvent) -> Void)? = nil
    ) -> Task<Void, Never> {
        Task {
            for await event in client.connectionEvents {
                forward?(event)
                switch event {
                case .connected: logger.info("connected to \(client.broker) (\(client.protocolVersion))")
                case .subscribed: logger.debug("\(client.broker) acknowledged the subscription")
                case .disconnected(let reason): logger.warning("\(client.broker): \(reason); reconnecting")
                case .refused(let error): logger.error("\(error)")
                case .statusRefused(let topic, let reason):
                    logger.warning("\(client.broker) refused the status on \(topic) (\(reason)): dashboards will not see this client online; the broker's ACL must let it write there")
                case .oversizedMessage(let topic, let bytes, let limit):
                    logger.warning("\(client.broker): a message of \(bytes) bytes on \(topic) is over the \(limit)-byte limit and was dropped unread (so is every later one, counted at the end): find the publisher that sends it")
                }
            }
        }
    }

    /// The closing words for a client that spoke MQTT 3.1.1, whose acknowledgements do not
    /// say whether the broker took a message or refused it; `nil` under MQTT 5.
    static func unconfirmedAuthorisation(_ client: MQTTClient) -> String? {
        guard client.protocolVersion == .v311 else { return nil }
        return "\(client.broker) spoke MQTT 3.1.1, which acknowledges a publish it refuses like one it accepts: that the broker's ACL let these messages through cannot be confirmed (MQTT 5 would say; check the broker's ACL, or a subscriber)"
    }

}

/// `--input mqtt://HOST[/BASE]` (one or several): the sightings the receivers publish
/// there, read live by the same code that reads recordings.
struct BrokerInput {
    let feed: BrokerSightingFeed
    let logging: [Task<Void, Never>]
    /// Whether every broker delivers: lost when one connection is lost, restored once every
    /// one is connected again (`verify --watch` judges nothing by silence meanwhile).
    let health: AsyncStream<InputHealthChange>
    let logger: Logger
    /// A reader waits on the broker: it is retried every second, not with a backoff that
    /// grows to half a minute (the watch is blind until it is back).
    static let reconnectDelaySeconds: UInt32 = 1

    /// `nil` when the inputs are not brokers.
    static func open(
        _ options: SightingInputOptions, role: String, environment: [String: String], logger: Logger
    ) throws(CommandFailure) -> BrokerInput? {
        let brokers = try options.brokerInputs()
        guard !brokers.isEmpty else { return nil }
        var subscriptions: [BrokerSubscription] = []
        for (index, broker) in brokers.enumerated() {
            // Each its own client id: two clients with one id take the session from each other.
            let name = brokers.count == 1 ? "\(role)-\(ReceiverName.hostName())" : "\(role)-\(ReceiverName.hostName())-\(index + 1)"
            let client = try BrokerConnection.client(
                broker.url, name: name, defaultPrefix: broker.gateway.decoder.defaultBase,
                maximumReconnectDelaySeconds: reconnectDelaySeconds, environment: environment, logger: logger)
            subscriptions.append(BrokerSubscription(
                client: client, gateway: broker.gateway, base: client.broker.topicPrefix, name: broker.url))
        }
        // Unbounded, and never a backlog: its one reader (the watch's feed) moves each change on
        // as it comes. A bound would let a burst of losses (one change per gap) push an
        // `input-lost` out unread, and the watch would judge while blind.
        let (health, healthChanges) = AsyncStream.makeStream(of: InputHealthChange.self, bufferingPolicy: .unbounded)
        let connections = BrokerConnections(count: subscriptions.count)
        let logging = subscriptions.enumerated().map { index, subscription in
            let broker = subscription.client.broker
            return BrokerConnection.logConnection(subscription.client, logger: logger) { event in
                switch event {
                // Connected is delivering: a persistent session brings its subscription and
                // its queued sightings with the connection; a new one subscribes at once.
                case .connected:
                    if connections.connected(index) { healthChanges.yield(.restored) }
                // A refused status message is a warning (logged); the sightings still flow.
                case .subscribed, .statusRefused, .oversizedMessage: break
                case .disconnected(let reason):
                    connections.lost(index)
                    healthChanges.yield(.lost(reason: "\(broker): \(reason)"))
                case .refused(let error):
                    connections.lost(index)
                    healthChanges.yield(.lost(reason: error.description))
                }
            }
        }
        do {
            let feed = try BrokerSightingFeed(subscriptions: subscriptions, logger: logger)
            // Each gap in a publisher's numbering: delivering, but incompletely.
            let losses = Task {
                for await loss in feed.losses { healthChanges.yield(.incomplete(reason: loss.description)) }
            }
            for subscription in subscriptions {
                let filters = subscription.gateway.decoder.topicFilters(base: subscription.base).joined(separator: ", ")
                logger.notice("reading what \(subscription.gateway.rawValue) receivers publish to \(subscription.client.broker) (\(filters))")
            }
            return BrokerInput(feed: feed, logging: logging + [losses], health: health, logger: logger)
        } catch {
            for task in logging { task.cancel() }
            throw CommandFailure(.usageOrInput, error.description)
        }
    }

    /// What the commands read.
    var sightings: SightingInput { .broker(feed.sightings) }
    /// The inputs as given, for messages.
    var name: String { feed.subscriptions.map(\.name).joined(separator: ", ") }

    /// Stops reading; a broker that refused the connection, TLS or the subscription for good
    /// (which ended the stream early) is a failure, exit 3.
    func close() async throws(CommandFailure) {
        await feed.stop()
        for task in logging { task.cancel() }
        let skipped = feed.skippedMessages
        if skipped.malformed > 0 {
            logger.warning("\(name): \(NumberText.count(skipped.malformed, "unreadable message")) skipped")
        }
        if skipped.lost > 0 {
            logger.warning("\(name): \(NumberText.count(skipped.lost, "message")) of sightings never arrived (numbered by their publishers, dropped on the way: the broker drops what it cannot queue for a slow reader; raise its queue for this client, Mosquitto's max_queued_messages, or spread the fleet over more watches)")
        }
        if skipped.withoutIdentity > 0 {
            logger.warning("\(name): \(NumberText.count(skipped.withoutIdentity, "report")) without a beacon identity (no major and minor) could not be audited")
        }
        var refusals: [String] = []
        for subscription in feed.subscriptions {
            let client = subscription.client
            let oversized = client.oversizedMessages
            if oversized > 0 {
                logger.warning("\(client.broker): \(NumberText.count(oversized, "message")) over \(client.configuration.maximumMessageBytes) bytes dropped unread")
            }
            if let refusal = client.refusal { refusals.append(refusal.description) }
        }
        if !refusals.isEmpty {
            throw CommandFailure(.controller, "\(refusals.joined(separator: "; ")); no sightings were read from \(refusals.count == 1 ? "it" : "them")")
        }
    }
}

/// Which of several broker connections are up, so that the input is restored only when all
/// of them are.
private final class BrokerConnections: Sendable {
    private let up: Mutex<[Bool]>

    init(count: Int) {
        up = Mutex(Array(repeating: false, count: count))
    }

    /// Marks connection `index` up; whether every connection is up now.
    func connected(_ index: Int) -> Bool {
        up.withLock { up in
            up[index] = true
            return up.allSatisfy { $0 }
        }
    }

    func lost(_ index: Int) {
        up.withLock { $0[index] = false }
    }
}

/// `scan --mqtt`: the client, the publisher, and the receiver's retained status.
struct SightingPublishing: Sendable {
    /// `scan --publish-as`: the convention the sightings are published in.
    enum Convention: String, CaseIterable, Sendable {
        /// `PREFIX/sightings/RECEIVER`, JSON lines (docs/mqtt.md).
        case beaconctl
        /// Home Assistant's `room_presence/ROOM` with the ranged distance (docs/gateways.md).
        case mqttRoom = "mqtt-room"
    }

    let client: MQTTClient
    let publisher: MQTTSightingPublisher
    /// Set with `--publish-as mqtt-room`: ranged beacons go there instead of sightings to `publisher`.
    let roomPublisher: MQTTRoomPublisher?
    let logging: Task<Void, Never>

    /// Connects (in the background: a broker that is not up yet is retried while sightings
    /// queue) and returns the publisher. `receiver` renames every sighting; `nil` keeps
    /// each one's own (a recording of several receivers).
    static func start(
        _ url: String, receiver: String?, source: SightingSource, convention: Convention = .beaconctl,
        environment: [String: String], logger: Logger
    ) throws(CommandFailure) -> SightingPublishing {
        let broker: MQTTBrokerURL
        do {
            broker = try MQTTBrokerURL(parsing: url)
        } catch {
            throw CommandFailure(.usageOrInput, "--mqtt \(error)")
        }
        let topics = MQTTTopics(broker)
        // beaconctl's status topic means nothing to Home Assistant's room sensors.
        let status = convention == .beaconctl ? receiver.map { topics.status(receiver: $0) } : nil
        let (client, logging) = try BrokerConnection.start(
            url, name: "scan-\(receiver ?? ReceiverName.hostName())", status: status,
            environment: environment, logger: logger)
        // A live scan counts from its start; the broker gets Unix time. A recording's
        // sightings go out on the clocks they were recorded on, each saying which.
        var offset: Double?
        if case .live(let scan) = source { offset = scan.unixTimeOffset() }
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
            client: client, publisher: MQTTSightingPublisher(client: client, topics: topics, receiver: receiver, wallClockOffset: offset),
            roomPublisher: roomPublisher, logging: logging)
    }

    /// Publishes one sighting the scan took: as it is, or (mqtt-room) its beacon as ranged
    /// by `run` once it has a distance.
    func add(_ sighting: Sighting, run: ScanRun, now: Double) {
        if let roomPublisher {
            if let beacon = run.ranged(sighting) { roomPublisher.add(beacon, now: now) }
        } else {
            publisher.add(sighting, now: now)
        }
    }

    /// Sends what is batched, waits up to `drainTimeout` for the broker to acknowledge
    /// everything, says what was delivered or what could not be, and disconnects (status
    /// `offline`). Returns whether every sighting was delivered.
    @discardableResult
    func finish(logger: Logger) async -> Bool {
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
    struct Delivery {
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

        var delivered: Bool { refusal == nil && drained && unacknowledged == 0 && dropped == 0 && refused.isEmpty }

        var summary: [(level: Logger.Level, message: String)] {
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

    static let drainTimeout = 10.0
}

/// `monitor --mqtt` and `verify --watch --mqtt`: a client publishing what a command reports,
/// with a retained `online`/`offline` status (the last will says `offline`).
struct ReportPublishing: Sendable {
    let client: MQTTClient
    let logging: Task<Void, Never>
    /// What is published, for messages: "region events", "audit changes".
    let what: String

    /// Connects in the background (a broker that is not up yet is retried while reports
    /// queue). `role` names the status topic (`PREFIX/ROLE/status`) and the client id.
    static func start(
        _ url: String, role: String, what: String, environment: [String: String], logger: Logger
    ) throws(CommandFailure) -> ReportPublishing {
        let broker: MQTTBrokerURL
        do {
            broker = try MQTTBrokerURL(parsing: url)
        } catch {
            throw CommandFailure(.usageOrInput, "--mqtt \(error)")
        }
        let (client, logging) = try BrokerConnection.start(
            url, name: "\(role)-\(ReceiverName.hostName())", status: MQTTTopics(broker).status(role: role),
            environment: environment, logger: logger)
        return ReportPublishing(client: client, logging: logging, what: what)
    }

    var topics: MQTTTopics { MQTTTopics(client.broker) }

    /// Waits up to `SightingPublishing.drainTimeout` for the broker to acknowledge
    /// everything, says what it did not take, and disconnects (status `offline`). Whether
    /// everything was delivered.
    func finish(logger: Logger) async -> Bool {
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

extension BrokerConnection {
    /// A publishing client, started (connecting in the background), with its connection
    /// logged; with `status`, that topic says `online` while it is connected and `offline`
    /// after it (retained; the last will says `offline`).
    static func start(
        _ url: String, name: String, status: String?, environment: [String: String], logger: Logger
    ) throws(CommandFailure) -> (client: MQTTClient, logging: Task<Void, Never>) {
        let client = try client(
            url, name: name,
            will: status.map { MQTTClient.Will(topic: $0, payload: MQTTTopics.offline) },
            online: status.map { MQTTClient.Will(topic: $0, payload: MQTTTopics.online) },
            environment: environment, logger: logger)
        let logging = logConnection(client, logger: logger)
        do {
            try client.start()
        } catch {
            logging.cancel()
            throw CommandFailure(.usageOrInput, error.description)
        }
        return (client, logging)
    }

    /// Waits until the broker acknowledged everything `client` published, at most `seconds`;
    /// whether it did.
    static func drain(_ client: MQTTClient, within seconds: Double) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await client.drain()
                return !Task.isCancelled && client.pendingMessages == 0
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

}
