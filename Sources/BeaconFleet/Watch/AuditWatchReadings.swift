import BeaconCore
import Synchronization

/// The watch's counters as of its latest moment, readable from any thread: what a metrics
/// scrape reports (`verify --watch --metrics`).
///
/// The watch publishes a snapshot at each tick of its clock (twice a second live), at each
/// change of its input's health, every fraction of a second of a replay, and at its end;
/// never per sighting, so that reading the counters costs the audit nothing.
public final class AuditWatchReadings: Sendable {
    public struct Snapshot: Hashable, Sendable {
        public var statistics = AuditStatistics()
        /// Sightings lost before the audit saw them (`AuditStatusReport.lostSightings`).
        public var lostSightings = 0
        /// A broker's messages that never arrived (`AuditStatusReport.lostMessages`).
        public var lostMessages = 0
        /// Whether the input delivers (a broker: connected); a recording or pipe does
        /// until it ends.
        public var inputDelivering = false
        /// Losses of the input reported so far (`input-lost` events).
        public var inputLosses = 0
        /// Each beacon's battery level judged, for beacons with one (docs/health.md).
        public var batteries: [BatteryReading] = []
        /// Telemetry readings taken, and those paired with no beacon.
        public var telemetry = TelemetryCounts()

        public init() {}
    }

    /// One beacon's battery as a metric sees it.
    public struct BatteryReading: Hashable, Sendable {
        public var beaconID: String
        public var venueID: String
        public var level: BatteryLevel
        public var isLow: Bool
    }

    private let current: Mutex<Snapshot>

    /// `beacons`: the plan's manifest beacons, every one unknown until the watch starts.
    public init(beacons: Int = 0) {
        var snapshot = Snapshot()
        snapshot.statistics.unknownBeacons = beacons
        current = Mutex(snapshot)
    }

    public var snapshot: Snapshot { current.withLock { $0 } }

    func publish(_ snapshot: Snapshot) {
        current.withLock { $0 = snapshot }
    }
}
