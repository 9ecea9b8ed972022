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
    ///
    /// `health`, for a live input that says whether it delivers (a broker), makes the pass
    /// start blind: time it does not deliver is kept off the beacons' clock
    /// (`ListeningClock`), and a pass blind for as long as the timeout ends `inputLost`
    /// with the beacons still open `unmonitored` (the result's `blindness` says so).
    public func run<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, timing: VerificationTiming, lostBeforehand: (any LossCounting)? = nil,
        telemetry: TelemetryInbox? = nil, health: AsyncStream<InputHealthChange>? = nil, clock: any Clock<Duration> = ContinuousClock(),
        onUpdate: @escaping @Sendable (VerificationProgress, [VerificationEvent]) -> Void = { _, _ in }
    ) async throws -> VerificationResult {
        let clocking: PassClocking
        switch timing {
        case .replay: clocking = .replay(origin: .zero)
        case .live(let tick): clocking = .live(tick: tick, clock: clock)
        }
        var settings = SightingPassSettings()
        settings.queueLimit = Self.liveQueueLimit
        settings.health = health
        let pass = SightingPass(sightings, clocking: clocking, telemetry: telemetry, settings: settings)
        var reduction = VerificationReduction(
            engine: VerificationEngine(plan: plan, policy: policy), onUpdate: onUpdate, reportsEverySighting: timing != .replay,
            listening: ListeningClock(startsBlind: health != nil))
        let outcome = try await pass.run(&reduction)
        var result = reduction.conclude(outcome)
        result.lostReports = (lostBeforehand?.lostCount ?? 0) + settings.drops.value
        return result
    }

    /// Inputs the live pass holds for the engine: far more than a second of the busiest air.
    /// Beyond, the oldest are dropped and counted.
    static let liveQueueLimit = 100_000
}

/// A verification pass as a reducer of a pass's inputs (`SightingPass`): the engine takes
/// each sighting and telemetry reading at its place, ticks close settle windows and bring the
/// timeout, the input's end ends the pass; `onUpdate` gets what each step decided. The engine
/// takes the pass's times less the time the input said it was blind (`ListeningClock`):
/// the beacons' clock.
struct VerificationReduction: PassReducer {
    var engine: VerificationEngine
    let onUpdate: @Sendable (VerificationProgress, [VerificationEvent]) -> Void
    /// Whether a sighting that decided nothing is reported too (a live pass's progress line
    /// counts them); a replay's millions are not.
    let reportsEverySighting: Bool
    var listening: ListeningClock
    /// The blind time after which the pass gives up: its timeout (`nil`: none, a recording
    /// read to its end).
    private let blindLimit: Duration?
    /// The pass's latest time, for the blindness reported at the end.
    private var latest = PassTime.origin

    init(
        engine: VerificationEngine, onUpdate: @escaping @Sendable (VerificationProgress, [VerificationEvent]) -> Void,
        reportsEverySighting: Bool, listening: ListeningClock = ListeningClock(startsBlind: false)
    ) {
        self.engine = engine
        self.onUpdate = onUpdate
        self.reportsEverySighting = reportsEverySighting
        self.listening = listening
        self.engine.inputBlind = listening.isBlind
        blindLimit = engine.policy.timeout
    }

    /// `time` on the engine's clock.
    private mutating func engineTime(at time: PassTime) -> PassTime {
        latest = max(latest, time)
        return listening.listening(at: time)
    }

    mutating func take(_ input: PassInput) -> PassStep {
        let events: [VerificationEvent]
        switch input {
        case .sighting(let placed):
            // A receiver beyond those whose clocks are told apart is heard at the latest time.
            events = engine.observe(placed.sighting, at: engineTime(at: placed.time ?? placed.clock))
            if events.isEmpty, !engine.isFinished, !reportsEverySighting { return .more }
        case .telemetry(let reading, let time):
            guard !engine.isFinished else { return .done }
            events = engine.observe(reading, at: engineTime(at: time))
            if events.isEmpty, !engine.isFinished { return .more }
        case .tick(let time):
            let listened = engineTime(at: time)
            // Blind as long as the timeout: give up on what cannot be seen rather than wait on.
            if let blindLimit, listening.blindLimitReached(blindLimit, by: time) {
                events = engine.finish(at: listened, reason: .inputLost)
            } else {
                events = engine.advance(to: listened)
            }
        case .health(let change, let time):
            latest = max(latest, time)
            let wasBlind = listening.isBlind
            listening.take(change, at: time)
            engine.inputBlind = listening.isBlind
            switch (wasBlind, change) {
            case (false, .lost(let reason)): events = [.inputLost(reason: reason)]
            case (true, .restored), (true, .incomplete): events = [.inputRestored]
            default: return .more
            }
        case .ended(let time):
            events = engine.isFinished ? [] : engine.finish(at: time.map { engineTime(at: $0) } ?? .origin, reason: .inputEnded)
        case .receiverStatus, .notice:
            // A one-shot pass judges no receiver's status, and tells no dates.
            return .more
        }
        onUpdate(engine.progress, events)
        return engine.isFinished ? .done : .more
    }

    /// The pass's result: the engine's, or, when the pass stopped before the engine finished
    /// (cancelled), what was heard judged as interrupted (the beacons it could not see then,
    /// `unmonitored`); with the time the input was blind.
    mutating func conclude(_ outcome: PassOutcome) -> VerificationResult {
        var result: VerificationResult
        if let finished = engine.result {
            result = finished
        } else {
            let listened = outcome.clock.map { engineTime(at: $0) } ?? .origin
            let (concluded, events) = engine.conclude(at: listened, reason: outcome.end == .inputEnded ? .inputEnded : .interrupted)
            if !events.isEmpty { onUpdate(engine.progress, events) }
            result = concluded
        }
        result.blindness = listening.report(at: max(latest, outcome.clock ?? .origin))
        return result
    }
}
