import CMosquitto
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One message received on a subscription.
public struct MQTTMessage: Hashable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var retained: Bool
    /// The message's MQTT 5 user properties (3.1.1 has none), in order.
    public var userProperties: [MQTTUserProperty]

    public init(topic: String, payload: [UInt8], retained: Bool, userProperties: [MQTTUserProperty] = []) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
        self.userProperties = userProperties
    }
}

/// An MQTT 5 user property: a name and a value the application defines (MQTT 5.0, 3.3.2.3.7).
public struct MQTTUserProperty: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Which MQTT the client speaks.
public enum MQTTProtocolVersion: String, Hashable, Sendable, CustomStringConvertible {
    /// MQTT 5: every acknowledgement carries a reason code, so a publish or subscription
    /// the broker refuses is known as such.
    case v5 = "5"
    /// MQTT 3.1.1: a refused publish is acknowledged like an accepted one.
    case v311 = "3.1.1"

    public var description: String { "MQTT \(rawValue)" }
}

/// What happened to the connection, for the log.
public enum MQTTConnectionEvent: Hashable, Sendable {
    case connected
    /// The broker acknowledged a subscription (SUBACK): messages published from now on
    /// reach this client.
    case subscribed
    /// Lost; the client reconnects by itself, waiting longer each time (up to 30 s).
    case disconnected(reason: String)
    /// Refused for a reason retrying will not change (credentials, authorisation, TLS, a
    /// subscription): the client has stopped, and `messages` has ended.
    case refused(MQTTError)
    /// The broker refused the `online` status (MQTT 5 PUBACK reason code): the client
    /// goes on, but nobody sees it online.
    case statusRefused(topic: String, reason: String)
    /// The first message over `Configuration.maximumMessageBytes` was dropped (a broker
    /// speaking only 3.1.1 cannot be told the limit); later ones are only counted
    /// (`oversizedMessages`).
    case oversizedMessage(topic: String, bytes: Int, limit: Int)
}

/// The messages a broker refused in its acknowledgement (MQTT 5 PUBACK reason code 0x80 or
/// above, §3.4.2.1): answered, so no longer pending, but not delivered.
public struct MQTTRefusedPublications: Hashable, Sendable {
    public var messages = 0
    /// What they carried, by the weight each was published with (sightings for `scan`).
    public var items = 0
    /// Each reason in words with its code ("not authorized (0x87)"), by messages.
    public var reasons: [String: Int] = [:]
    /// The topics refused, the first few.
    public var topics: [String] = []

    public init() {}

    public var isEmpty: Bool { messages == 0 }

    /// "not authorized (0x87) on chain/sightings/store-12".
    public var summary: String {
        let reasons = reasons.sorted { $0.value > $1.value }.map(\.key).joined(separator: ", ")
        return "\(reasons) on \(topics.joined(separator: ", "))\(topics.count >= Self.topicsKept ? ", …" : "")"
    }

    static let topicsKept = 5

    mutating func add(topic: String, weight: Int, reason: String) {
        messages += 1
        items += weight
        reasons[reason, default: 0] += 1
        if topics.count < Self.topicsKept, !topics.contains(topic) { topics.append(topic) }
    }
}

/// An MQTT client on libmosquitto, the Mosquitto project's C library: MQTT 5 (falling back
/// to 3.1.1 when the broker speaks nothing newer), its own network thread
/// (`mosquitto_loop_start`), reconnection with backoff, QoS 1 delivery, a last will.
///
/// Every acknowledgement is read: under MQTT 5 a publish the broker refuses (its PUBACK's
/// reason code, e.g. 0x87 not authorised) is counted in `refusedPublications`, never as
/// delivered, and a refused subscription (SUBACK) stops the client. A TLS handshake that
/// fails for good (no client certificate, an untrusted certificate, another host's name,
/// an expired certificate, no common TLS version) stops it too, with the reason — as
/// refused credentials do — instead of retrying what cannot work.
///
/// Publishing never blocks: a message waits in the client while there is no connection, then
/// goes to libmosquitto, which keeps it until the broker acknowledges it and sends it again
/// after reconnecting. At most
/// `maximumPendingMessages` are waiting for an
/// acknowledgement at a time; beyond that the newest is refused and counted in
/// `droppedMessages` — memory stays bounded when the broker is away for long.
///
/// Receiving applies backpressure instead of dropping: at most `maximumBufferedMessages`
/// wait in `messages`; when the consumer falls behind, the network thread waits, TCP flow
/// control slows the broker, and QoS 1 messages wait at the broker.
public final class MQTTClient: Sendable {
    public struct Will: Hashable, Sendable {
        public var topic: String
        public var payload: [UInt8]

        public init(topic: String, payload: [UInt8]) {
            self.topic = topic
            self.payload = payload
        }
    }

    public struct Configuration: Sendable {
        /// Stable across runs: with `cleanSession` false the broker keeps this client's
        /// subscriptions and queues its QoS 1 messages while it is away.
        public var clientID: String
        public var cleanSession: Bool
        public var keepAliveSeconds: Int32
        public var credentials: MQTTCredentials?
        public var tls: MQTTTLS?
        /// Published (retained, QoS 1) by the broker when the connection is lost without a
        /// goodbye; `online` below is its counterpart, published at every connection.
        public var will: Will?
        public var online: Will?
        public var maximumPendingMessages: Int
        public var maximumBufferedMessages: Int
        /// Reconnection waits 1 s, then longer each time up to this (libmosquitto's delay, in
        /// whole seconds; 1: every second, for a reader that is blind while it waits).
        public var maximumReconnectDelaySeconds: UInt32 = 30
        /// The largest message payload taken in: a larger one is dropped as it arrives, never
        /// copied, and counted (`oversizedMessages`). Under MQTT 5 the broker is told, as the
        /// Maximum Packet Size of CONNECT (§3.1.2.11.4), and sends none. Sightings come in
        /// batches of kilobytes; 1 MiB leaves room for any receiver's.
        public var maximumMessageBytes = 1 << 20
        /// `.v5` falls back to 3.1.1 when the broker answers that it does not speak 5;
        /// `.v311` holds the client to 3.1.1, for brokers that speak nothing newer.
        public var protocolVersion: MQTTProtocolVersion

        public init(
            clientID: String, cleanSession: Bool = false, keepAliveSeconds: Int32 = 30, credentials: MQTTCredentials? = nil,
            tls: MQTTTLS? = nil, will: Will? = nil, online: Will? = nil, maximumPendingMessages: Int = 10_000,
            maximumBufferedMessages: Int = 1024, protocolVersion: MQTTProtocolVersion = .v5
        ) {
            self.clientID = clientID
            self.cleanSession = cleanSession
            self.keepAliveSeconds = keepAliveSeconds
            self.credentials = credentials
            self.tls = tls
            self.will = will
            self.online = online
            self.maximumPendingMessages = max(1, maximumPendingMessages)
            self.maximumBufferedMessages = max(1, maximumBufferedMessages)
            self.protocolVersion = protocolVersion
        }
    }

    private struct Outgoing: Sendable {
        var topic: String
        var payload: [UInt8]
        var retain: Bool
        var weight: Int
        var userProperties: [MQTTUserProperty] = []
    }

    /// A message handed to libmosquitto, awaiting its acknowledgement.
    private struct Pending {
        var topic: String
        var weight: Int
    }

    private struct State {
        var connected = false
        var stopped = false
        /// The protocol of the current (or next) connection.
        var protocolInUse: MQTTProtocolVersion
        var subscriptions: [String] = []
        /// Messages dropped for their size (`Configuration.maximumMessageBytes`).
        var oversizedMessages = 0
        /// Subscriptions sent, by message id, until their SUBACK.
        var subscriptionIDs: [Int32: String] = [:]
        /// SUBACKs (their reason codes) that came before `subscribe` recorded their id.
        var earlySubscriptionAnswers: [Int32: [Int32]] = [:]
        /// Message ids handed to libmosquitto and not yet acknowledged.
        var inFlight: [Int32: Pending] = [:]
        /// Handed over, id not yet recorded (libmosquitto is called without our lock held).
        var handingOver = 0
        /// Acknowledged (with this reason code) before `send` recorded their id.
        var earlyAcknowledgements: [Int32: Int32] = [:]
        var refused = MQTTRefusedPublications()
        /// The `online` status messages awaiting their acknowledgement, with their topic:
        /// not the caller's messages, so their acknowledgements must not be taken for one of
        /// those (ids wrap at 65 535, and a stale id kept as "early" would one day match a
        /// real message).
        var statusMessageIDs: [Int32: String] = [:]
        /// Not in libmosquitto's hands: published while there is no connection, or refused by
        /// libmosquitto (out of memory); handed over at the next CONNACK. A message given to
        /// libmosquitto before the broker's CONNACK is sent at once and, beyond the broker's
        /// MQTT 5 receive maximum, sent again after it (lib/messages_mosq.c): a duplicate.
        var offline: [Outgoing] = []
        var dropped = 0
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        var refusal: MQTTError?
        /// A TLS failure is being looked into, and the network thread restarted after it.
        var recoveringFromTLS = false
        /// TLS failures since the last connection: the next restart waits longer.
        var tlsFailures = 0

        var pending: Int { inFlight.count + offline.count + handingOver }

        mutating func takeDrainWaitersIfIdle() -> [CheckedContinuation<Void, Never>] {
            guard pending == 0 else { return [] }
            defer { drainWaiters = [] }
            return drainWaiters
        }
    }

    public let broker: MQTTBrokerURL
    public let configuration: Configuration
    /// Received messages, oldest first; finishes when the client stops.
    public let messages: AsyncStream<MQTTMessage>
    /// Connection changes, for the log (the newest 32 are kept if nobody reads them).
    public let connectionEvents: AsyncStream<MQTTConnectionEvent>

    private nonisolated(unsafe) let handle: OpaquePointer
    private let state: Mutex<State>
    /// Serialises publishing against the flush of the offline queue at a new connection.
    private let publishing = Mutex(())
    private let messageContinuation: AsyncStream<MQTTMessage>.Continuation
    private let eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation
    /// Free places in `messages`; the network thread waits on it when there is none.
    private let bufferSpace: DispatchSemaphore
    /// Sends what was queued offline after a connection, off the network thread.
    private let flushQueue = DispatchQueue(label: "beaconctl.mqtt.flush")
    /// Connects and starts or stops the network thread, one at a time: the first
    /// connection (whose TCP connect blocks, as libmosquitto's reconnections do on the
    /// network thread) is made here rather than on the caller's thread.
    private let networkQueue = DispatchQueue(label: "beaconctl.mqtt.network")

    private static let libraryReady: Bool = {
        mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue
    }()

    public init(broker: MQTTBrokerURL, configuration: Configuration) throws(MQTTError) {
        guard Self.libraryReady else { throw .library("libmosquitto could not be initialised") }
        self.broker = broker
        self.configuration = configuration
        guard let handle = mosquitto_new(configuration.clientID, configuration.cleanSession, nil) else {
            throw .library("libmosquitto could not create a client (out of memory, or an empty client id with a persistent session)")
        }
        self.handle = handle
        state = Mutex(State(protocolInUse: configuration.protocolVersion))
        (messages, messageContinuation) = AsyncStream.makeStream(of: MQTTMessage.self)
        (connectionEvents, eventContinuation) = AsyncStream.makeStream(of: MQTTConnectionEvent.self, bufferingPolicy: .bufferingNewest(32))
        // Made at 0 and raised to the buffer's size: libdispatch traps when a semaphore is
        // freed below the value it was made with, and a client stopped with its buffer full
        // (SIGTERM while the reader is behind) is freed with places still taken.
        bufferSpace = DispatchSemaphore(value: 0)
        for _ in 0..<max(0, configuration.maximumBufferedMessages) { bufferSpace.signal() }
        do {
            try configure()
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    private func configure() throws(MQTTError) {
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311)
        // libmosquitto's own limit on unacknowledged QoS 1 messages; ours is above it.
        _ = mosquitto_max_inflight_messages_set(handle, 100)
        let maximumDelay = max(1, configuration.maximumReconnectDelaySeconds)
        _ = mosquitto_reconnect_delay_set(handle, 1, maximumDelay, maximumDelay > 1)
        if let credentials = configuration.credentials {
            try check(mosquitto_username_pw_set(handle, credentials.username, credentials.password), "setting the user name")
        }
        if broker.usesTLS {
            try tls.checkFiles()
            try check(mosquitto_tls_set(handle, tls.caFile, tls.caDirectory, tls.certificateFile, tls.keyFile, nil), "setting up TLS")
        }
        if let will = configuration.will {
            try check(
                will.payload.withUnsafeBytes { mosquitto_will_set(handle, will.topic, Int32(will.payload.count), $0.baseAddress, 1, true) },
                "setting the last will")
        }
        // The v5 callbacks, which libmosquitto calls under 3.1.1 too: they carry reason codes.
        mosquitto_connect_v5_callback_set(handle) { _, context, code, _, _ in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().connected(code: code)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, context, code, _ in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().disconnected(code: code)
        }
        mosquitto_publish_v5_callback_set(handle) { _, context, messageID, reason, _ in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().acknowledged(messageID, reason: reason)
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, context, messageID, count, codes, _ in
            guard let context else { return }
            let answers = codes.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, count)))) } ?? []
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().subscriptionAnswered(messageID, codes: answers)
        }
        // A failed TLS handshake reaches no callback but this log (lib/net_mosq.c), and
        // libmosquitto's network thread ends after it.
        mosquitto_log_callback_set(handle) { _, context, level, message in
            guard let context, let message, level & MOSQ_LOG_ERR != 0 else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().loggedError(String(cString: message))
        }
        mosquitto_message_v5_callback_set(handle) { _, context, message, properties in
            guard let context, let message else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().received(message.pointee, properties: properties)
        }
    }

    private func check(_ code: Int32, _ doing: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw .library("\(broker): \(doing) failed: \(String(cString: mosquitto_strerror(code)))")
        }
    }

    /// The TLS settings in use (`mqtts://`).
    private var tls: MQTTTLS { configuration.tls ?? MQTTTLS() }

    /// Makes the first connection attempt and starts the network thread, in the
    /// background; returns at once. A broker that is not there yet is retried with backoff.
    public func start() throws(MQTTError) {
        networkQueue.async { [self] in connectAndRun() }
    }

    /// On `networkQueue`: one connection attempt, then the network thread, which retries.
    private func connectAndRun() {
        guard !state.withLock({ $0.stopped || $0.refusal != nil }) else { return }
        let protocolInUse = state.withLock { $0.protocolInUse }
        // MQTT 5 ends a session with its connection unless CONNECT says otherwise (§3.1.2.11.2):
        // a persistent session lasts as under 3.1.1, until the broker expires it.
        var properties: OpaquePointer?
        if protocolInUse == .v5 && !configuration.cleanSession {
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), UInt32.max)
        }
        if protocolInUse == .v5 {
            // The whole packet: the payload, plus room for the fixed header, the topic and
            // properties (a topic is at most 64 KiB).
            let packetLimit = UInt32(clamping: configuration.maximumMessageBytes + 70 * 1024)
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), packetLimit)
        }
        let code = mosquitto_connect_bind_v5(handle, broker.host, Int32(broker.port), configuration.keepAliveSeconds, nil, properties)
        let failure = errno
        mosquitto_property_free_all(&properties)
        guard state.withLock({ $0.refusal == nil }) else { return }
        // A handshake that failed here (libmosquitto answers EPROTO when OpenSSL gave no
        // reason) would end the network thread at its first turn: looked into instead.
        if broker.usesTLS && (code == MOSQ_ERR_TLS.rawValue || (code == MOSQ_ERR_ERRNO.rawValue && failure == EPROTO)) {
            recoverFromTLSFailure(reason: nil, probe: true)
            return
        }
        if code != MOSQ_ERR_SUCCESS.rawValue {
            // Connection refused or unreachable: the network thread retries. A name that
            // does not resolve is worth saying now.
            eventContinuation.yield(.disconnected(reason: "cannot connect yet: \(String(cString: mosquitto_strerror(code)))"))
        }
        guard !state.withLock({ $0.stopped }) else { return }
        let started = mosquitto_loop_start(handle)
        if started != MOSQ_ERR_SUCCESS.rawValue {
            refuse(.library("\(broker): starting the network thread failed: \(String(cString: mosquitto_strerror(started)))"))
            return
        }
    }

    /// Stops libmosquitto's network thread (to start it again): from here until the next
    /// CONNACK, messages wait in `offline`. On `networkQueue`.
    private func stopNetwork() {
        publishing.withLock { _ in state.withLock { $0.connected = false } }
        _ = mosquitto_disconnect(handle)
        _ = mosquitto_loop_stop(handle, false)
    }

    /// Hands what waits in `offline` to libmosquitto, once connected.
    private func flushOffline() {
        publishing.withLock { _ in
            let queued = state.withLock { state -> [Outgoing] in
                guard state.connected else { return [] }
                defer { state.offline = [] }
                return state.offline
            }
            for message in queued { send(message) }
        }
    }

    /// The broker does not speak MQTT 5: the network thread is stopped and started again
    /// speaking 3.1.1 (libmosquitto sets the protocol per connection attempt only).
    private func fallBackToMQTT311() {
        state.withLock { $0.protocolInUse = .v311 }
        eventContinuation.yield(.disconnected(reason: "the broker does not speak MQTT 5; speaking MQTT 3.1.1 instead"))
        networkQueue.async { [self] in
            stopNetwork()
            _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
            connectAndRun()
        }
    }

    /// Subscribes at QoS 1 now (when connected) and again at every connection. A refusal
    /// (SUBACK reason code) stops the client with `.subscriptionRefused`.
    public func subscribe(_ topic: String) {
        let connected = state.withLock { state -> Bool in
            if !state.subscriptions.contains(topic) { state.subscriptions.append(topic) }
            return state.connected
        }
        if connected { sendSubscription(topic) }
    }

    private func sendSubscription(_ topic: String) {
        var messageID: Int32 = 0
        guard mosquitto_subscribe(handle, &messageID, topic, 1) == MOSQ_ERR_SUCCESS.rawValue else { return }
        let early = state.withLock { state -> [Int32]? in
            if let answers = state.earlySubscriptionAnswers.removeValue(forKey: messageID) { return answers }
            state.subscriptionIDs[messageID] = topic
            return nil
        }
        if let early { judgeSubscription(topic, answers: early) }
    }

    /// Publishes at QoS 1. Returns `false` when `maximumPendingMessages` are already waiting
    /// for the broker: the message is dropped and counted. `weight`: how many of the
    /// caller's items the message carries, added to `refusedPublications.items` when the
    /// broker refuses it.
    @discardableResult
    /// `userProperties` go with the message under MQTT 5, and are left out under 3.1.1.
    public func publish(
        topic: String, payload: [UInt8], retain: Bool = false, weight: Int = 1, userProperties: [MQTTUserProperty] = []
    ) -> Bool {
        publishing.withLock { _ in
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped, state.pending < configuration.maximumPendingMessages else {
                    state.dropped += 1
                    return false
                }
                return true
            }
            guard admitted else { return false }
            send(Outgoing(topic: topic, payload: payload, retain: retain, weight: weight, userProperties: userProperties))
            return true
        }
    }

    /// Hands one message to libmosquitto, or queues it when libmosquitto did not take it.
    /// Called with `publishing` held, never with `state` held: libmosquitto takes its own
    /// locks, and its network thread calls back into ours.
    private func send(_ message: Outgoing) {
        let handing = state.withLock { state -> Bool in
            // Only between the broker's CONNACK and the connection's end (see `offline`), and
            // behind those waiting, whatever happens: QoS 1 keeps a publisher's order.
            guard state.connected, state.offline.isEmpty else {
                state.offline.append(message)
                return false
            }
            state.handingOver += 1
            return true
        }
        guard handing else { return }
        var messageID: Int32 = 0
        var properties: OpaquePointer?
        if !message.userProperties.isEmpty, protocolVersion == .v5 {
            for property in message.userProperties {
                _ = mosquitto_property_add_string_pair(&properties, Int32(MQTT_PROP_USER_PROPERTY.rawValue), property.name, property.value)
            }
        }
        let code = message.payload.withUnsafeBytes {
            mosquitto_publish_v5(handle, &messageID, message.topic, Int32($0.count), $0.baseAddress, 1, message.retain, properties)
        }
        mosquitto_property_free_all(&properties)
        // Without a connection libmosquitto answers MOSQ_ERR_NO_CONN but has queued the
        // message, and sends it after reconnecting: queueing it here too sent it twice.
        let taken = code == MOSQ_ERR_SUCCESS.rawValue || code == MOSQ_ERR_NO_CONN.rawValue
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.handingOver -= 1
            if !taken {
                state.offline.append(message)
            } else if let reason = state.earlyAcknowledgements.removeValue(forKey: messageID) {
                if reason >= Self.firstRefusal {
                    state.refused.add(topic: message.topic, weight: message.weight, reason: Self.reasonWords(reason))
                }
            } else {
                state.inFlight[messageID] = Pending(topic: message.topic, weight: message.weight)
            }
            return state.takeDrainWaitersIfIdle()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Messages published and not yet acknowledged by the broker (or not yet sent).
    public var pendingMessages: Int { state.withLock { $0.pending } }
    /// Messages refused because `maximumPendingMessages` were waiting.
    public var droppedMessages: Int { state.withLock { $0.dropped } }
    public var isConnected: Bool { state.withLock { $0.connected } }
    /// Set when the broker refused the connection (or a subscription, or TLS) for good.
    public var refusal: MQTTError? { state.withLock { $0.refusal } }
    /// The messages the broker answered with a refusal (MQTT 5 only: 3.1.1 cannot say).
    public var refusedPublications: MQTTRefusedPublications { state.withLock { $0.refused } }
    /// The protocol of the current connection (or of the next attempt).
    public var protocolVersion: MQTTProtocolVersion { state.withLock { $0.protocolInUse } }
    /// Messages dropped as they arrived for being over `Configuration.maximumMessageBytes`.
    public var oversizedMessages: Int { state.withLock { $0.oversizedMessages } }

    /// Waits until every published message is acknowledged, the client stopped, or the
    /// calling task is cancelled (put a deadline on it with a task group).
    public func drain() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.pending == 0 || state.stopped || state.refusal != nil { return true }
                    state.drainWaiters.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            resumeDrainWaiters()
        }
    }

    private func resumeDrainWaiters() {
        let waiters = state.withLock { state in
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Says goodbye (the `will` is not published then: when there is one, its payload is
    /// published explicitly first, so the status is right either way), stops the network
    /// thread, and ends `messages`.
    public func stop() async {
        let alreadyStopped = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !alreadyStopped else { return }
        if let will = configuration.will, isConnected {
            _ = will.payload.withUnsafeBytes {
                mosquitto_publish(handle, nil, will.topic, Int32($0.count), $0.baseAddress, 1, true)
            }
        }
        // Wake a network thread waiting for buffer space; what it holds is dropped.
        for _ in 0..<configuration.maximumBufferedMessages { bufferSpace.signal() }
        // Joining the network thread blocks: not on a thread of Swift's pool. On
        // `networkQueue`, after a connection attempt still under way there (libmosquitto
        // is not to be disconnected while it connects).
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            networkQueue.async { [self] in
                _ = mosquitto_disconnect(handle)
                _ = mosquitto_loop_stop(handle, false)
                continuation.resume()
            }
        }
        messageContinuation.finish()
        eventContinuation.finish()
        resumeDrainWaiters()
    }

    /// The consumer took one message from `messages`: one more place for the network thread.
    public func messageConsumed() {
        bufferSpace.signal()
    }

    // MARK: Callbacks, on libmosquitto's network thread

    /// Reason codes from 0x80 up are refusals (MQTT 5 §2.4); 3.1.1's SUBACK failure is 0x80 too.
    private static let firstRefusal: Int32 = 0x80

    /// "not authorized (0x87)": libmosquitto's words for an MQTT 5 reason code, and the code.
    static func reasonWords(_ code: Int32) -> String {
        var words = String(cString: mosquitto_reason_string(code))
        if let first = words.first { words = first.lowercased() + words.dropFirst() }
        let hex = String(code, radix: 16, uppercase: true)
        return "\(words) (0x\(hex.count < 2 ? "0" + hex : hex))"
    }

    private func connected(code: Int32) {
        let protocolInUse = state.withLock { $0.protocolInUse }
        guard code == 0 else {
            // A 3.1.1 broker answers a version-5 CONNECT with "unacceptable protocol version"
            // (3.1.1 §3.2.2.3, code 1), which libmosquitto passes on as MQTT 5's 0x84.
            if protocolInUse == .v5 && (code == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue) || code == 1) {
                fallBackToMQTT311()
                return
            }
            // Worth retrying: 3.1.1 code 3 "server unavailable" (§3.2.2.3); MQTT 5's server
            // unavailable, server busy, connection rate exceeded (§3.2.2.2). Not a bad
            // protocol, client id, credentials or authorisation.
            let retryable: Set<Int32> = protocolInUse == .v311
                ? [3]
                : [MQTT_RC_SERVER_UNAVAILABLE, MQTT_RC_SERVER_BUSY, MQTT_RC_CONNECTION_RATE_EXCEEDED].map { Int32($0.rawValue) }.reduce(into: []) { $0.insert($1) }
            let reason = protocolInUse == .v311 ? String(cString: mosquitto_connack_string(code)) : Self.reasonWords(code)
            if retryable.contains(code) {
                eventContinuation.yield(.disconnected(reason: reason))
                return
            }
            refuse(.refused(broker: broker.description, reason: Self.advice(forRefusal: code, protocol: protocolInUse, reason)))
            return
        }
        let subscriptions = state.withLock { state -> [String] in
            state.connected = true
            state.tlsFailures = 0
            return state.subscriptions
        }
        for topic in subscriptions { sendSubscription(topic) }
        if let online = configuration.online {
            var statusID: Int32 = 0
            let code = online.payload.withUnsafeBytes {
                mosquitto_publish(handle, &statusID, online.topic, Int32($0.count), $0.baseAddress, 1, true)
            }
            // Recorded before its acknowledgement can arrive: this callback runs on the
            // network thread, which reads the broker's answer only after it returns.
            if code == MOSQ_ERR_SUCCESS.rawValue { state.withLock { $0.statusMessageIDs[statusID] = online.topic } }
        }
        // Not from this callback: a publisher may hold `publishing` inside libmosquitto.
        flushQueue.async { [self] in flushOffline() }
        eventContinuation.yield(.connected)
    }

    private static func advice(forRefusal code: Int32, protocol: MQTTProtocolVersion, _ reason: String) -> String {
        let credentials = "check the user name and password (\(MQTTCredentials.usernameVariable), \(MQTTCredentials.passwordVariable) or \(MQTTCredentials.fileVariable)) and the broker's ACL"
        let clientID = "another client may be using this client id"
        switch (`protocol`, code) {
        case (.v311, 4), (.v311, 5): return "\(reason); \(credentials)"
        case (.v311, 2): return "\(reason); \(clientID)"
        case (.v5, Int32(MQTT_RC_BAD_USERNAME_OR_PASSWORD.rawValue)), (.v5, Int32(MQTT_RC_NOT_AUTHORIZED.rawValue)),
            (.v5, Int32(MQTT_RC_BAD_AUTHENTICATION_METHOD.rawValue)):
            return "\(reason); \(credentials)"
        case (.v5, Int32(MQTT_RC_CLIENTID_NOT_VALID.rawValue)): return "\(reason); \(clientID)"
        default: return reason
        }
    }

    /// Stops the client for a reason retrying will not change: said once, `messages`
    /// ended (a reader learns that nothing more will come), waiters woken.
    private func refuse(_ refusal: MQTTError) {
        let first = state.withLock { state -> Bool in
            guard state.refusal == nil, !state.stopped else { return false }
            state.refusal = refusal
            return true
        }
        guard first else { return }
        eventContinuation.yield(.refused(refusal))
        messageContinuation.finish()
        resumeDrainWaiters()
        // Not from libmosquitto's callback (the log callback holds a lock that
        // disconnecting takes again), and not while `networkQueue` connects: no more
        // reconnection attempts.
        networkQueue.async { [self] in _ = mosquitto_disconnect(handle) }
    }

    private func disconnected(code: Int32) {
        let (stopped, wasConnected) = state.withLock { state -> (Bool, Bool) in
            defer { state.connected = false }
            return (state.stopped || state.refusal != nil, state.connected)
        }
        guard !stopped else { return }
        if broker.usesTLS && code != 0 && code < Self.firstRefusal {
            // Lost before the broker answered CONNECT: most likely refused in TLS, its
            // alert lost with the connection; looked into before anything is said.
            recoverFromTLSFailure(reason: String(cString: mosquitto_strerror(code)), probe: !wasConnected)
            return
        }
        let reason: String
        if code == 0 {
            reason = "closed"
        } else if code >= Self.firstRefusal {
            // The broker's DISCONNECT and its MQTT 5 reason code (§3.14.2.1).
            reason = "the broker disconnected: \(Self.reasonWords(code))"
        } else {
            reason = String(cString: mosquitto_strerror(code))
        }
        eventContinuation.yield(.disconnected(reason: reason))
    }

    /// An error libmosquitto logged: a TLS failure is classified; a permanent one stops the
    /// client with what to set.
    private func loggedError(_ line: String) {
        guard broker.usesTLS, state.withLock({ $0.refusal == nil && !$0.stopped }) else { return }
        var verdict: (code: Int, text: String)?
        // Called while libmosquitto still holds the handshake: OpenSSL's verdict on the
        // broker's certificate says which check failed.
        if line.contains("certificate verify failed"), let ssl = mosquitto_ssl_get(handle) {
            let code = SSL_get_verify_result(OpaquePointer(ssl))
            if code != X509_V_OK, let text = X509_verify_cert_error_string(code) { verdict = (Int(code), String(cString: text)) }
        }
        guard let failure = MQTTTLSFailure.classify(logLine: line, verdict: verdict, hasClientCertificate: tls.certificateFile != nil) else { return }
        let explanation = failure.explanation(broker: broker, tls: tls)
        if failure.isPermanent {
            refuse(.tlsRefused(broker: broker.description, reason: explanation))
        } else {
            recoverFromTLSFailure(reason: explanation, probe: false)
        }
    }

    /// After a TLS failure libmosquitto's network thread may have ended (it does after any
    /// OpenSSL error, lib/loop.c), so the client restarts it itself, waiting 1 s, 2 s, …
    /// up to 30 s. With `probe`, a handshake of its own first asks why
    /// (`MQTTTLSProbe`): a permanent reason stops the client instead.
    private func recoverFromTLSFailure(reason: String?, probe: Bool) {
        let first = state.withLock { state -> Bool in
            guard !state.recoveringFromTLS, !state.stopped, state.refusal == nil else { return false }
            state.recoveringFromTLS = true
            return true
        }
        guard first else { return }
        networkQueue.async { [self] in
            if probe, let failure = MQTTTLSProbe.diagnose(broker: broker, tls: tls) {
                let explanation = failure.explanation(broker: broker, tls: tls)
                if failure.isPermanent {
                    refuse(.tlsRefused(broker: broker.description, reason: explanation))
                    return
                }
                eventContinuation.yield(.disconnected(reason: explanation))
            } else {
                eventContinuation.yield(.disconnected(reason: reason ?? "the TLS connection failed"))
            }
            let failures = state.withLock { state -> Int in
                state.tlsFailures += 1
                return state.tlsFailures
            }
            let delay = min(30, 1 << min(failures - 1, 5))
            networkQueue.asyncAfter(deadline: .now() + .seconds(delay)) { [self] in
                guard !state.withLock({ $0.stopped || $0.refusal != nil }) else { return }
                stopNetwork()
                state.withLock { $0.recoveringFromTLS = false }
                connectAndRun()
            }
        }
    }

    private func acknowledged(_ messageID: Int32, reason: Int32) {
        let refusedWords = reason >= Self.firstRefusal ? Self.reasonWords(reason) : nil
        let (waiters, statusRefusal) = state.withLock { state -> ([CheckedContinuation<Void, Never>], (String, String)?) in
            if let topic = state.statusMessageIDs.removeValue(forKey: messageID) {
                return ([], refusedWords.map { (topic, $0) })
            }
            if let pending = state.inFlight.removeValue(forKey: messageID) {
                if let refusedWords { state.refused.add(topic: pending.topic, weight: pending.weight, reason: refusedWords) }
            } else if state.handingOver > 0 {
                // `send` has not recorded it yet.
                state.earlyAcknowledgements[messageID] = reason
            }
            return (state.takeDrainWaitersIfIdle(), nil)
        }
        if let (topic, words) = statusRefusal { eventContinuation.yield(.statusRefused(topic: topic, reason: words)) }
        for waiter in waiters { waiter.resume() }
    }

    private func subscriptionAnswered(_ messageID: Int32, codes: [Int32]) {
        let topic = state.withLock { state -> String? in
            if let topic = state.subscriptionIDs.removeValue(forKey: messageID) { return topic }
            state.earlySubscriptionAnswers[messageID] = codes
            return nil
        }
        if let topic { judgeSubscription(topic, answers: codes) }
    }

    /// A SUBACK's codes (MQTT 5 §3.9.3, 3.1.1 §3.9.3): the granted QoS, or a refusal.
    private func judgeSubscription(_ topic: String, answers: [Int32]) {
        guard let refused = answers.first(where: { $0 >= Self.firstRefusal }) else {
            eventContinuation.yield(.subscribed)
            return
        }
        let reason = state.withLock { $0.protocolInUse } == .v5
            ? Self.reasonWords(refused)
            : "failure (0x80; MQTT 3.1.1 gives no reason)"
        refuse(.subscriptionRefused(broker: broker.description, topic: topic, reason: reason))
    }

    private func received(_ message: mosquitto_message, properties: OpaquePointer?) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        guard Int(message.payloadlen) <= configuration.maximumMessageBytes else {
            // Held once, by libmosquitto, and let go: a 64 MB message must not become 64 MB
            // more for every copy the readers would make.
            let isFirst = state.withLock { state -> Bool in
                state.oversizedMessages += 1
                return state.oversizedMessages == 1
            }
            if isFirst {
                eventContinuation.yield(.oversizedMessage(topic: topic, bytes: Int(message.payloadlen), limit: configuration.maximumMessageBytes))
            }
            return
        }
        var payload: [UInt8] = []
        if let bytes = message.payload, message.payloadlen > 0 {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
        }
        // Wait for a place, but never for ever once stopped: `stop()` joins this thread, and
        // messages the broker already sent keep arriving until the disconnection is done, each
        // taking a place its wake-up signals gave (a deadlock seen with a full buffer).
        while bufferSpace.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if state.withLock({ $0.stopped }) { return }
        }
        guard !state.withLock({ $0.stopped }) else { return }
        messageContinuation.yield(MQTTMessage(
            topic: topic, payload: payload, retained: message.retain, userProperties: Self.userProperties(properties)))
    }

    /// The user properties in a received property list; at most 16, each name and value at
    /// most 256 bytes (ours are short: a longer one is some other client's, and is cut).
    private static func userProperties(_ list: OpaquePointer?) -> [MQTTUserProperty] {
        guard var current = list else { return [] }
        var found: [MQTTUserProperty] = []
        var skipFirst = false
        while found.count < 16 {
            var name: UnsafeMutablePointer<CChar>?
            var value: UnsafeMutablePointer<CChar>?
            guard let next = mosquitto_property_read_string_pair(
                current, Int32(MQTT_PROP_USER_PROPERTY.rawValue), &name, &value, skipFirst) else { break }
            if let name, let value {
                found.append(MQTTUserProperty(name: String(String(cString: name).prefix(256)), value: String(String(cString: value).prefix(256))))
            }
            free(name)
            free(value)
            current = next
            skipFirst = true
        }
        return found
    }
}
