import BeaconCore
import HCI

/// The use case behind `verify --watch`: runs a `ContinuousAudit` over a stream of sightings
/// until the input ends or the task is cancelled, handing every change and a status report
/// every `statisticsPeriod` seconds to the sinks.
public struct AuditWatch: Sendable {
    public let plan: VerificationPlan
    public let configuration: ContinuousAudit.Configuration

    /// A live watch's clock ticks every half second: a beacon that goes quiet is reported
    /// within silence + 0.5 s even when nothing is heard.
    public static let liveTiming = VerificationTiming.live(tick: .milliseconds(500))
    /// Seconds between status reports, on the audit's clock.
    public static let statisticsPeriod = 60.0
    /// Seconds at least between two `sightings-lost` events while losses go on.
    public static let lossEventSpacing = 10.0
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
        stallAfter: Double? = nil, telemetry: TelemetryInbox? = nil
    ) async throws -> AuditStatusReport {
        let ownDrops = DropCounter()
        var audit = ContinuousAudit(plan: plan, configuration: configuration)
        _ = audit.restore(restoredStates, receivers: restoredReceivers)
        _ = audit.restoreBatteryHistories(restoredBatteries)
        var progress = WatchProgress(
            audit: audit, sinks: sinks, telemetry: telemetry,
            lost: { (lostBeforehand?.lostCount ?? 0) + ownDrops.value }, lostMessages: { lostMessages?.lostCount ?? 0 }, input: input,
            readings: readings)
        progress.publishReadings()
        let end: AuditWatchEnd
        switch timing {
        case .replay:
            // Decoded on a task of its own while the audit judges what came before: a
            // recording is read at the speed of the slower of the two, not of both together.
            let readAhead = ReadAhead(sightings)
            defer { readAhead.stop() }
            // Readings a few times a second of the clock given (wall time in the tool), looked
            // at once per batch.
            let sinceStart = Stopwatch(on: clock)
            var nextReadings = Self.readingsPeriod
            do {
                replaying: while let batch = try await readAhead.next() {
                    // The telemetry decoded so far (the reader runs ahead of the audit), each
                    // reading judged when the replay's clock reaches it, in order with the
                    // sightings around it.
                    progress.collectTelemetry()
                    for sighting in batch {
                        if Task.isCancelled { break replaying }
                        progress.take(progress.audit.observe(sighting))
                        if progress.hasPendingTelemetry { progress.takeTelemetry(dueBy: progress.audit.now) }
                    }
                    if readings != nil, sinceStart.elapsed >= nextReadings {
                        progress.publishReadings()
                        nextReadings = sinceStart.elapsed + Self.readingsPeriod
                    }
                }
            } catch {
                // A reader may end with an error of its own when it is cancelled: still a stop.
                if !Task.isCancelled { throw error }
            }
            progress.collectTelemetry()
            progress.takeTelemetry(dueBy: nil)
            end = Task.isCancelled ? .interrupted : .inputEnded
        case .live(let tick):
            end = try await listen(
                sightings, tick: tick, drops: ownDrops, health: health, receiverStatus: receiverStatus, clock: clock,
                stallAfter: stallAfter, progress: &progress)
        }
        return progress.finish(end)
    }

    private func listen<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, tick: Duration, drops: DropCounter, health: AsyncStream<InputHealthChange>?,
        receiverStatus: AsyncStream<ReceiverStatusChange>?, clock: any Clock<Duration>, stallAfter: Double?,
        progress: inout WatchProgress
    ) async throws -> AuditWatchEnd {
        // One queue for every source, so that the audit is only ever touched by this task.
        let feed = LiveSightingFeed(
            sightings, tick: tick, queueLimit: Self.liveQueueLimit, drops: drops, health: health, receiverStatus: receiverStatus,
            clock: clock)
        defer { feed.stop() }

        // The audit's clock counts from the feed's start: its times are told as Unix time by
        // the wall clock read once now.
        progress.audit.tieToUnixTime(offset: WallClock.unixOffset(elapsed: feed.elapsed()))
        progress.take(progress.audit.advance(to: 0))
        // Blind until the input says it delivers (a broker: connected).
        if health != nil { progress.startBlind() }
        // Sightings the watch's own queue dropped (it fell behind): seen at the next input.
        var dropsSeen = drops.value
        // A source that says nothing of its health (a pipe), given a stall limit: stalled
        // when nothing came for that long, delivering again at its next sighting.
        var lastArrival = 0.0
        var stalled = false
        // The watch's own running, told by its ticks: each is stamped when its ticker woke,
        // so a gap of `stallLimit` between two (they come every `tick`) is time the watch did
        // not run. A sighting arrives when it is read, but no later than the last tick plus
        // one: those read before the tick that tells a stall (they waited through it) cannot
        // move the clock across the stall before it is known.
        var lastTick = 0.0
        let tickSeconds = tick.secondsValue
        let stallLimit = Self.stallLimit(silence: configuration.silence, tick: tick)
        // Ends early when this task is cancelled: the stream's iteration stops.
        for await input in feed.inputs {
            let dropped = drops.value
            if dropped != dropsSeen {
                let time: Double
                switch input {
                case .tick(let at), .ended(let at), .health(_, let at), .receiverStatus(_, let at): time = at
                case .sighting, .failed: time = progress.audit.now ?? 0
                }
                progress.sightingsLost(
                    at: time, reason: "the watch fell behind its input and dropped \(NumberText.count(dropped - dropsSeen, "sighting")) from its queue")
                dropsSeen = dropped
            }
            switch input {
            case .sighting(let sighting):
                // The receiver's clock is tied to the feed's when its first sighting arrives
                // (SightingTimeline); its later sightings keep their own times, never later
                // than their arrival, and a receiver on Unix time whose clock is off the
                // watch's by more than the silence is placed on arrival.
                let events = progress.audit.observe(sighting, arrival: min(feed.elapsed(), lastTick + tickSeconds))
                let time = progress.audit.now ?? 0
                lastArrival = time
                if stalled {
                    stalled = false
                    progress.inputHealth(.restored, at: time)
                }
                progress.take(events)
            case .tick(let time):
                if time - lastTick >= stallLimit { progress.watchStalled(from: lastTick, until: time) }
                lastTick = max(lastTick, time)
                if let stallAfter, !stalled, time - lastArrival >= stallAfter {
                    stalled = true
                    // At the moment the limit passed (ticks come every half second).
                    progress.inputHealth(
                        .lost(reason: "no sighting arrived for \(NumberText.plain(stallAfter)) s: the pipe or what writes it stalled"),
                        at: max(lastArrival + stallAfter, progress.audit.now ?? 0))
                }
                progress.take(progress.audit.advance(to: time))
                progress.collectTelemetry()
                progress.takeTelemetry(dueBy: nil, arrival: time)
                progress.publishReadings()
            case .ended(let time):
                progress.collectTelemetry()
                progress.takeTelemetry(dueBy: nil, arrival: time)
                progress.take(progress.audit.advance(to: time))
                return .inputEnded
            case .health(let change, let time):
                progress.take(progress.audit.advance(to: time))
                progress.inputHealth(change, at: time)
                progress.publishReadings()
            case .receiverStatus(let change, let time):
                progress.take(progress.audit.receiverStatus(change, at: time))
            case .failed(let error):
                throw error
            }
        }
        progress.take(progress.audit.advance(to: feed.elapsed()))
        return .interrupted
    }

    /// The gap between two inputs of a live watch that is taken as the watch not running:
    /// half the silence (a receiver publishing twice a silence then still has a sighting
    /// read within its silence), and never less than a few ticks.
    static func stallLimit(silence: Double, tick: Duration) -> Double {
        max(silence / 2, 4 * tick.secondsValue)
    }
}

/// The audit with its sinks and the status report schedule.
private struct WatchProgress {
    var audit: ContinuousAudit
    let sinks: [any AuditEventSink]
    let lost: @Sendable () -> Int
    let lostMessages: @Sendable () -> Int
    private var nextReport: Double?
    /// The input's name in its events.
    let input: String
    private var inputState = InputState.delivering
    /// When the last `sightings-lost` event went out.
    private var lastLossEvent: Double?
    /// Where the counters go, when someone reads them (metrics).
    let readings: AuditWatchReadings?
    private var inputLosses = 0

    /// Where the input stands, as the watch has reported it.
    private enum InputState {
        /// Not yet delivering, and no loss reported: the watch's first moments.
        case starting
        case delivering
        /// Lost since then, for this reason (reported).
        case lost(since: Double, reason: String)
    }

    init(
        audit: ContinuousAudit, sinks: [any AuditEventSink], telemetry: TelemetryInbox?, lost: @escaping @Sendable () -> Int,
        lostMessages: @escaping @Sendable () -> Int, input: String, readings: AuditWatchReadings?
    ) {
        self.audit = audit
        self.sinks = sinks
        self.pendingTelemetry = PendingTelemetry(inbox: telemetry)
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
        take(audit.inputLost(at: audit.now ?? 0))
        inputState = .starting
    }

    /// Takes a change of the input's health: one event when it is lost (however many
    /// attempts fail while it is away), one when it is back.
    mutating func inputHealth(_ change: InputHealthChange, at time: Double) {
        switch (change, inputState) {
        case (.lost(let reason), .starting), (.lost(let reason), .delivering):
            take(audit.inputLost(at: time))
            inputState = .lost(since: time, reason: reason)
            inputLosses += 1
            deliver(AuditInputEvent(time: time, kind: .lost, input: input, reason: reason))
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
            deliver(AuditInputEvent(time: time, kind: .restored, input: input, reason: reason, lostFor: time - since))
        }
    }

    /// The watch did not run from `from` to `until` (its clock moved on while it read
    /// nothing, not even its own ticks): blind time, so every beacon and receiver gets a full
    /// silence from `until`, and the stall is said once, unless the watch was blind anyway
    /// (its input lost or not yet delivering).
    mutating func watchStalled(from: Double, until: Double) {
        audit.stalled(from: from, until: until)
        guard case .delivering = inputState else { return }
        let seconds = NumberText.plain(((until - from) * 10).rounded() / 10)
        deliver(AuditInputEvent(
            time: max(until, audit.now ?? until), kind: .watchStalled, input: input,
            reason: "the watch itself did not run for \(seconds) s (stopped, suspended or starved of CPU): what arrived meanwhile is read now, and no beacon or receiver is judged on a silence that includes the stall"))
    }

    /// Sightings may be missing up to `time`: no beacon is judged by that silence, and the
    /// loss is said at once: a `sightings-lost` event (at most one every
    /// `lossEventSpacing` while losses go on: the status reports count them all), and, when
    /// losses start after a quiet `statisticsPeriod`, a status report without waiting for
    /// the next period.
    mutating func sightingsLost(at time: Double, reason: String) {
        take(audit.sightingsMayBeMissing(at: time))
        let previous = lastLossEvent
        if let previous, time - previous < AuditWatch.lossEventSpacing { return }
        lastLossEvent = time
        deliver(AuditInputEvent(time: time, kind: .sightingsLost, input: input, reason: reason))
        guard previous.map({ time - $0 >= AuditWatch.statisticsPeriod }) ?? true else { return }
        let report = AuditStatusReport(time: time, statistics: audit.statistics, lostSightings: lost(), lostMessages: lostMessages(), beacons: beaconSummaries())
        for sink in sinks { sink.deliver(report) }
    }

    /// Readings taken from the source, not yet judged.
    private var pendingTelemetry: PendingTelemetry

    var hasPendingTelemetry: Bool { pendingTelemetry.hasReadings }

    /// Takes what the source decoded since the last call.
    mutating func collectTelemetry() { pendingTelemetry.collect() }

    /// Judges the pending readings placed at or before `dueBy` on the audit's clock (every one
    /// with `nil`: a live watch's tick, or the end) and hands the battery crossings to every
    /// sink. A reading from a receiver the audit has not placed (none of its sightings came
    /// yet) is due at once, where the clock stands.
    mutating func takeTelemetry(dueBy: Double?, arrival: Double? = nil) {
        while let (reading, _) = pendingTelemetry.next(dueBy: dueBy, placedAt: { [audit] in audit.timelineTime(of: $0) }) {
            for var event in audit.observe(reading, arrival: arrival) {
                event.unixTime = audit.unixTime(at: event.time)
                for sink in sinks { sink.deliver(event) }
            }
        }
    }

    private func deliver(_ event: AuditReceiverEvent) {
        var event = event
        event.unixTime = audit.unixTime(at: event.time)
        for sink in sinks { sink.deliver(event) }
    }

    private func deliver(_ event: AuditInputEvent) {
        var event = event
        event.unixTime = audit.unixTime(at: event.time)
        for sink in sinks { sink.deliver(event) }
    }

    /// Hands `events`, and the receivers' changes among them, to every sink in time order
    /// (a receiver first at one moment: its beacons' changes follow from it), then a status
    /// report when one is due.
    mutating func take(_ events: [AuditEvent]) {
        for notice in audit.takeNotices() {
            deliver(AuditInputEvent(time: notice.time, kind: notice.kind, input: input, reason: notice.reason))
        }
        var receiverEvents = audit.takeReceiverEvents()[...]
        for var event in events {
            while let receiverEvent = receiverEvents.first, receiverEvent.time <= event.time {
                deliver(receiverEvent)
                receiverEvents.removeFirst()
            }
            event.lastSeenUnixTime = event.lastSeen.flatMap(audit.unixTime(at:))
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
            time: now, statistics: audit.statistics, lostSightings: lost(), lostMessages: lostMessages(), beacons: beaconSummaries(),
            batteries: audit.batteryStandings, telemetry: audit.telemetryCounts)
        for sink in sinks { sink.deliver(report) }
        // One report however far the clock jumped; the next on the period's grid.
        let periods = ((now - due) / AuditWatch.statisticsPeriod).rounded(.down) + 1
        nextReport = due + periods * AuditWatch.statisticsPeriod
    }

    private func beaconSummaries() -> [AuditBeaconSummary] {
        audit.beaconSummaries.map { summary in
            var summary = summary
            summary.lastSeenUnixTime = summary.lastSeen.flatMap(audit.unixTime(at:))
            return summary
        }
    }

    /// The final report, also handed to the sinks.
    func finish(_ end: AuditWatchEnd) -> AuditStatusReport {
        let report = AuditStatusReport(
            time: audit.now ?? 0, statistics: audit.statistics, lostSightings: lost(), lostMessages: lostMessages(), end: end,
            beaconsNotOK: audit.beaconStates.filter { $0.state != .ok }, beacons: beaconSummaries(),
            batteries: audit.batteryStandings, telemetry: audit.telemetryCounts)
        for sink in sinks { sink.deliver(report) }
        publishReadings(ended: end == .inputEnded)
        return report
    }
}
