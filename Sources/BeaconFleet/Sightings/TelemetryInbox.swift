import BeaconCore
import Synchronization

/// Where a source leaves the telemetry it decodes beside its sightings, for the audit to
/// take when it judges (a tick of the watch, the end of a pass). Telemetry is rare (a frame
/// every few seconds per beacon, against every advertisement for sightings), so a lock per
/// reading costs nothing a sighting would notice. Bounded: beyond `capacity` readings not
/// yet taken the oldest are dropped and counted, never the process's memory.
public final class TelemetryInbox: Sendable {
    private struct State {
        var readings: [TelemetryReading] = []
        var dropped = 0
        var received = 0
    }

    private let state = Mutex(State())
    public let capacity: Int

    /// 65 536 readings not yet taken: a watch takes them every tick, a one-shot pass at its
    /// end, where a reading of each beacon's latest is what it needs (docs/operations.md,
    /// "Bounds").
    public static let standardCapacity = 65_536

    public init(capacity: Int = TelemetryInbox.standardCapacity) {
        self.capacity = max(1, capacity)
    }

    public func put(_ reading: TelemetryReading) {
        state.withLock { state in
            state.received += 1
            if state.readings.count >= capacity {
                // Drop the oldest half at once, so a flood costs one move per half, not per reading.
                let excess = state.readings.count - capacity / 2
                state.readings.removeFirst(excess)
                state.dropped += excess
            }
            state.readings.append(reading)
        }
    }

    public func put(contentsOf readings: some Sequence<TelemetryReading>) {
        for reading in readings { put(reading) }
    }

    /// Every reading put since the last take, in the order put.
    public func take() -> [TelemetryReading] {
        state.withLock { state in
            defer { state.readings.removeAll(keepingCapacity: true) }
            return state.readings
        }
    }

    /// Readings put in all, and dropped before they were taken.
    public var counts: (received: Int, dropped: Int) {
        state.withLock { ($0.received, $0.dropped) }
    }
}
