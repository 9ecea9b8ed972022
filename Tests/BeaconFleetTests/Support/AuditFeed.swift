import BeaconCore
import BeaconFleet

/// A `ContinuousAudit` fed as the watch's pass feeds it (`SightingPass`): each sighting placed
/// on one `SightingTimeline` (checked against its arrival when one is given), the pass's
/// notices (where Unix time stands, a receiver's clock) handed over before the sighting they
/// concern, a telemetry reading placed by its receiver's clock. The audit's tests drive it
/// input by input with this, without a loop or a clock. Its times are seconds, as the audit's;
/// the timeline's are `PassTime`s.
@dynamicMemberLookup
struct AuditFeed {
    private(set) var audit: ContinuousAudit
    private var timeline: SightingTimeline
    private var unixTimeTold = false

    init(plan: VerificationPlan, configuration: ContinuousAudit.Configuration = ContinuousAudit.Configuration()) {
        audit = ContinuousAudit(plan: plan, configuration: configuration)
        // As the watch's pass: receivers told apart as the audit's bound says, and a receiver's
        // Unix clock checked against its arrivals within the silence.
        timeline = SightingTimeline(
            maximumReceivers: configuration.maximumReceivers, arrivalTolerance: Duration(checkedSeconds: configuration.silence, within: PassTime.acceptedSeconds) ?? .seconds(Int64.max))
    }

    subscript<Value>(dynamicMember keyPath: KeyPath<ContinuousAudit, Value>) -> Value {
        audit[keyPath: keyPath]
    }

    /// A sighting of a replay: placed by its own time, its receiver joining where the clock
    /// stands.
    mutating func observe(_ sighting: Sighting) -> [AuditEvent] {
        let time = timeline.place(sighting)?.time
        return take(sighting, placedAt: time)
    }

    /// A sighting of a live watch that arrived at `arrival` on its clock.
    mutating func observe(_ sighting: Sighting, arrival: Double) -> [AuditEvent] {
        let time = timeline.place(sighting, arrival: Self.passTime(arrival))?.time
        return take(sighting, placedAt: time)
    }

    private mutating func take(_ sighting: Sighting, placedAt time: PassTime?) -> [AuditEvent] {
        tellNotices()
        return audit.observe(PlacedSighting(sighting: sighting, time: time, clock: timeline.now ?? time ?? .origin))
    }

    /// A test's time in seconds on the pass's clock.
    private static func passTime(_ seconds: Double) -> PassTime {
        PassTime(sinceOrigin: .seconds(seconds))
    }

    private mutating func tellNotices() {
        if !unixTimeTold, let offset = timeline.unixTime(at: .origin) {
            unixTimeTold = true
            audit.unixTimeKnown(offset: PassTime(sinceOrigin: offset).seconds)
        }
        for notice in timeline.takeClockNotices() { audit.receiverClock(notice) }
    }

    /// A telemetry reading: placed by its receiver's clock where the timeline knows it, else
    /// at its arrival (a live watch's tick) or where the clock stands; never later than it.
    mutating func observe(_ reading: TelemetryReading, arrival: Double? = nil) -> [AuditBatteryEvent] {
        let now = timeline.now?.seconds ?? arrival ?? 0
        let known = ReceiverTime(checkedSeconds: reading.time, clock: reading.clock)
            .flatMap { timeline.knownTime(of: $0, receiver: reading.receiver)?.seconds }
        return audit.observe(reading, at: known.map { min($0, now) } ?? min(arrival ?? now, now))
    }

    /// A live watch's clock tied to Unix time at its start.
    mutating func tieToUnixTime(offset: Double) {
        timeline.tieToUnixTime(offset: .seconds(offset))
        tellNotices()
    }

    mutating func advance(to time: Double) -> [AuditEvent] {
        timeline.advance(to: Self.passTime(time))
        return audit.advance(to: time)
    }

    mutating func inputLost(at time: Double) -> [AuditEvent] {
        timeline.advance(to: Self.passTime(time))
        return audit.inputLost(at: time)
    }

    mutating func inputRestored(at time: Double) -> [AuditEvent] {
        timeline.advance(to: Self.passTime(time))
        return audit.inputRestored(at: time)
    }

    mutating func sightingsMayBeMissing(at time: Double) -> [AuditEvent] {
        timeline.advance(to: Self.passTime(time))
        return audit.sightingsMayBeMissing(at: time)
    }

    mutating func receiverStatus(_ change: ReceiverStatusChange, at time: Double) -> [AuditEvent] {
        timeline.advance(to: Self.passTime(time))
        return audit.receiverStatus(change, at: time)
    }

    mutating func stalled(from: Double, until: Double) { audit.stalled(from: from, until: until) }
    mutating func takeNotices() -> [AuditNotice] { audit.takeNotices() }
    mutating func takeReceiverEvents() -> [AuditReceiverEvent] { audit.takeReceiverEvents() }

    mutating func restore(_ states: [String: AuditState], receivers: [String: [String]] = [:]) -> Int {
        audit.restore(states, receivers: receivers)
    }

    mutating func restoreBatteryHistories(_ histories: [String: [BatteryForecast.DailyMedian]]) -> Int {
        audit.restoreBatteryHistories(histories)
    }
}
