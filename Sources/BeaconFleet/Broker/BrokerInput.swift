import BeaconCore
import BeaconMQTT
import Logging
import Synchronization

/// What receivers publish to one or several brokers (`--input mqtt://HOST[/BASE]` on the
/// command line), read live by the same code that reads recordings.
public struct BrokerInput: Sendable {
    public let feed: BrokerSightingFeed
    let logging: [Task<Void, Never>]
    /// Whether every broker delivers: lost when one connection is lost, restored once every
    /// one is connected again (`verify --watch` judges nothing by silence meanwhile).
    public let health: AsyncStream<InputHealthChange>
    let logger: Logger
    /// A reader waits on the broker: it is retried every second, not with a backoff that
    /// grows to half a minute (the watch is blind until it is back).
    static let reconnectDelaySeconds: UInt32 = 1

    /// Connects to every broker of `brokers` (each with the gateway that publishes there),
    /// one client each, configured from `environment`; `role` names the clients. `nil`
    /// when there are none.
    public static func open(
        _ brokers: [(url: String, gateway: GatewayKind)], role: String, environment: [String: String], logger: Logger
    ) throws(BrokerSetupError) -> BrokerInput? {
        guard !brokers.isEmpty else { return nil }
        var subscriptions: [BrokerSubscription] = []
        for (index, broker) in brokers.enumerated() {
            // Each its own client id: two clients with one id take the session from each other.
            let name = brokers.count == 1 ? "\(role)-\(ReceiverName.hostName())" : "\(role)-\(ReceiverName.hostName())-\(index + 1)"
            let client = try BrokerConnection.client(
                BrokerConnection.broker(broker.url, defaultPrefix: broker.gateway.decoder.defaultBase), name: name,
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
            throw .subscriptions(error)
        }
    }

    /// What the commands read.
    public var sightings: SightingRecording { .broker(feed.sightings) }
    /// The inputs as given, for messages.
    public var name: String { feed.subscriptions.map(\.name).joined(separator: ", ") }

    /// Stops reading and says what was skipped; a broker that refused the connection, TLS or
    /// the subscription for good (which ended the stream early) throws `BrokerRefusal`.
    public func finish() async throws(BrokerRefusal) {
        await feed.stop()
        for task in logging { task.cancel() }
        let skipped = feed.skippedMessages
        if skipped.malformed > 0 {
            logger.warning("\(name): \(NumberText.count(skipped.malformed, "unreadable message")) skipped")
        }
        if skipped.unreadableLines > 0 {
            logger.warning("\(name): \(NumberText.count(skipped.unreadableLines, "unreadable line")) skipped; the other lines of their messages were read")
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
            throw BrokerRefusal(refusals: refusals)
        }
    }
}

/// Brokers that refused a reader for good (the command line's exit status 3).
public struct BrokerRefusal: Error, Sendable, CustomStringConvertible {
    /// Each broker's refusal, as it said it.
    public var refusals: [String]

    public var description: String {
        "\(refusals.joined(separator: "; ")); no sightings were read from \(refusals.count == 1 ? "it" : "them")"
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

