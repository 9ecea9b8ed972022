import BeaconCore

/// The verification pass as a pure state machine: sightings and the time go in, verdicts
/// come out. No clock, no I/O: the caller says what time it is (a `PassTime`, its origin
/// where the pass started), so tests script every verdict exactly and the same code audits a live
/// controller or a capture file.
///
/// Decision rule for an expected beacon, before the timeout (docs/verify.md explains why):
/// 1. it was heard at least `requiredSightings` (K) times, from any address;
/// 2. the settle window after the K-th reception has passed, so that a second device with
///    the same identity had its chance to be heard;
/// 3. its interval is known: one gap between advertising events short enough to be one
///    interval (not slow), or gaps so long that a healthy beacon would have had to lose
///    `slowEvidenceLosses` packets to produce them (slow); or it cannot be known, the
///    address being heard only through gateways that throttle (docs/gateways.md).
/// Its verdict is then fixed: the worst finding, or `ok`. At the timeout (or the end of
/// the input) every beacon still open is judged on what was heard: `missing` when
/// nothing, `weak` when fewer than K receptions showed nothing wrong. A beacon is never
/// declared missing before the timeout. The pass ends as soon as every beacon is decided.
public struct VerificationEngine: Sendable {
    public let plan: VerificationPlan
    public let policy: VerificationPolicy

    /// Unexpected identities tracked one by one; receptions of further ones are only
    /// counted, so a transmitter cycling through minors cannot grow memory without bound.
    public static let maximumTrackedUnexpected = 1024

    private var logs: [ObservationLog]
    /// One per expected beacon, in manifest order: a placeholder until `isDecided`. Kept as
    /// the result's own array (not copied into it): a fleet's verdicts are held once.
    private var verdicts: [BeaconVerdict]
    /// Whether `verdicts[index]` is decided, asked at every reception without copying the verdict.
    private var isDecided: [Bool]
    private let indexByIdentity: IdentityTable
    /// Beacons with K receptions whose settle window is still open, soonest end first. Only
    /// these can fall due as time passes, so a tick costs nothing for the others.
    private var settling = DeadlineQueue<PassTime>()
    /// Beacons past their settle window whose interval is still open: only a reception of
    /// their own can decide them (or the timeout).
    private var awaitingEvidence: Set<Int> = []
    /// How much each receiver hears of the beacons it hears at all: what the evidence
    /// that one beacon is slow is weighed against (`ReceiverReception`).
    private var reception = ReceiverReception()
    private var decidedCount = 0
    private var unexpectedLogs: [BeaconIdentity: ObservationLog] = [:]
    private var unexpectedOrder: [BeaconIdentity] = []
    private var untrackedUnexpectedSightings = 0
    private var otherHeard: [BeaconIdentity: Int] = [:]
    private var ignoredSightings = 0
    private var sightings = 0
    private var now = PassTime.origin
    /// Where the timeout falls (`policy.timeout` from the start); `nil` when it never comes
    /// (infinite, or beyond what a pass's clock can tell).
    private let deadline: PassTime?
    /// Telemetry paired with the beacons, and those still expected to send some.
    private var telemetry: PassTelemetry

    /// Set once the pass is over.
    public private(set) var result: VerificationResult? {
        didSet { isFinished = result != nil }
    }

    public init(plan: VerificationPlan, policy: VerificationPolicy) {
        self.plan = plan
        self.policy = policy
        deadline = policy.timeout.map { .origin + $0 }
        logs = plan.expected.map { ObservationLog(identity: $0.identity) }
        verdicts = plan.expected.map {
            BeaconVerdict(
                beacon: $0, status: .missing, findings: [], observation: BeaconObservation(identity: $0.identity),
                decidedAt: .origin, decidedEarly: false)
        }
        isDecided = Array(repeating: false, count: plan.expected.count)
        indexByIdentity = IdentityTable(plan.expected.map(\.identity))
        telemetry = PassTelemetry(beacons: plan.expected)
    }

    /// The expected beacon with `identity`, by index.
    private func beaconIndex(of identity: BeaconIdentity) -> Int? {
        indexByIdentity.index(of: identity) { plan.expected[$0].identity }
    }

    /// Takes one telemetry reading placed at `time`: paired with its beacon (docs/health.md),
    /// it may end the pass when it was the last telemetry the pass waited for.
    @discardableResult
    public mutating func observe(_ reading: TelemetryReading, at time: PassTime) -> [VerificationEvent] {
        var events = advance(to: time)
        guard !isFinished else { return events }
        telemetry.take(reading, at: now, identityIndex: beaconIndex(of:))
        events += finishIfAllDecided()
        return events
    }

    /// `result != nil`, kept as a flag: every sighting asks, and a recording brings millions.
    public private(set) var isFinished = false

    /// Whether the input is not delivering (a broker lost), as its source says. A pass that
    /// ends meanwhile, or ends because of it (`inputLost`), leaves the beacons still open
    /// `unmonitored`, with only the findings what was heard proves: their silence is the
    /// input's, not evidence (the caller keeps such time off the engine's clock).
    public var inputBlind = false

    public var progress: VerificationProgress {
        VerificationProgress(
            elapsed: now - .origin, decided: decidedCount, expected: plan.expected.count, sightings: sightings,
            unexpected: unexpectedOrder.count)
    }

    /// Takes one reception heard at `time`. Times never go back: an earlier `time` counts as
    /// the latest one seen.
    @discardableResult
    public mutating func observe(_ sighting: Sighting, at time: PassTime) -> [VerificationEvent] {
        var events = advance(to: time)
        guard !isFinished else { return events }
        sightings += 1
        let identity = sighting.identity

        if let index = indexByIdentity.index(of: identity, identityAt: { logs[$0].identity }) {
            // A decided verdict is final; later receptions are counted only.
            if !isDecided[index] {
                if let gap = logs[index].record(
                    sighting, at: now, requiredSightings: policy.requiredSightings,
                    sameEventWindow: policy.sameEventWindow)
                {
                    reception.add(gap: gap, intervalMilliseconds: plan.expected[index].intervalMilliseconds, receiver: sighting.receiver)
                }
                if logs[index].sightings == policy.requiredSightings {
                    let window = policy.settleWindow(intervalMilliseconds: plan.expected[index].intervalMilliseconds)
                    settling.insert(index, due: now + window)
                    events += decideSettled()
                } else if awaitingEvidence.contains(index), let verdict = decideIfIntervalKnown(index) {
                    events.append(.decided(verdict))
                }
            }
        } else if plan.otherKnown[identity] != nil {
            otherHeard[identity, default: 0] += 1
        } else if plan.fleetUUIDs.contains(identity.uuid) {
            if let event = recordUnexpected(sighting) { events.append(event) }
        } else {
            ignoredSightings += 1
        }
        events += finishIfAllDecided()
        return events
    }

    /// Moves the time to `time`: decides beacons whose settle window has passed, and at the
    /// timeout judges every open beacon and ends the pass.
    @discardableResult
    public mutating func advance(to time: PassTime) -> [VerificationEvent] {
        guard !isFinished else { return [] }
        now = max(now, time)
        if let deadline, now >= deadline {
            return finish(at: deadline, reason: .timeout)
        }
        return decideSettled() + finishIfAllDecided()
    }

    /// Ends the pass at `time` (the input ended, or the user interrupted it): every open
    /// beacon is judged on what was heard.
    @discardableResult
    public mutating func finish(at time: PassTime, reason: VerificationEndReason) -> [VerificationEvent] {
        guard !isFinished else { return [] }
        return close(at: time, reason: reason).events
    }

    /// The result, ending the pass first at `time` with `reason` if it is still running
    /// (then with the events of that ending).
    public mutating func conclude(
        at time: PassTime, reason: VerificationEndReason
    ) -> (result: VerificationResult, events: [VerificationEvent]) {
        if let result { return (result, []) }
        return close(at: time, reason: reason)
    }

    private mutating func close(
        at time: PassTime, reason: VerificationEndReason
    ) -> (result: VerificationResult, events: [VerificationEvent]) {
        now = max(now, time)
        let end = reason == .timeout ? min(now, deadline ?? now) : now
        let blind = inputBlind || reason == .inputLost
        var events: [VerificationEvent] = []
        for index in verdicts.indices where !isDecided[index] {
            let verdict = blind ? judgeUnseen(index, at: end) : judge(index, at: end, final: true)
            record(verdict, of: index)
            events.append(.decided(verdict))
        }
        settling = DeadlineQueue<PassTime>()
        awaitingEvidence.removeAll()
        telemetry.settle(verdicts: verdicts, identityIndex: beaconIndex(of:))
        for index in telemetry.reportedBeacons {
            verdicts[index].battery = telemetry.report(beacon: index, end: end)
        }
        let result = makeResult(duration: end - .origin, reason: reason)
        self.result = result
        events.append(.finished(reason))
        return (result, events)
    }

    // MARK: Deciding

    /// Takes every beacon whose settle window has closed by now: decided when its interval
    /// is known, else left to wait for evidence.
    private mutating func decideSettled() -> [VerificationEvent] {
        var events: [VerificationEvent] = []
        while let (_, index) = settling.popDue(by: now) {
            if let verdict = decideIfIntervalKnown(index) {
                events.append(.decided(verdict))
            } else {
                awaitingEvidence.insert(index)
            }
        }
        return events
    }

    /// Decides a settled beacon when a gap proved it fast enough or enough gaps proved it slow.
    private mutating func decideIfIntervalKnown(_ index: Int) -> BeaconVerdict? {
        let beacon = plan.expected[index]
        guard !isDecided[index] else { return nil }
        let principal = logs[index].principalTrack(pinned: beacon.expectedAddress)?.observation
        switch VerdictRules.intervalEvidence(
            principal, intervalMilliseconds: beacon.intervalMilliseconds, policy: policy, reception: reception)
        {
        // Heard only through throttling gateways: waiting would bring no evidence, and the
        // timeout would judge their cadence as the beacon's.
        case .fastEnough, .slow, .unmeasurable: break
        case .suspect, .none: return nil
        }
        let verdict = judge(index, at: now, final: false)
        record(verdict, of: index)
        awaitingEvidence.remove(index)
        return verdict
    }

    /// Fixes beacon `index`'s verdict. Its log is let go: the verdict holds what was heard,
    /// later receptions are only counted, and a large fleet's pass then holds a log only for
    /// the beacons still open (memory per decided beacon is its verdict alone).
    private mutating func record(_ verdict: BeaconVerdict, of index: Int) {
        verdicts[index] = verdict
        isDecided[index] = true
        decidedCount += 1
        logs[index] = ObservationLog(identity: logs[index].identity)
    }

    private func judge(_ index: Int, at time: PassTime, final: Bool) -> BeaconVerdict {
        let beacon = plan.expected[index]
        let log = logs[index]
        let observation = log.snapshot()
        let principal = log.principalTrack(pinned: beacon.expectedAddress)?.observation
        let findings = VerdictRules.findings(
            for: beacon, observation: observation, principal: principal, policy: policy, reception: reception, final: final)
        let status: VerdictStatus
        if let worst = findings.first {
            status = worst.status
        } else if log.isEmpty {
            status = .missing
        } else if log.sightings < policy.requiredSightings {
            status = .weak
        } else {
            status = .ok
        }
        return BeaconVerdict(
            beacon: beacon, status: status, findings: findings, observation: observation,
            decidedAt: time, decidedEarly: !final)
    }

    /// Judges an open beacon the pass can no longer see: a finding what was heard proves
    /// stands (a wrong power heard is wrong however long the input was lost); anything else
    /// is `unmonitored`, never `missing` or `weak` by the input's silence.
    private func judgeUnseen(_ index: Int, at time: PassTime) -> BeaconVerdict {
        var verdict = judge(index, at: time, final: false)
        if verdict.findings.isEmpty { verdict.status = .unmonitored }
        verdict.decidedEarly = false
        return verdict
    }

    /// Ends the pass once every identity is decided and every beacon expected to send
    /// telemetry has (a beacon's battery cannot be judged on a pass that stopped listening).
    private mutating func finishIfAllDecided() -> [VerificationEvent] {
        guard !isFinished, decidedCount == verdicts.count else { return [] }
        if !telemetry.awaiting.isEmpty {
            telemetry.settle(verdicts: verdicts, identityIndex: beaconIndex(of:))
            guard telemetry.awaiting.isEmpty else { return [] }
        }
        return finish(at: now, reason: .allDecided)
    }

    // MARK: Identities outside the pass

    private mutating func recordUnexpected(_ sighting: Sighting) -> VerificationEvent? {
        let identity = sighting.identity
        // Recorded in place: a copy out of the dictionary would copy the log's storage.
        if unexpectedLogs[identity] != nil {
            unexpectedLogs[identity]?.record(
                sighting, at: now, requiredSightings: policy.requiredSightings, sameEventWindow: policy.sameEventWindow)
            return nil
        }
        guard unexpectedOrder.count < Self.maximumTrackedUnexpected else {
            untrackedUnexpectedSightings += 1
            return nil
        }
        var log = ObservationLog(identity: identity)
        log.record(sighting, at: now, requiredSightings: policy.requiredSightings, sameEventWindow: policy.sameEventWindow)
        unexpectedLogs[identity] = log
        unexpectedOrder.append(identity)
        return .unexpected(identity)
    }

    private func makeResult(duration: Duration, reason: VerificationEndReason) -> VerificationResult {
        let unexpected = unexpectedOrder.compactMap { identity in
            unexpectedLogs[identity].map { log in
                UnexpectedBeacon(
                    observation: log.snapshot(),
                    likelyVenue: plan.venueByMajor[.init(uuid: identity.uuid, major: identity.major)])
            }
        }
        let others = otherHeard.compactMap { identity, count in
            plan.otherKnown[identity].map { OtherManifestBeacon(beaconID: $0, identity: identity, sightings: count) }
        }.sorted { $0.beaconID < $1.beaconID }
        return VerificationResult(
            scope: plan.scope, policy: policy, verdicts: verdicts, unexpected: unexpected,
            untrackedUnexpectedSightings: untrackedUnexpectedSightings, otherManifestBeacons: others,
            sightings: sightings, ignoredSightings: ignoredSightings, duration: duration, endReason: reason,
            telemetry: TelemetryCounts(received: telemetry.received, unpaired: telemetry.unpaired))
    }
}

/// What happened during one step of the engine.
public enum VerificationEvent: Hashable, Sendable {
    case decided(BeaconVerdict)
    /// The first reception of an identity not in the manifest using a fleet UUID.
    case unexpected(BeaconIdentity)
    case finished(VerificationEndReason)
    /// The input stopped delivering (a broker lost; `reason`, its words): the beacons' clock
    /// stands still until it is back (told by the pass, not the engine: `ListeningClock`).
    case inputLost(reason: String)
    /// The input delivers again (a broker connected, at the start or after a loss).
    case inputRestored
}

/// Where a verification pass stands.
public struct VerificationProgress: Hashable, Sendable {
    /// Since the start.
    public var elapsed: Duration
    public var decided: Int
    public var expected: Int
    public var sightings: Int
    public var unexpected: Int

    public init(elapsed: Duration, decided: Int, expected: Int, sightings: Int, unexpected: Int) {
        self.elapsed = elapsed
        self.decided = decided
        self.expected = expected
        self.sightings = sightings
        self.unexpected = unexpected
    }
}
