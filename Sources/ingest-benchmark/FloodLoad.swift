import BeaconCore
import BeaconFleet
import BeaconMQTT
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fleet of a flood run: WatchScenario's chain (20 beacons and one receiver, `store-N`,
/// a store; identity UUID/store+1/minor, measured power -59) as a manifest for
/// `beaconctl verify`, and its beacons' sightings as the store boxes publish them.
enum FloodFleet {
    /// The manifest of `stores` stores (docs/manifest.md), beacon ids `sS-bM`, venue ids `store-S`.
    static func manifest(stores: Int) -> String {
        var text = """
            version: 1
            fleet: flood
            uuid: \(WatchScenario.uuid)
            defaults:
              measured_power: -59
              interval_ms: 1000
            venues:

            """
        for store in 0..<stores {
            text += "  - id: store-\(store)\n    major: \(store + 1)\n    beacons:\n"
            for minor in 1...WatchScenario.beaconsPerStore {
                text += "      - {id: s\(store)-b\(minor), minor: \(minor)}\n"
            }
        }
        return text
    }
}

/// The store boxes: `publishers` MQTT clients (stores dealt round-robin), each with the
/// `MQTTSightingPublisher` that `scan --mqtt` publishes through, so that the messages are
/// what a box sends: JSON lines of one receiver in Unix time on `PREFIX/sightings/store-N`,
/// QoS 1, at most `MQTTSightingPublisher.maximumBatch` a message.
final class FloodBoxes {
    let clients: [MQTTClient]
    let publishers: [MQTTSightingPublisher]

    init(broker: MQTTBrokerURL, count: Int, wallClockOffset: Double) throws(MQTTError) {
        var clients: [MQTTClient] = []
        for index in 0..<count {
            // Room for several seconds of the load waiting for acknowledgements.
            let configuration = MQTTClient.Configuration(clientID: "flood-box-\(index)", cleanSession: true, maximumPendingMessages: 100_000)
            clients.append(try MQTTClient(broker: broker, configuration: configuration))
        }
        self.clients = clients
        let topics = MQTTTopics(broker)
        publishers = clients.map { MQTTSightingPublisher(client: $0, topics: topics, receiver: nil, wallClockOffset: wallClockOffset) }
    }

    func start() throws(MQTTError) {
        for client in clients { try client.start() }
    }

    var allConnected: Bool { clients.allSatisfy(\.isConnected) }

    /// Sightings handed to the clients, and those the clients dropped (too many waiting).
    var counts: (published: Int, dropped: Int) {
        publishers.reduce((0, 0)) { ($0.0 + $1.counts.published, $0.1 + $1.counts.dropped) }
    }

    /// Waits until every message is acknowledged or `limit` has passed.
    func drain(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if clients.allSatisfy({ $0.pendingMessages == 0 }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func stop() async {
        for client in clients { await client.stop() }
    }
}

/// The load: `beacons` beacons each heard `rate` times a second for `seconds` seconds, the
/// receptions spread evenly over each period, handed to the boxes as their time comes on a
/// monotonic clock; every box's batches flushed every `flushInterval` (a full batch goes at
/// once). Each box publishes from a task of its own (its stores' beacons, its share of the
/// load), so that encoding the sightings is not one core's work. A real-time load: each
/// task sleeps until its next few milliseconds are due.
struct FloodLoad {
    let beacons: Int
    let rate: Double
    let seconds: Double
    let flushInterval: Double

    var total: Int {
        // Bounded by the options' limits (beacons ≤ 1 M, rate ≤ 1000, seconds ≤ 3600).
        Int((Double(beacons) * rate * seconds).rounded(.down))
    }

    struct Outcome {
        /// Seconds from the start to the last sighting handed over.
        var elapsed: Double
        /// The furthest a box fell behind the load's schedule, seconds.
        var largestLag: Double
    }

    func publish(through boxes: FloodBoxes) async -> Outcome {
        let count = boxes.publishers.count
        let clock = ContinuousClock()
        let start = clock.now
        let lags = await withTaskGroup(of: Double.self) { group in
            for box in 0..<count {
                // Stores dealt round-robin: box `box` sends for stores box, box + count, …
                let own = (0..<beacons).filter { ($0 / WatchScenario.beaconsPerStore) % count == box }
                guard !own.isEmpty else { continue }
                let share = total * own.count / beacons
                let publisher = boxes.publishers[box]
                let (flushInterval, rate) = (flushInterval, rate)
                group.addTask {
                    await Self.publish(own, count: share, rate: rate, flushInterval: flushInterval, through: publisher, clock: clock, start: start)
                }
            }
            var largest = 0.0
            for await lag in group { largest = max(largest, lag) }
            return largest
        }
        return Outcome(elapsed: FloodTime.seconds(clock.now - start), largestLag: lags)
    }

    /// One box's share: `count` sightings of the beacons `own` (indices), in turn. Returns
    /// how far it fell behind at most.
    private static func publish(
        _ own: [Int], count: Int, rate: Double, flushInterval: Double, through publisher: MQTTSightingPublisher,
        clock: ContinuousClock, start: ContinuousClock.Instant
    ) async -> Double {
        let advertisements = own.map { index in
            IBeaconAdvertisement(
                identity: WatchScenario.identity(store: index / WatchScenario.beaconsPerStore, minor: UInt16(index % WatchScenario.beaconsPerStore + 1)),
                measuredPower: -59)
        }
        let addresses = own.map { WatchScenario.address($0) }
        let receivers = own.map { "store-\($0 / WatchScenario.beaconsPerStore)" }
        let perSecond = Double(own.count) * rate
        var sent = 0
        var nextFlush = flushInterval
        var largestLag = 0.0
        let step = Duration.milliseconds(5)
        // At most this many between two suspensions: the other boxes and the counting
        // subscriber share the pool's threads.
        let slice = 2_048
        var wake = start
        while sent < count {
            let now = FloodTime.seconds(clock.now - start)
            let due = min(count, Int((now * perSecond).rounded(.down)), sent + slice)
            if due > sent { largestLag = max(largestLag, now - Double(sent) / perSecond) }
            while sent < due {
                let position = sent % own.count
                let index = own[position]
                let sighting = Sighting(
                    advertisement: advertisements[position], address: addresses[position], addressIsRandom: false, rssi: -(60 + index % 30),
                    time: Double(sent) / perSecond, clock: .elapsed, receiver: receivers[position])
                publisher.add(sighting, now: now)
                sent += 1
            }
            // Flushed on the load's own schedule (the time of the last sighting handed
            // over), so that a box that fell behind still sends messages of the same size.
            let scheduled = Double(sent) / perSecond
            if scheduled >= nextFlush {
                publisher.flushAll()
                while nextFlush <= scheduled { nextFlush += flushInterval }
            }
            wake = wake + step
            if wake > clock.now {
                try? await clock.sleep(until: wake)
            } else {
                wake = clock.now
                await Task.yield()
            }
        }
        publisher.flushAll()
        return largestLag
    }
}

enum FloodTime {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The baseline: a bare subscriber in this process that only counts the sightings the
/// broker delivers to it (lines of the messages on `PREFIX/sightings/+`), with what the broker
/// says it dropped (`$SYS/broker/publish/messages/dropped`, every second).
final class FloodCountingSubscriber: Sendable {
    private final class Counts: Sendable {
        let sightings = Atomic<Int>(0)
        let messages = Atomic<Int>(0)
        /// -1 until the broker has said.
        let brokerDropped = Atomic<Int>(-1)
    }

    let client: MQTTClient
    private let counts = Counts()
    private let counting: Task<Void, Never>

    init(broker: MQTTBrokerURL) throws(MQTTError) {
        let client = try MQTTClient(broker: broker, configuration: .init(clientID: "flood-baseline", cleanSession: true))
        self.client = client
        let counts = counts
        let sightingsPrefix = Array("\(broker.topicPrefix)/sightings/".utf8)
        counting = Task {
            for await message in client.messages {
                client.messageConsumed()
                if message.topic.utf8.starts(with: sightingsPrefix) {
                    counts.sightings.add(message.payload.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }, ordering: .relaxed)
                    counts.messages.add(1, ordering: .relaxed)
                } else if let value = Int(String(decoding: message.payload, as: UTF8.self)) {
                    counts.brokerDropped.store(value, ordering: .relaxed)
                }
            }
        }
        client.subscribe("\(broker.topicPrefix)/sightings/+")
        client.subscribe("$SYS/broker/publish/messages/dropped")
    }

    deinit { counting.cancel() }

    func start() throws(MQTTError) { try client.start() }

    var counted: (sightings: Int, messages: Int) {
        (counts.sightings.load(ordering: .relaxed), counts.messages.load(ordering: .relaxed))
    }

    /// Messages the broker dropped (all clients), or `nil` before it said.
    var droppedByBroker: Int? {
        let value = counts.brokerDropped.load(ordering: .relaxed)
        return value < 0 ? nil : value
    }

    func stop() async {
        await client.stop()
        counting.cancel()
    }
}
