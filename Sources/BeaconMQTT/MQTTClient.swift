import CMosquitto
import Dispatch
import Synchronization

/// One message received on a subscription.
public struct MQTTMessage: Hashable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var retained: Bool

    public init(topic: String, payload: [UInt8], retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}

/// What happened to the connection, for the log.
public enum MQTTConnectionEvent: Hashable, Sendable {
    case connected
    /// The broker acknowledged a subscription (SUBACK): messages published from now on
    /// reach this client.
    case subscribed
    /// Lost; the client reconnects by itself, waiting longer each time (up to 30 s).
    case disconnected(reason: String)
    /// Refused for a reason retrying will not change (credentials, authorisation): the
    /// client has stopped.
    case refused(MQTTError)
}

/// An MQTT 3.1.1 client on libmosquitto, the Mosquitto project's C library: its own network
/// thread (`mosquitto_loop_start`), reconnection with backoff, QoS 1 delivery, a last will.
///
/// Publishing never blocks: a message goes to libmosquitto, which keeps it until the broker
/// acknowledges it, connected or not, and sends it again after reconnecting. At most
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

        public init(
            clientID: String, cleanSession: Bool = false, keepAliveSeconds: Int32 = 30, credentials: MQTTCredentials? = nil,
            tls: MQTTTLS? = nil, will: Will? = nil, online: Will? = nil, maximumPendingMessages: Int = 10_000,
            maximumBufferedMessages: Int = 1024
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
        }
    }

    private struct Outgoing: Sendable {
        var topic: String
        var payload: [UInt8]
        var retain: Bool
    }

    private struct State {
        var connected = false
        var stopped = false
        var subscriptions: [String] = []
        /// Message ids handed to libmosquitto and not yet acknowledged.
        var inFlight: Set<Int32> = []
        /// Handed over, id not yet recorded (libmosquitto is called without our lock held).
        var handingOver = 0
        /// Acknowledged before `send` recorded their id.
        var earlyAcknowledgements: Set<Int32> = []
        /// The `online` status messages awaiting their acknowledgement: not the caller's
        /// messages, so their acknowledgements must not be taken for one of those (ids wrap
        /// at 65 535, and a stale id kept as "early" would one day match a real message).
        var statusMessageIDs: Set<Int32> = []
        /// Refused by libmosquitto before it queued them (out of memory); tried again at the
        /// next connection.
        var offline: [Outgoing] = []
        var dropped = 0
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        var refusal: MQTTError?

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
    private let state = Mutex(State())
    /// Serialises publishing against the flush of the offline queue at a new connection.
    private let publishing = Mutex(())
    private let messageContinuation: AsyncStream<MQTTMessage>.Continuation
    private let eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation
    /// Free places in `messages`; the network thread waits on it when there is none.
    private let bufferSpace: DispatchSemaphore
    /// Sends what was queued offline after a connection, off the network thread.
    private let flushQueue = DispatchQueue(label: "beaconctl.mqtt.flush")

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
        (messages, messageContinuation) = AsyncStream.makeStream(of: MQTTMessage.self)
        (connectionEvents, eventContinuation) = AsyncStream.makeStream(of: MQTTConnectionEvent.self, bufferingPolicy: .bufferingNewest(32))
        bufferSpace = DispatchSemaphore(value: configuration.maximumBufferedMessages)
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
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        // libmosquitto's own limit on unacknowledged QoS 1 messages; ours is above it.
        _ = mosquitto_max_inflight_messages_set(handle, 100)
        let maximumDelay = max(1, configuration.maximumReconnectDelaySeconds)
        _ = mosquitto_reconnect_delay_set(handle, 1, maximumDelay, maximumDelay > 1)
        if let credentials = configuration.credentials {
            try check(mosquitto_username_pw_set(handle, credentials.username, credentials.password), "setting the user name")
        }
        if broker.usesTLS {
            let tls = configuration.tls ?? MQTTTLS()
            try check(mosquitto_tls_set(handle, tls.caFile, tls.caDirectory, tls.certificateFile, tls.keyFile, nil), "setting up TLS")
        }
        if let will = configuration.will {
            try check(
                will.payload.withUnsafeBytes { mosquitto_will_set(handle, will.topic, Int32(will.payload.count), $0.baseAddress, 1, true) },
                "setting the last will")
        }
        mosquitto_connect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().connected(code: code)
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().disconnected(code: code)
        }
        mosquitto_publish_callback_set(handle) { _, context, messageID in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().acknowledged(messageID)
        }
        mosquitto_subscribe_callback_set(handle) { _, context, _, _, _ in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().eventContinuation.yield(.subscribed)
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().received(message.pointee)
        }
    }

    private func check(_ code: Int32, _ doing: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw .library("\(broker): \(doing) failed: \(String(cString: mosquitto_strerror(code)))")
        }
    }

    /// Starts the network thread and the first connection attempt; returns at once. A
    /// broker that is not there yet is retried with backoff.
    public func start() throws(MQTTError) {
        try check(mosquitto_loop_start(handle), "starting the network thread")
        let code = mosquitto_connect_async(handle, broker.host, Int32(broker.port), configuration.keepAliveSeconds)
        if code != MOSQ_ERR_SUCCESS.rawValue {
            // Connection refused or unreachable: the network thread retries. A name that
            // does not resolve is worth saying now.
            eventContinuation.yield(.disconnected(reason: "cannot connect yet: \(String(cString: mosquitto_strerror(code)))"))
        }
    }

    /// Subscribes at QoS 1 now (when connected) and again at every connection.
    public func subscribe(_ topic: String) {
        let connected = state.withLock { state -> Bool in
            if !state.subscriptions.contains(topic) { state.subscriptions.append(topic) }
            return state.connected
        }
        if connected { _ = mosquitto_subscribe(handle, nil, topic, 1) }
    }

    /// Publishes at QoS 1. Returns `false` when `maximumPendingMessages` are already waiting
    /// for the broker: the message is dropped and counted.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], retain: Bool = false) -> Bool {
        publishing.withLock { _ in
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped, state.pending < configuration.maximumPendingMessages else {
                    state.dropped += 1
                    return false
                }
                return true
            }
            guard admitted else { return false }
            send(Outgoing(topic: topic, payload: payload, retain: retain))
            return true
        }
    }

    /// Hands one message to libmosquitto, or queues it when libmosquitto did not take it.
    /// Called with `publishing` held, never with `state` held: libmosquitto takes its own
    /// locks, and its network thread calls back into ours.
    private func send(_ message: Outgoing) {
        state.withLock { $0.handingOver += 1 }
        var messageID: Int32 = 0
        let code = message.payload.withUnsafeBytes {
            mosquitto_publish(handle, &messageID, message.topic, Int32($0.count), $0.baseAddress, 1, message.retain)
        }
        // Without a connection libmosquitto answers MOSQ_ERR_NO_CONN but has queued the
        // message, and sends it after reconnecting: queueing it here too sent it twice.
        let taken = code == MOSQ_ERR_SUCCESS.rawValue || code == MOSQ_ERR_NO_CONN.rawValue
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.handingOver -= 1
            if !taken {
                state.offline.append(message)
            } else if state.earlyAcknowledgements.remove(messageID) == nil {
                state.inFlight.insert(messageID)
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
    /// Set when the broker refused the connection for good.
    public var refusal: MQTTError? { state.withLock { $0.refusal } }

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
        _ = mosquitto_disconnect(handle)
        // Wake a network thread waiting for buffer space; what it holds is dropped.
        for _ in 0..<configuration.maximumBufferedMessages { bufferSpace.signal() }
        // Joining the network thread blocks: not on a thread of Swift's pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [self] in
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

    private func connected(code: Int32) {
        guard code == 0 else {
            // CONNACK codes (MQTT 3.1.1 §3.2.2.3): 3 "server unavailable" is worth retrying;
            // a bad protocol, client id, credentials or authorisation is not.
            let reason = String(cString: mosquitto_connack_string(code))
            if code == 3 {
                eventContinuation.yield(.disconnected(reason: reason))
                return
            }
            let refusal = MQTTError.refused(broker: broker.description, reason: Self.advice(forRefusal: code, reason))
            state.withLock { $0.refusal = refusal }
            eventContinuation.yield(.refused(refusal))
            _ = mosquitto_disconnect(handle)
            resumeDrainWaiters()
            return
        }
        let subscriptions = state.withLock { state -> [String] in
            state.connected = true
            return state.subscriptions
        }
        for topic in subscriptions { _ = mosquitto_subscribe(handle, nil, topic, 1) }
        if let online = configuration.online {
            var statusID: Int32 = 0
            let code = online.payload.withUnsafeBytes {
                mosquitto_publish(handle, &statusID, online.topic, Int32($0.count), $0.baseAddress, 1, true)
            }
            // Recorded before its acknowledgement can arrive: this callback runs on the
            // network thread, which reads the broker's answer only after it returns.
            if code == MOSQ_ERR_SUCCESS.rawValue { state.withLock { _ = $0.statusMessageIDs.insert(statusID) } }
        }
        // Not from this callback: a publisher may hold `publishing` inside libmosquitto.
        flushQueue.async { [self] in
            publishing.withLock { _ in
                let queued = state.withLock { state in
                    defer { state.offline = [] }
                    return state.offline
                }
                for message in queued { send(message) }
            }
        }
        eventContinuation.yield(.connected)
    }

    private static func advice(forRefusal code: Int32, _ reason: String) -> String {
        switch code {
        case 4, 5:
            return "\(reason); check the user name and password (\(MQTTCredentials.usernameVariable), \(MQTTCredentials.passwordVariable) or --mqtt-credentials) and the broker's ACL"
        case 2:
            return "\(reason); another client may be using this client id"
        default:
            return reason
        }
    }

    private func disconnected(code: Int32) {
        let stopped = state.withLock { state -> Bool in
            state.connected = false
            return state.stopped || state.refusal != nil
        }
        guard !stopped else { return }
        eventContinuation.yield(.disconnected(reason: code == 0 ? "closed" : String(cString: mosquitto_strerror(code))))
    }

    private func acknowledged(_ messageID: Int32) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.statusMessageIDs.remove(messageID) != nil { return [] }
            if state.inFlight.remove(messageID) == nil, state.handingOver > 0 {
                // `send` has not recorded it yet.
                state.earlyAcknowledgements.insert(messageID)
            }
            return state.takeDrainWaitersIfIdle()
        }
        for waiter in waiters { waiter.resume() }
    }

    private func received(_ message: mosquitto_message) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        var payload: [UInt8] = []
        if let bytes = message.payload, message.payloadlen > 0 {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
        }
        bufferSpace.wait()
        guard !state.withLock({ $0.stopped }) else { return }
        messageContinuation.yield(MQTTMessage(topic: topic, payload: payload, retained: message.retain))
    }
}
