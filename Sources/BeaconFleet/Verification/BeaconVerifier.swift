import BeaconCore
import HCI

/// A source of sightings that may lose some on the way (a scan whose consumer fell behind).
public protocol LossCounting: Sendable {
    /// Reports lost so far.
    var lostCount: Int { get }
}

/// How a verification pass measures time.
public enum VerificationTiming: Hashable, Sendable {
    /// Offline: the sightings' own times are the clock, read as fast as they come (a
    /// capture, a recorded stream). The pass starts at the first sighting; a receiver whose
    /// times count from its own start (not Unix time) joins at its first sighting. The end
    /// of the input ends the pass.
    case replay
    /// Live: a monotonic clock from the start of the pass. Each receiver's sightings are
    /// placed on it by their own times, the receiver tied to the clock when its first
    /// sighting arrives; the clock ticks every `tick` so that settle windows close and the
    /// timeout comes even when the air is silent.
    case live(tick: Duration)

    /// Ticks of 50 ms: a decision falls due at most that long before it is taken.
    public static let live = VerificationTiming.live(tick: .milliseconds(50))
}

/// The verification use case: runs a `VerificationEngine` over a stream of sightings
/// until every expected beacon is decided, the timeout comes, the input ends or the task
/// is cancelled, and returns the verdicts.
public struct BeaconVerifier: Sendable {
    public let plan: VerificationPlan
    public let policy: VerificationPolicy

    public init(plan: VerificationPlan, policy: VerificationPolicy) {
        self.plan = plan
        self.policy = policy
    }

    /// Runs the pass. `onUpdate` gets what each step decided, with the progress after it
    /// (and, when live, the progress at every tick, with no events).
    ///
    /// Cancelling the calling task ends the pass with `.interrupted`: beacons still open are
    /// judged on what was heard. An error from `sightings` ends the pass with that error.
    /// When the pass ends, a live `sightings` is cancelled (the scanner then stops) and not
    /// waited for.
    ///
    /// `lostBeforehand` tells how many reports the source lost before they reached the pass
    /// (`ScanSession.lostCount`); with what this pass's own queue had to drop, the result's
    /// `lostReports` says the verdicts may rest on incomplete evidence. A live pass runs on
    /// `clock` (a test clock in tests). `telemetry` is where the source leaves the telemetry
    /// it decodes (`SightingSource.telemetry`): taken after each batch of a replay and at
    /// each tick of a live pass, and judged beside the verdicts (docs/health.md).
    public func run<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, timing: VerificationTiming, lostBeforehand: (any LossCounting)? = nil,
        telemetry: TelemetryInbox? = nil, clock: any Clock<Duration> = ContinuousClock(),
        onUpdate: @escaping @Sendable (VerificationProgress, [VerificationEvent]) -> Void = { _, _ in }
    ) async throws -> VerificationResult {
        var engine = VerificationEngine(plan: plan, policy: policy)
        let ownDrops = DropCounter()
        var result: VerificationResult
        switch timing {
        case .replay:
            result = try await replay(sightings, into: &engine, telemetry: telemetry, onUpdate: onUpdate)
        case .live(let tick):
            result = try await listen(
                sightings, into: &engine, telemetry: telemetry, tick: tick, drops: ownDrops, clock: clock, onUpdate: onUpdate)
        }
        result.lostReports = (lostBeforehand?.lostCount ?? 0) + ownDrops.value
        return result
    }

    /// Inputs the live pass holds for the engine: far more than a second of the busiest air.
    /// Beyond, the oldest are dropped and counted.
    static let liveQueueLimit = 100_000

    /// Hands the engine the telemetry the source decoded since the last call, each reading
    /// placed by its receiver's clock where the timeline knows it, else where the clock stands.
    private static func takeTelemetry(
        from inbox: TelemetryInbox?, timeline: SightingTimeline, into engine: inout VerificationEngine
    ) -> [VerificationEvent] {
        guard let inbox else { return [] }
        var events: [VerificationEvent] = []
        for reading in inbox.take() where !engine.isFinished {
            let time = timeline.knownTime(of: reading.time, clock: reading.clock, receiver: reading.receiver)
                .map { min($0, timeline.now ?? $0) } ?? timeline.now ?? 0
            events += engine.observe(reading, at: time)
        }
        return events
    }

    private func replay<Sightings: AsyncSequence<Sighting, any Error>>(
        _ sightings: Sightings, into engine: inout VerificationEngine, telemetry: TelemetryInbox?,
        onUpdate: @Sendable (VerificationProgress, [VerificationEvent]) -> Void
    ) async throws -> VerificationResult {
        // The pass's clock counts from 0, where the first sighting is placed; each receiver
        // joins it at its first sighting (SightingTimeline).
        var timeline = SightingTimeline()
        timeline.advance(to: 0)
        /// The pass's result once this sighting ended it.
        func take(_ sighting: Sighting) -> VerificationResult? {
            // A receiver beyond those whose clocks are told apart is heard at the latest time.
            let time = timeline.place(sighting)?.time ?? timeline.now ?? 0
            let events = engine.observe(sighting, at: time)
            if !events.isEmpty { onUpdate(engine.progress, events) }
            return engine.isFinished ? engine.result : nil
        }
        if let batches = sightings as? any SightingBatchSequence {
            // A recording: a batch of sightings per await rather than one.
            var iterator = batches.makeBatchIterator()
            var batch: [Sighting] = []
            reading: while try await iterator.nextBatch(into: &batch) {
                for sighting in batch {
                    if Task.isCancelled { break reading }
                    if let result = take(sighting) { return result }
                }
                // The telemetry decoded with this batch, placed now its receivers are.
                let events = Self.takeTelemetry(from: telemetry, timeline: timeline, into: &engine)
                if !events.isEmpty { onUpdate(engine.progress, events) }
                if let result = engine.result { return result }
            }
        } else {
            for try await sighting in sightings {
                if Task.isCancelled { break }
                if let result = take(sighting) { return result }
            }
        }
        let last = Self.takeTelemetry(from: telemetry, timeline: timeline, into: &engine)
        if !last.isEmpty { onUpdate(engine.progress, last) }
        if let result = engine.result { return result }
        let (result, events) = engine.conclude(at: timeline.now ?? 0, reason: Task.isCancelled ? .interrupted : .inputEnded)
        onUpdate(engine.progress, events)
        return result
    }

    private func listen<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, into engine: inout VerificationEngine, telemetry: TelemetryInbox?, tick: Duration,
        drops: DropCounter,
        clock: any Clock<Duration>, onUpdate: @escaping @Sendable (VerificationProgress, [VerificationEvent]) -> Void
    ) async throws -> VerificationResult {
        // One queue for both sources, so the engine is only ever touched by this task.
        let feed = LiveSightingFeed(sightings, tick: tick, queueLimit: Self.liveQueueLimit, drops: drops, clock: clock)
        defer { feed.stop() }

        // The pass's clock is the feed's, from 0; each receiver is tied to it when its first
        // sighting arrives.
        var timeline = SightingTimeline()
        timeline.advance(to: 0)
        var failure: (any Error)?
        // Ends early when this task is cancelled: the stream's iteration stops.
        for await input in feed.inputs {
            let events: [VerificationEvent]
            switch input {
            case .sighting(let sighting):
                // A receiver beyond those whose clocks are told apart is heard at the latest time.
                let time = timeline.place(sighting, joining: feed.elapsed)?.time ?? timeline.now ?? 0
                events = engine.observe(sighting, at: time)
            case .tick(let time):
                timeline.advance(to: time)
                events = Self.takeTelemetry(from: telemetry, timeline: timeline, into: &engine) + engine.advance(to: time)
            case .ended(let time):
                events = Self.takeTelemetry(from: telemetry, timeline: timeline, into: &engine)
                    + engine.finish(at: time, reason: .inputEnded)
            case .health, .receiverStatus:
                // A one-shot pass has no health or receiver status source (`LiveSightingFeed`).
                continue
            case .failed(let error):
                failure = error
                events = []
            }
            onUpdate(engine.progress, events)
            if engine.isFinished || failure != nil { break }
        }
        if let failure, !engine.isFinished { throw failure }
        // Not finished here only when this task was cancelled.
        let (result, events) = engine.conclude(at: feed.elapsed(), reason: .interrupted)
        if !events.isEmpty { onUpdate(engine.progress, events) }
        return result
    }
}
