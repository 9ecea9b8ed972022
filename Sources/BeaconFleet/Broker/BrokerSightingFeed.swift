import BeaconCore
import BeaconMQTT
import Logging
import Synchronization

/// What one `--input mqtt://…` reads: a client on a broker and the kind of receivers that
/// publish there, under their base topic.
public struct BrokerSubscription: Sendable {
    public let client: MQTTClient
    public let gateway: GatewayKind
    /// The gateway's base topic (beaconctl's prefix, ESPresense's `espresense`, …).
    public let base: String
    /// The input as the user gave it, for messages.
    public let name: String

    public init(client: MQTTClient, gateway: GatewayKind, base: String, name: String) {
        self.client = client
        self.gateway = gateway
        self.base = base
        self.name = name
    }
}

/// The sightings the receivers on one or more brokers publish, as one asynchronous
/// sequence: `verify`, `verify --watch`, `scan` and `monitor` read `--input mqtt://…`
/// through it like any other live source. Each message is decoded once, by its gateway's
/// decoder, where it arrives.
///
/// A message that is not readable (some other client on the broker, a broken publisher) is
/// skipped and counted, with a warning for the first few, instead of ending an audit that
/// listens to many. Backpressure all the way: the batches wait in a bounded channel, a full
/// channel holds the client's buffer, a full buffer holds its network thread, and the
/// broker holds what it has not delivered.
public final class BrokerSightingFeed: Sendable {
    public let sightings: BrokerSightings
    /// What receivers say of themselves (their status topic, their last will), in arrival
    /// order; ends when the feed stops.
    public let receiverStatuses: AsyncStream<ReceiverStatusChange>
    /// Messages that never arrived, as each gap is seen (`MessageSequence`), in order.
    public let losses: AsyncStream<BrokerMessageLoss>
    public let subscriptions: [BrokerSubscription]

    /// Messages passed over, by why.
    public struct SkippedMessages: Hashable, Sendable {
        /// Unreadable messages on topics the gateway publishes sightings on.
        public var malformed = 0
        /// Unreadable lines of messages whose other lines were read and kept.
        public var unreadableLines = 0
        /// Reports of a beacon without an identity to audit (no major/minor).
        public var withoutIdentity = 0
        /// Battery fields without an address or identity to tie them to (counted, not guessed).
        public var telemetryWithoutBeacon = 0
        /// Messages a beaconctl publisher numbered and sent that never arrived.
        public var lost = 0
    }

    private let channel: BatchChannel<Sighting>
    private let pumps: [Task<Void, Never>]
    private let skipped = SkippedCounts()
    private let statusContinuation: AsyncStream<ReceiverStatusChange>.Continuation
    private let lossContinuation: AsyncStream<BrokerMessageLoss>.Continuation

    /// Subscribes and starts every client (they connect in the background). `arrival` gives
    /// a message's arrival time, Unix seconds: what a gateway's sightings are stamped with
    /// when its messages carry no time of their own.
    public init(
        subscriptions: [BrokerSubscription], logger: Logger,
        arrival: @escaping @Sendable () -> Double = { WallClock.unixTime() }
    ) throws(MQTTError) {
        let channel = BatchChannel<Sighting>(producers: subscriptions.count, depth: 16)
        self.channel = channel
        self.subscriptions = subscriptions
        let (statuses, statusContinuation) = AsyncStream.makeStream(
            of: ReceiverStatusChange.self, bufferingPolicy: .bufferingNewest(4096))
        receiverStatuses = statuses
        self.statusContinuation = statusContinuation
        let (losses, lossContinuation) = AsyncStream.makeStream(of: BrokerMessageLoss.self, bufferingPolicy: .bufferingNewest(1024))
        self.losses = losses
        self.lossContinuation = lossContinuation
        let skipped = self.skipped
        let telemetryInbox = TelemetryInbox()
        pumps = subscriptions.map { subscription in
            for filter in subscription.gateway.decoder.topicFilters(base: subscription.base) {
                subscription.client.subscribe(filter)
            }
            return Task {
                let decoder = subscription.gateway.decoder
                var gaps = MessageSequence.Gaps()
                reading: for await message in subscription.client.messages {
                    subscription.client.messageConsumed()
                    let missing = gaps.missing(before: message)
                    if missing > 0 {
                        skipped.counts.withLock { $0.lost += missing }
                        lossContinuation.yield(BrokerMessageLoss(messages: missing, topic: message.topic, input: subscription.name))
                    }
                    var telemetry = GatewayTelemetry()
                    let decoded = decoder.readMarkingEvidence(
                        topic: message.topic, payload: message.payload, base: subscription.base, arrivalTime: arrival(),
                        telemetry: &telemetry)
                    telemetryInbox.put(contentsOf: telemetry.readings)
                    if telemetry.withoutBeacon > 0 {
                        let count = skipped.counts.withLock { counts in
                            counts.telemetryWithoutBeacon += telemetry.withoutBeacon
                            return counts.telemetryWithoutBeacon
                        }
                        // Once: a gateway that publishes no address does so for every device.
                        if count == telemetry.withoutBeacon, let reason = telemetry.firstWithoutBeaconReason {
                            logger.warning("\(subscription.name): \(reason) on \(message.topic); such readings are counted, not tied to a beacon by guess")
                        }
                    }
                    switch decoded {
                    case .sightings(let sightings):
                        // A message of telemetry lines alone has no sightings to pass on.
                        guard sightings.isEmpty else {
                            guard await channel.push(sightings) else { break reading }
                            continue
                        }
                    case .partlyReadable(let sightings, let unreadable, let reason):
                        let count = skipped.counts.withLock { counts in
                            counts.unreadableLines += unreadable
                            return counts.unreadableLines
                        }
                        // The first few, then about every thousandth, as for whole messages.
                        if count <= 3 || (count - unreadable) / 1000 != count / 1000 {
                            logger.warning("\(subscription.name): skipped \(NumberText.count(unreadable, "unreadable line")) of a message on \(message.topic), kept its other \(NumberText.count(sightings.count, "sighting")) (\(count) so far): \(reason)")
                        }
                        guard await channel.push(sightings) else { break reading }
                    case .receiverStatus(let receiver, let online):
                        statusContinuation.yield(ReceiverStatusChange(receiver: receiver, online: online))
                    case .withoutIdentity(let reason):
                        let count = skipped.counts.withLock { counts in
                            counts.withoutIdentity += 1
                            return counts.withoutIdentity
                        }
                        // Once: a gateway set to publish without identities does so for every beacon.
                        if count == 1 {
                            logger.warning("\(subscription.name): a report on \(message.topic) carries no beacon identity to audit (\(reason)); such reports are counted, not guessed at")
                        }
                    case .ignored:
                        continue
                    case .malformed(let reason):
                        let count = skipped.counts.withLock { counts in
                            counts.malformed += 1
                            return counts.malformed
                        }
                        // The first few, then every thousandth: a broken publisher must not flood the log.
                        if count <= 3 || count % 1000 == 0 {
                            logger.warning("\(subscription.name): skipped an unreadable message on \(message.topic) (\(count) so far): \(reason)")
                        }
                    }
                }
                channel.finish()
            }
        }
        sightings = BrokerSightings(channel: channel, telemetry: telemetryInbox)
        do {
            for subscription in subscriptions { try subscription.client.start() }
        } catch {
            channel.stop()
            for pump in pumps { pump.cancel() }
            throw error
        }
    }

    /// Messages skipped so far.
    public var skippedMessages: SkippedMessages { skipped.counts.withLock { $0 } }

    /// Stops every subscription; the sightings end.
    public func stop() async {
        channel.stop()
        for subscription in subscriptions { await subscription.client.stop() }
        for pump in pumps { await pump.value }
        statusContinuation.finish()
        lossContinuation.finish()
    }
}

extension BrokerSightingFeed: LossCounting {
    /// Messages lost on the way (not sightings: a message carries up to 64).
    public var lostCount: Int { skippedMessages.lost }
}

/// Messages that a publisher numbered and that never arrived: the broker dropped them (its
/// queue for this reader overflowed) or a publisher's client did.
public struct BrokerMessageLoss: Hashable, Sendable {
    public var messages: Int
    /// The topic the gap was seen on (the receiver's).
    public var topic: String
    /// The input, as given.
    public var input: String

    /// `120 messages of fleet/sightings/store-7 never arrived (…)`.
    public var description: String {
        "\(NumberText.count(messages, "message")) of \(topic) never arrived (the broker drops what it cannot queue for a slow reader: "
            + "raise its queue for this client, Mosquitto's max_queued_messages, or spread the fleet over more watches)"
    }
}

/// The feed's count of skipped messages, shared with its pumps.
private final class SkippedCounts: Sendable {
    let counts = Mutex(BrokerSightingFeed.SkippedMessages())
}
