import BeaconCore
import BeaconMQTT
import Synchronization

/// Publishes sightings to `PREFIX/sightings/RECEIVER`, batched: a payload carries up to
/// `maximumBatch` JSON lines of one receiver, and a batch is sent at the latest
/// `flushInterval` after its first sighting (the caller ticks `flushIfDue`). A live scan's
/// times are moved to the wall clock (Unix seconds, `wallClockOffset`), so that the streams
/// of many receivers merge; every line says which clock its time is on.
public final class MQTTSightingPublisher: Sendable {
    public static let maximumBatch = 64
    public static let flushInterval = 0.1

    private struct Batch {
        var lines: [UInt8] = []
        var count = 0
        var firstAt: Double
    }

    private struct State {
        /// Per topic.
        var batches: [String: Batch] = [:]
        var published = 0
        var dropped = 0
    }

    public let client: MQTTClient
    private let topics: MQTTTopics
    /// Numbers every message per topic (`MessageSequence`), under the lock that sends it, so
    /// that the numbers go out in order.
    private let sequence = Mutex(MessageSequence.Numbering())
    /// Every sighting is published as heard by this receiver; `nil` keeps each one's own.
    private let receiver: String?
    /// Added to an elapsed time to make it Unix time (`WallClock.unixOffset(elapsed:)`);
    /// `nil`: sightings keep the clocks they carry (a recording published again).
    public let wallClockOffset: Double?
    private let state = Mutex(State())

    public init(client: MQTTClient, topics: MQTTTopics, receiver: String?, wallClockOffset: Double?) {
        self.client = client
        self.topics = topics
        self.receiver = receiver
        self.wallClockOffset = wallClockOffset
    }

    /// Adds one sighting; publishes its receiver's batch when full. `now`: any clock, the
    /// one `flushIfDue` is given.
    public func add(_ sighting: Sighting, now: Double) {
        var stamped = wallClockOffset.map { sighting.onUnixTime(offset: $0) } ?? sighting
        if let receiver { stamped.receiver = receiver }
        add(line: Array(SightingJSONLines.encode(stamped).utf8), topic: topics.sightings(receiver: stamped.receiver), now: now)
    }

    /// Adds one telemetry reading as a telemetry line (`TelemetryJSONLines`, docs/mqtt.md) to
    /// its receiver's batch, on the clock and under the name its sightings get; only for
    /// `scan --mqtt --telemetry`, as readers before telemetry lines refuse them.
    public func add(_ reading: TelemetryReading, now: Double) {
        var stamped = wallClockOffset.map { reading.onUnixTime(offset: $0) } ?? reading
        if let receiver { stamped.receiver = receiver }
        add(line: Array(TelemetryJSONLines.encode(stamped).utf8), topic: topics.sightings(receiver: stamped.receiver), now: now)
    }

    private func add(line: [UInt8], topic: String, now: Double) {
        let full: [UInt8]? = state.withLock { state in
            var batch = state.batches[topic] ?? Batch(firstAt: now)
            batch.lines += line
            batch.lines.append(0x0A)
            batch.count += 1
            guard batch.count >= Self.maximumBatch else {
                state.batches[topic] = batch
                return nil
            }
            state.batches[topic] = nil
            state.published += batch.count
            return batch.lines
        }
        if let full { send(full, to: topic) }
    }

    /// Publishes the batches that have waited `flushInterval`.
    public func flushIfDue(now: Double) {
        flush { now - $0.firstAt >= Self.flushInterval }
    }

    /// Publishes every batch.
    public func flushAll() {
        flush { _ in true }
    }

    /// Lines (sightings, and telemetry readings when published) handed to the broker client,
    /// and those dropped because it had too many messages waiting for the broker. Those the broker refused (MQTT 5) are in
    /// `client.refusedPublications.items`, counted within `published`.
    public var counts: (published: Int, dropped: Int) {
        state.withLock { ($0.published, $0.dropped) }
    }

    private func flush(_ isDue: (Batch) -> Bool) {
        let due: [(String, [UInt8])] = state.withLock { state in
            var due: [(String, [UInt8])] = []
            for (topic, batch) in state.batches where isDue(batch) {
                due.append((topic, batch.lines))
                state.published += batch.count
                state.batches[topic] = nil
            }
            return due
        }
        for (topic, payload) in due { send(payload, to: topic) }
    }

    private func send(_ payload: [UInt8], to topic: String) {
        // One sighting (or reading) a line: a message the broker refuses counts its lines as refused.
        let sightings = payload.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        // A message the client drops keeps its number: the reader sees the gap, as it should.
        let sent = sequence.withLock { numbering in
            client.publish(topic: topic, payload: payload, weight: sightings, userProperties: [numbering.next(topic: topic)])
        }
        guard !sent else { return }
        let lost = sightings
        state.withLock {
            $0.published -= lost
            $0.dropped += lost
        }
    }
}
