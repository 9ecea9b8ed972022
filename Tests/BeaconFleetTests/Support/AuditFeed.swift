import BeaconCore
import BeaconFleet
import Testing

/// A `ContinuousAudit` fed as the watch's pass feeds it (`SightingPass`): each sighting placed
/// on one `SightingTimeline` (checked against its arrival when one is given), the pass's
/// notices (where Unix time stands, a receiver's clock) handed over before the sighting they
/// concern, a telemetry reading placed by its receiver's clock. The audit's tests drive it
/// input by input with this, without a loop or a clock. Its times are seconds on the pass's
/// clock, as the tests write them, read with the checked conversion (`PassTime`) that the
/// pass uses.
@dynamicMemberLookup
struct AuditFeed {
    private(set) var audit: ContinuousAudit
    private var timeline: SightingTimeline
    private var unixTimeTold = false

    init(plan: VerificationPlan, configuration: ContinuousAudit.Configuration = ContinuousAudit.Configuration()) {
        audit = ContinuousAudit(plan: plan, configuration: configuration)
        // As the watch's pass: receivers told apart as the audit's bound says, and a receiver's
        // Unix clock checked against its arrivals within the silence.
        timeline = SightingTimeline(maximumReceivers: configuration.maximumReceivers, arrivalTolerance: configuration.silence)
    }

    subscript<Value>(dynamicMember keyPath: KeyPath<ContinuousAudit, Value>) -> Value {
        audit[keyPath: keyPath]
    }

    /// Where the audit's clock stands, in seconds.
    var now: Double? { audit.now?.seconds }

    /// A sighting of a replay: placed by its own time, its receiver joining where the clock
    /// stands.
    mutating func observe(_ sighting: Sighting) -> [AuditEvent] {
        let time = timeline.place(sighting)?.time
        return take(sighting, placedAt: time)
    }

    /// A sighting of a live watch that arrived at `arrival` seconds on its clock.
    mutating func observe(_ sighting: Sighting, arrival: Double) -> [AuditEvent] {
        let time = timeline.place(sighting, arrival: Self.passTime(arrival))?.time
        return take(sighting, placedAt: time)
    }

    private mutating func take(_ sighting: Sighting, placedAt time: PassTime?) -> [AuditEvent] {
        tellNotices()
        return audit.observe(PlacedSighting(sighting: sighting, time: time, clock: timeline.now ?? time ?? .origin))
    }

    /// A test's time in seconds on the pass's clock (a time no pass can tell fails the test).
    static func passTime(_ seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) -> PassTime {
        guard let time = PassTime(checkedSeconds: seconds) else {
            Issue.record("\(seconds) s is no time on a pass's clock", sourceLocation: sourceLocation)
            return .origin
        }
        return time
    }

    private mutating func tellNotices() {
        if !unixTimeTold, let offset = timeline.unixTime(at: .origin) {
            unixTimeTold = true
            audit.unixTimeKnown(offset: offset)
        }
        for notice in timeline.takeClockNotices() { audit.receiverClock(notice) }
    }

    /// A telemetry reading: placed by its receiver's clock where the timeline knows it, else
    /// at its arrival (a live watch's tick, in seconds) or where the clock stands; never later
    /// than it.
    mutating func observe(_ reading: TelemetryReading, arrival: Double? = nil) -> [AuditBatteryEvent] {
        let arrival = arrival.map { Self.passTime($0) }
        let now = timeline.now ?? arrival ?? .origin
        let known = ReceiverTime(checkedSeconds: reading.time, clock: reading.clock)
            .flatMap { timeline.knownTime(of: $0, receiver: reading.receiver) }
        return audit.observe(reading, at: known.map { min($0, now) } ?? min(arrival ?? now, now))
    }

    /// A live watch's clock tied to Unix time at its start (`offset`: Unix seconds at its origin).
    mutating func tieToUnixTime(offset: Double) {
        timeline.tieToUnixTime(offset: Self.passTime(offset).sinceOrigin)
        tellNotices()
    }

    mutating func advance(to time: Double) -> [AuditEvent] {
        audit.advance(to: moveTimeline(to: time))
    }

    mutating func inputLost(at time: Double) -> [AuditEvent] {
        audit.inputLost(at: moveTimeline(to: time))
    }

    mutating func inputRestored(at time: Double) -> [AuditEvent] {
        audit.inputRestored(at: moveTimeline(to: time))
    }

    mutating func sightingsMayBeMissing(at time: Double) -> [AuditEvent] {
        audit.sightingsMayBeMissing(at: moveTimeline(to: time))
    }

    mutating func receiverStatus(_ change: ReceiverStatusChange, at time: Double) -> [AuditEvent] {
        audit.receiverStatus(change, at: moveTimeline(to: time))
    }

    /// The pass's clock moved to `time` seconds (a tick, a change of the input): the same
    /// time for the timeline and the audit.
    private mutating func moveTimeline(to time: Double) -> PassTime {
        let time = Self.passTime(time)
        timeline.advance(to: time)
        return time
    }

    mutating func stalled(from: Double, until: Double) { audit.stalled(from: Self.passTime(from), until: Self.passTime(until)) }
    mutating func takeNotices() -> [AuditNotice] { audit.takeNotices() }
    mutating func takeReceiverEvents() -> [AuditReceiverEvent] { audit.takeReceiverEvents() }

    mutating func restore(_ states: [String: AuditState], receivers: [String: [String]] = [:]) -> Int {
        audit.restore(states, receivers: receivers)
    }

    mutating func restoreBatteryHistories(_ histories: [String: [BatteryForecast.DailyMedian]]) -> Int {
        audit.restoreBatteryHistories(histories)
    }
}
