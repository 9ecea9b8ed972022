/// Where a watch's output goes: standard output, a program per event, later a message
/// broker. The watch hands every sink the same events in the same order and knows nothing
/// of what they do with them; a sink must not block (queue slow work elsewhere).
public protocol AuditEventSink: Sendable {
    /// A change of state.
    func deliver(_ event: AuditEvent)
    /// The periodic statistics, and the final summary when the watch ends.
    func deliver(_ report: AuditStatusReport)
    /// The input lost, or back.
    func deliver(_ event: AuditInputEvent)
    /// A receiver offline, or online (first known, or back).
    func deliver(_ event: AuditReceiverEvent)
    /// A beacon's battery low, or ok again (docs/health.md).
    func deliver(_ event: AuditBatteryEvent)
}

extension AuditEventSink {
    public func deliver(_ report: AuditStatusReport) {}
    public func deliver(_ event: AuditInputEvent) {}
    public func deliver(_ event: AuditReceiverEvent) {}
    public func deliver(_ event: AuditBatteryEvent) {}
}

/// The watch's counters at one moment: every `AuditWatch.statisticsPeriod`, and at the end.
public struct AuditStatusReport: Sendable {
    /// On the audit's clock.
    public var time: Double
    public var statistics: AuditStatistics
    /// Sightings lost between the controller and the audit (the host could not keep up).
    public var lostSightings: Int
    /// Messages of sightings that never arrived from a broker (gaps in their publishers'
    /// numbering, `MessageSequence`): each carried up to 64 sightings.
    public var lostMessages: Int
    /// Why the watch ended, for the final report; `nil` for a periodic one.
    public var end: AuditWatchEnd?
    /// The beacons not ok at that moment (`nil` state: not yet known), for the final report.
    public var beaconsNotOK: [(beacon: ExpectedBeacon, state: AuditState?)]
    /// Every manifest beacon's state and latest reception at that moment (sinks that keep a
    /// per-beacon view current use it; the statistics line does not list them).
    public var beacons: [AuditBeaconSummary]
    /// Every beacon's battery with a threshold or a reading, with its history and forecast.
    public var batteries: [BatteryStanding]
    /// Telemetry readings taken, and those paired with no beacon.
    public var telemetry: TelemetryCounts

    public init(
        time: Double, statistics: AuditStatistics, lostSightings: Int, lostMessages: Int = 0, end: AuditWatchEnd? = nil,
        beaconsNotOK: [(beacon: ExpectedBeacon, state: AuditState?)] = [], beacons: [AuditBeaconSummary] = [],
        batteries: [BatteryStanding] = [], telemetry: TelemetryCounts = TelemetryCounts()
    ) {
        self.batteries = batteries
        self.telemetry = telemetry
        self.time = time
        self.statistics = statistics
        self.lostSightings = lostSightings
        self.lostMessages = lostMessages
        self.end = end
        self.beaconsNotOK = beaconsNotOK
        self.beacons = beacons
    }
}

/// Why a watch ended.
public enum AuditWatchEnd: String, Hashable, Sendable {
    /// The recording or pipe ended.
    case inputEnded = "input-ended"
    /// SIGINT/SIGTERM, or the task was cancelled.
    case interrupted
}
