import BeaconCore
import HCI

/// The use case behind `verify --watch`: runs a `ContinuousAudit` over a stream of sightings
/// until the input ends or the task is cancelled, handing every change and a status report
/// every `statisticsPeriod` to the sinks.
public struct AuditWatch: Sendable {
    public let plan: VerificationPlan
    public let configuration: ContinuousAudit.Configuration

    /// A live watch's clock ticks every half second: a beacon that goes quiet is reported
    /// within silence + 0.5 s even when nothing is heard.
    public static let liveTiming = VerificationTiming.live(tick: .milliseconds(500))
    /// The time between status reports, on the audit's clock.
    public static let statisticsPeriod = Duration.seconds(60)
    /// The time at least between two `sightings-lost` events while losses go on.
    public static let lossEventSpacing = Duration.seconds(10)
    /// Inputs the live watch holds for the audit: far more than a second of the busiest
    /// air. Beyond, the oldest are dropped and counted.
    static let liveQueueLimit = 100_000
    /// Time of the watch's clock between `AuditWatchReadings` of a replay (a live watch's come
    /// at its ticks).
    static let readingsPeriod = Duration.milliseconds(250)

    /// Beacon states by id that the watch starts from (`ContinuousAudit.restore`), and the
    /// receivers of the `unmonitored` ones.
    public let restoredStates: [String: AuditState]
    public let restoredReceivers: [String: [String]]
    /// Battery histories by beacon id that the watch starts from (its state file's).
    public let restoredBatteries: [String: [BatteryForecast.DailyMedian]]
    /// Where the watch keeps its counters current a few times a second, for metrics; `nil`:
    /// nobody reads them, and they are not copied.
    public let readings: AuditWatchReadings?

    public init(
        plan: VerificationPlan, configuration: ContinuousAudit.Configuration, restoredStates: [String: AuditState] = [:],
        restoredReceivers: [String: [String]] = [:], restoredBatteries: [String: [BatteryForecast.DailyMedian]] = [:],
        readings: AuditWatchReadings? = nil
    ) {
        self.restoredBatteries = restoredBatteries
        self.plan = plan
        self.configuration = configuration
        self.restoredStates = restoredStates
        self.restoredReceivers = restoredReceivers
        self.readings = readings
    }

    /// Watches until the input ends (`.inputEnded`) or the calling task is cancelled
    /// (`.interrupted`), and returns the final report, which the sinks get too. An error from
    /// `sightings` ends the watch with that error. `lostBeforehand` counts what the source
    /// lost before the watch saw it (`LiveScan`).
    ///
    /// `health`, for a live input that can say whether it is delivering (a broker), makes
    /// the watch start blind: nothing is judged by silence until the input first says it is
    /// delivering, or while it is lost (`InputHealthChange`). A loss is reported once as an
    /// `AuditInputEvent` (`input` names the input in it), and its end once. A live watch runs
    /// on `clock` (a test clock in tests).
    ///
    /// `receiverStatus`, for a live input that carries what receivers say of themselves (a
    /// broker's status topics), is merged with the sightings in the order it arrives
    /// (`ContinuousAudit.receiverStatus`).
    public func run<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, timing: VerificationTiming, lostBeforehand: (any LossCounting)? = nil,
        lostMessages: (any LossCounting)? = nil,
        health: AsyncStream<InputHealthChange>? = nil, receiverStatus: AsyncStream<ReceiverStatusChange>? = nil,
        input: String = "the input", sinks: [any AuditEventSink], clock: any Clock<Duration> = ContinuousClock(),
        stallAfter: Duration? = nil, telemetry: TelemetryInbox? = nil
    ) async throws -> AuditStatusReport {
        var settings = SightingPassSettings()
        settings.maximumReceivers = configuration.maximumReceivers
        settings.queueLimit = Self.liveQueueLimit
        settings.health = health
        settings.receiverStatus = receiverStatus
        // Decoded on a task of its own while the audit judges what came before: a recording
        // is read at the speed of the slower of the two, not of both together.
        settings.readsAhead = true
        let ownDrops = settings.drops
        var audit = ContinuousAudit(plan: plan, configuration: configuration)
        _ = audit.restore(restoredStates, receivers: restoredReceivers)
        _ = audit.restoreBatteryHistories(restoredBatteries)
        let progress = WatchProgress(
            audit: audit, sinks: sinks,
            lost: { (lostBeforehand?.lostCount ?? 0) + ownDrops.value }, lostMessages: { lostMessages?.lostCount ?? 0 }, input: input,
            readings: readings)
        progress.publishReadings()
        let clocking: PassClocking
        var reduction: WatchReduction
        switch timing {
        case .replay:
            // The recording's own times, from its first sighting.
            clocking = .replay(origin: .firstSighting)
            reduction = WatchReduction(progress: progress, live: nil)
        case .live(let tick):
            // A live watch checks each receiver's Unix clock against its arrivals, within the
            // silence: a clock further off would age or freshen beacons by more.
            clocking = .liveCheckingArrivals(tick: tick, clock: clock, arrivalTolerance: configuration.silence)
            reduction = WatchReduction(
                progress: progress,
                live: WatchReduction.Live(
                    startsBlind: health != nil, stallAfter: stallAfter,
                    stallLimit: Self.stallLimit(silence: configuration.silence, tick: tick)))
        }
        let outcome = try await SightingPass(sightings, clocking: clocking, telemetry: telemetry, settings: settings).run(&reduction)
        return reduction.finish(outcome)
    }

    /// The gap between two inputs of a live watch that is taken as the watch not running:
    /// half the silence (a receiver publishing twice a silence then still has a sighting
    /// read within its silence), and never less than a few ticks.
    static func stallLimit(silence: Duration, tick: Duration) -> Duration {
        max(silence / 2, tick * 4)
    }
}

/// The audit with its sinks and the status report schedule.
struct WatchProgress {
    var audit: ContinuousAudit
    let sinks: [any AuditEventSink]
    let lost: @Sendable () -> Int
    let lostMessages: @Sendable () -> Int
    private var nextReport: PassTime?
    /// The input's name in its events.
    let input: String
    private var inputState = InputState.delivering
    /// When the last `sightings-lost` event went out.
    private var lastLossEvent: PassTime?
    /// Where the counters go, when someone reads them (metrics).
    let readings: AuditWatchReadings?
    private var inputLosses = 0

    /// Where the input stands, as the watch has reported it.
    private enum InputState {
        /// Not yet delivering, and no loss reported: the watch's first moments.
        case starting
        case delivering
        /// Lost since then, for this reason (reported).
        case lost(since: PassTime, reason: String)
    }

    init(
        audit: ContinuousAudit, sinks: [any AuditEventSink], lost: @escaping @Sendable () -> Int,
        lostMessages: @escaping @Sendable () -> Int, input: String, readings: AuditWatchReadings?
    ) {
        self.audit = audit
        self.sinks = sinks
        self.lost = lost
        self.lostMessages = lostMessages
        self.input = input
        self.readings = readings
    }

    /// Hands the counters to `readings` (a walk of every beacon: at ticks, not per sighting).
    func publishReadings(ended: Bool = false) {
        guard let readings else { return }
        var snapshot = AuditWatchReadings.Snapshot()
        snapshot.statistics = audit.statistics
        snapshot.lostSightings = lost()
        snapshot.lostMessages = lostMessages()
        if case .delivering = inputState { snapshot.inputDelivering = !ended }
        snapshot.inputLosses = inputLosses
        snapshot.batteries = audit.batteryStandings.compactMap { standing in
            standing.level.map {
                AuditWatchReadings.BatteryReading(
                    beaconID: standing.beacon.beaconID, venueID: standing.beacon.venueID, level: $0, isLow: standing.standing == .low)
            }
        }
        snapshot.telemetry = audit.telemetryCounts
        readings.publish(snapshot)
    }

    /// The input has not delivered yet: the audit judges nothing by silence until it does,
    /// and says nothing of it unless it fails.
    mutating func startBlind() {
        take(audit.inputLost(at: audit.now ?? .origin))
        inputState = .starting
    }

    /// Takes a change of the input's health: one event when it is lost (however many
    /// attempts fail while it is away), one when it is back.
    mutating func inputHealth(_ change: InputHealthChange, at time: PassTime) {
        switch (change, inputState) {
        case (.lost(let reason), .starting), (.lost(let reason), .delivering):
            take(audit.inputLost(at: time))
            inputState = .lost(since: time, reason: reason)
            inputLosses += 1
            deliver(AuditInputEvent(time: time.seconds, kind: .lost, input: input, reason: reason), at: time)
        case (.lost, .lost), (.restored, .delivering):
            break
        case (.incomplete(let reason), .delivering), (.incomplete(let reason), .starting):
            sightingsLost(at: time, reason: reason)
        case (.incomplete, .lost):
            // Blind already: nothing is judged by silence until the input is back.
            break
        case (.restored, .starting):
            take(audit.inputRestored(at: time))
            inputState = .delivering
        case (.restored, .lost(let since, let reason)):
            take(audit.inputRestored(at: time))
            inputState = .delivering
            deliver(
                AuditInputEvent(time: time.seconds, kind: .restored, input: input, reason: reason, lostFor: (time - since).instantSeconds),
                at: time)
        }
    }

    /// The watch did not run from `from` to `until` (its clock moved on while it read
    /// nothing, not even its own ticks): blind time, so every beacon and receiver gets a full
    /// silence from `until`, and the stall is said once, unless the watch was blind anyway
    /// (its input lost or not yet delivering).
    mutating func watchStalled(from: PassTime, until: PassTime) {
        audit.stalled(from: from, until: until)
        guard case .delivering = inputState else { return }
        let seconds = NumberText.plain(((until - from).instantSeconds * 10).rounded() / 10)
        let time = max(until, audit.now ?? until)
        deliver(
            AuditInputEvent(
                time: time.seconds, kind: .watchStalled, input: input,
                reason: "the watch itself did not run for \(seconds) s (stopped, suspended or starved of CPU): what arrived meanwhile is read now, and no beacon or receiver is judged on a silence that includes the stall"),
            at: time)
    }

    /// Sightings may be missing up to `time`: no beacon is judged by that silence, and the
    /// loss is said at once: a `sightings-lost` event (at most one every
    /// `lossEventSpacing` while losses go on: the status reports count them all), and, when
    /// losses start after a quiet `statisticsPeriod`, a status report without waiting for
    /// the next period.
    mutating func sightingsLost(at time: PassTime, reason: String) {
        take(audit.sightingsMayBeMissing(at: time))
        let previous = lastLossEvent
        if let previous, time - previous < AuditWatch.lossEventSpacing { return }
        lastLossEvent = time
        deliver(AuditInputEvent(time: time.seconds, kind: .sightingsLost, input: input, reason: reason), at: time)
        guard previous.map({ time - $0 >= AuditWatch.statisticsPeriod }) ?? true else { return }
        let report = AuditStatusReport(time: time.seconds, statistics: audit.statistics, lostSightings: lost(), lostMessages: lostMessages(), beacons: beaconSummaries())
        for sink in sinks { sink.deliver(report) }
    }

    /// Judges a telemetry reading placed at `time` and hands the battery crossings to every
    /// sink.
    mutating func takeTelemetry(_ reading: TelemetryReading, at time: PassTime) {
        for event in audit.observe(reading, at: time) {
            for sink in sinks { sink.deliver(event) }
        }
    }

    private func deliver(_ event: AuditReceiverEvent) {
        for sink in sinks { sink.deliver(event) }
    }

    /// Hands `event`, which happened at `time` on the audit's clock, to every sink, told in
    /// Unix time too once the audit can.
    private func deliver(_ event: AuditInputEvent, at time: PassTime) {
        var event = event
        event.unixTime = audit.unixSeconds(at: time)
        for sink in sinks { sink.deliver(event) }
    }

    /// Hands `events`, and the receivers' changes among them, to every sink in time order
    /// (a receiver first at one moment: its beacons' changes follow from it), then a status
    /// report when one is due.
    mutating func take(_ events: [AuditEvent]) {
        for notice in audit.takeNotices() {
            deliver(AuditInputEvent(time: notice.time.seconds, kind: notice.kind, input: input, reason: notice.reason), at: notice.time)
        }
        var receiverEvents = audit.takeReceiverEvents()[...]
        for event in events {
            while let receiverEvent = receiverEvents.first, receiverEvent.time <= event.time {
                deliver(receiverEvent)
                receiverEvents.removeFirst()
            }
            for sink in sinks { sink.deliver(event) }
        }
        for receiverEvent in receiverEvents { deliver(receiverEvent) }
        guard let now = audit.now else { return }
        guard let due = nextReport else {
            nextReport = now + AuditWatch.statisticsPeriod
            return
        }
        guard now >= due else { return }
        let report = AuditStatusReport(
            time: now.seconds, statistics: audit.statistics, lostSightings: lost(), lostMessages: lostMessages(), beacons: beaconSummaries(),
            batteries: audit.batteryStandings, telemetry: audit.telemetryCounts)
        for sink in sinks { sink.deliver(report) }
        // One report however far the clock jumped; the next on the period's grid (whole
        // periods, counted exactly).
        let period = AuditWatch.statisticsPeriod.attoseconds
        let periods = (now - due).attoseconds / period + 1
        nextReport = due + Duration(attoseconds: periods * period)
    }

    private func beaconSummaries() -> [AuditBeaconSummary] {
        audit.beaconSummaries
    }

    /// The final report, also handed to the sinks.
    func finish(_ end: AuditWatchEnd) -> AuditStatusReport {
        let report = AuditStatusReport(
            time: audit.now?.seconds ?? 0, statistics: audit.statistics, lostSightings: lost(), lostMessages: lostMessages(), end: end,
            beaconsNotOK: audit.beaconStates.filter { $0.state != .ok }, beacons: beaconSummaries(),
            batteries: audit.batteryStandings, telemetry: audit.telemetryCounts)
        for sink in sinks { sink.deliver(report) }
        publishReadings(ended: end == .inputEnded)
        return report
    }
}
