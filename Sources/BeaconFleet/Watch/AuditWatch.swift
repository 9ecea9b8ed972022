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
    /// Inputs the live watch holds for the audit: far more than a second of the busiest
    /// air. Beyond, the oldest are dropped and counted.
    static let liveQueueLimit = 100_000

    /// Beacon states by id that the watch starts from (`ContinuousAudit.restore`).
    public let restoredStates: [String: AuditState]

    public init(plan: VerificationPlan, configuration: ContinuousAudit.Configuration, restoredStates: [String: AuditState] = [:]) {
        self.plan = plan
        self.configuration = configuration
        self.restoredStates = restoredStates
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
    public func run<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, timing: VerificationTiming, lostBeforehand: (any LossCounting)? = nil,
        health: AsyncStream<InputHealthChange>? = nil, input: String = "the input", sinks: [any AuditEventSink],
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> AuditStatusReport {
        let ownDrops = DropCounter()
        var audit = ContinuousAudit(plan: plan, configuration: configuration)
        _ = audit.restore(restoredStates)
        var progress = WatchProgress(
            audit: audit, sinks: sinks,
            lost: { (lostBeforehand?.lostCount ?? 0) + ownDrops.value }, input: input)
        let end: AuditWatchEnd
        switch timing {
        case .replay:
            // Decoded on a task of its own while the audit judges what came before: a
            // recording is read at the speed of the slower of the two, not of both together.
            let readAhead = ReadAhead(sightings)
            defer { readAhead.stop() }
            do {
                replaying: while let batch = try await readAhead.next() {
                    for sighting in batch {
                        if Task.isCancelled { break replaying }
                        progress.take(progress.audit.observe(sighting))
                    }
                }
            } catch {
                // A reader may end with an error of its own when it is cancelled: still a stop.
                if !Task.isCancelled { throw error }
            }
            end = Task.isCancelled ? .interrupted : .inputEnded
        case .live(let tick):
            end = try await listen(sightings, tick: tick, drops: ownDrops, health: health, clock: clock, progress: &progress)
        }
        return progress.finish(end)
    }

    private func listen<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, tick: Duration, drops: DropCounter, health: AsyncStream<InputHealthChange>?,
        clock: any Clock<Duration>, progress: inout WatchProgress
    ) async throws -> AuditWatchEnd {
        // One queue for every source, so that the audit is only ever touched by this task.
        let feed = LiveSightingFeed(
            sightings, tick: tick, queueLimit: Self.liveQueueLimit, drops: drops, health: health, clock: clock)
        defer { feed.stop() }

        // The audit's clock counts from the feed's start: Unix time is that start plus it.
        let unixOrigin = WallClock.unixTime() - feed.elapsed()
        progress.unixTime = { unixOrigin + $0 }
        progress.take(progress.audit.advance(to: 0))
        // Blind until the input says it delivers (a broker: connected).
        if health != nil { progress.startBlind() }
        // Ends early when this task is cancelled: the stream's iteration stops.
        for await input in feed.inputs {
            switch input {
            case .sighting(let sighting, let time):
                // The receiver's clock is tied to this one at its first sighting (ReceiverClocks).
                progress.take(progress.audit.advance(to: time) + progress.audit.observe(sighting))
            case .tick(let time):
                progress.take(progress.audit.advance(to: time))
            case .ended(let time):
                progress.take(progress.audit.advance(to: time))
                return .inputEnded
            case .health(let change, let time):
                progress.take(progress.audit.advance(to: time))
                progress.inputHealth(change, at: time)
            case .failed(let error):
                throw error
            }
        }
        progress.take(progress.audit.advance(to: feed.elapsed()))
        return .interrupted
    }
}

/// The audit with its sinks and the status report schedule.
private struct WatchProgress {
    var audit: ContinuousAudit
    let sinks: [any AuditEventSink]
    let lost: @Sendable () -> Int
    private var nextReport: Double?
    /// Unix time of a moment on the audit's clock. A replayed recording's clock is its own
    /// times, Unix time when they are (ReceiverClocks.wallClockThreshold); a live watch
    /// replaces this with its start plus the clock.
    var unixTime: @Sendable (Double) -> Double? = { $0 >= ReceiverClocks.wallClockThreshold ? $0 : nil }
    /// The input's name in its events.
    let input: String
    private var inputState = InputState.delivering

    /// Where the input stands, as the watch has reported it.
    private enum InputState {
        /// Not yet delivering, and no loss reported: the watch's first moments.
        case starting
        case delivering
        /// Lost since then, for this reason (reported).
        case lost(since: Double, reason: String)
    }

    init(audit: ContinuousAudit, sinks: [any AuditEventSink], lost: @escaping @Sendable () -> Int, input: String) {
        self.audit = audit
        self.sinks = sinks
        self.lost = lost
        self.input = input
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
            deliver(AuditInputEvent(time: time, kind: .lost, input: input, reason: reason))
        case (.lost, .lost), (.restored, .delivering):
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

    private func deliver(_ event: AuditInputEvent) {
        var event = event
        event.unixTime = unixTime(event.time)
        for sink in sinks { sink.deliver(event) }
    }

    /// Hands `events` to every sink, then a status report when one is due.
    mutating func take(_ events: [AuditEvent]) {
        for var event in events {
            event.lastSeenUnixTime = event.lastSeen.flatMap(unixTime)
            for sink in sinks { sink.deliver(event) }
        }
        guard let now = audit.now else { return }
        guard let due = nextReport else {
            nextReport = now + AuditWatch.statisticsPeriod
            return
        }
        guard now >= due else { return }
        let report = AuditStatusReport(time: now, statistics: audit.statistics, lostSightings: lost(), beacons: beaconSummaries())
        for sink in sinks { sink.deliver(report) }
        // One report however far the clock jumped; the next on the period's grid.
        let periods = ((now - due) / AuditWatch.statisticsPeriod).rounded(.down) + 1
        nextReport = due + periods * AuditWatch.statisticsPeriod
    }

    private func beaconSummaries() -> [AuditBeaconSummary] {
        audit.beaconSummaries.map { summary in
            var summary = summary
            summary.lastSeenUnixTime = summary.lastSeen.flatMap(unixTime)
            return summary
        }
    }

    /// The final report, also handed to the sinks.
    func finish(_ end: AuditWatchEnd) -> AuditStatusReport {
        let report = AuditStatusReport(
            time: audit.now ?? 0, statistics: audit.statistics, lostSightings: lost(), end: end,
            beaconsNotOK: audit.beaconStates.filter { $0.state != .ok }, beacons: beaconSummaries())
        for sink in sinks { sink.deliver(report) }
        return report
    }
}
