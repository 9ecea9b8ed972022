import BeaconCore
import Logging

/// `verify` without `--watch`: one verification pass over what the user named — a recorded
/// file (all of it, as fast as it reads), a pipe or a broker (live, for the timeout), or this
/// machine's scan — with the policy each calls for, its progress told to the front end, and a
/// stop by the user ending the pass with the verdicts reached so far.
public struct OneShotVerification: Sendable {
    /// How long a live input is listened to when no timeout is given.
    public static let liveTimeout = Duration.seconds(10)

    public let plan: VerificationPlan
    /// Receptions of a beacon needed before it is judged; `nil`: the policy's default.
    public let requiredSightings: Int?
    /// Seconds before the beacons not yet decided are judged, as the user gave them
    /// (`--timeout`; `.infinity`: to the end of the input); `nil`: `liveTimeout` live, all of
    /// a recorded file. Read into a `Duration` by `policy(live:)`.
    public let timeout: Double?
    /// How the user stops a pass (SIGINT/SIGTERM on the command line).
    public let stops: any StopRequests
    public let observer: any VerificationObserver
    public let logger: Logger
    /// The clock a pipe's first bytes are awaited on (a test clock in tests).
    public let clock: any Clock<Duration>

    /// What stops a pass from giving verdicts.
    public enum Failure: Error, CustomStringConvertible, Sendable {
        /// The policy cannot be met as asked (a timeout too short for what it requires).
        case policy(String)
        /// The input is malformed or cannot be read (named by line or record).
        case input(SightingStreamError)
        /// The controller or the source failed while the pass listened.
        case source(any Error)
        /// A broker refused the connection, TLS or the subscription for good (which ended its
        /// stream early).
        case broker(BrokerRefusal)
        /// The brokers did not all deliver within the timeout: nothing can be said of the
        /// beacons (`reason`: the last failure heard, when there was one).
        case brokerNeverDelivered(within: Duration, reason: String?)
        /// A pipe (or standard input) gave no sighting (not even a whole first line or header) within the timeout: its silence says
        /// nothing of the beacons.
        case nothingArrived(input: String, within: Duration)

        public var description: String {
            switch self {
            case .policy(let problem): problem
            case .input(let error): error.description
            case .source(let error): "\(error)"
            case .broker(let refusal): refusal.description
            case .brokerNeverDelivered(let limit, let reason):
                "the broker input was not connected within \(VerdictWording.seconds(limit))"
                    + (reason.map { " (last: \($0))" } ?? "")
                    + ": nothing can be said of the beacons; check that the broker is up and reachable, then run again"
            case .nothingArrived(let input, let limit):
                "\(input): no sighting arrived within \(VerdictWording.seconds(limit)): nothing can be said of the beacons; "
                    + "check that what writes to it is running (a live `beaconctl scan --format jsonl`, `btmon -w -`), or give a longer --timeout"
            }
        }
    }

    public init(
        plan: VerificationPlan, requiredSightings: Int?, timeout: Double?, stops: any StopRequests, observer: any VerificationObserver,
        logger: Logger, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.plan = plan
        self.requiredSightings = requiredSightings
        self.timeout = timeout
        self.stops = stops
        self.observer = observer
        self.logger = logger
        self.clock = clock
    }

    /// The policy of a pass: a live one ends at the timeout (`liveTimeout` by default), a
    /// recorded file's at its end unless a timeout was given.
    public func policy(live: Bool) -> VerificationPolicy {
        VerificationPolicy(requiredSightings: requiredSightings ?? VerificationPolicy().requiredSightings, timeout: listening(live: live))
    }

    /// How long a pass listens: the timeout given (`.infinity`: to the end of the input; one
    /// that cannot be read as a duration, none at all, which the policy refuses), else
    /// `liveTimeout` live and to the end of a recorded file.
    private func listening(live: Bool) -> Duration? {
        guard let timeout else { return live ? Self.liveTimeout : nil }
        return timeout == .infinity ? nil : Duration(checkedSeconds: timeout) ?? .zero
    }

    /// A broker's sightings, read like a pipe: live, for the timeout; the interval rule
    /// measures each receiver's gaps on its own clock. The broker is closed at the end.
    ///
    /// Time the broker is not delivering (connecting, lost, reconnecting) says nothing of the
    /// beacons, so it is kept off their clock (`ListeningClock`): the pass starts blind, and
    /// its timeout counts only the time the broker delivered. Blind for as long as the
    /// timeout, it gives up: never connected, the run fails (`brokerNeverDelivered`) instead
    /// of giving verdicts; lost after delivering, the beacons still open are `unmonitored`.
    public func verify(broker: BrokerInput) async throws -> VerificationResult {
        let result: VerificationResult
        do {
            let policy = policy(live: true)
            if let warning = GatewayPacing.timeoutWarning(
                gateways: broker.feed.subscriptions.map(\.gateway), requiredSightings: policy.requiredSightings, timeout: policy.timeout) {
                logger.warning("\(warning)")
            }
            result = try await pass(
                broker.feed.sightings, timing: .live, policy: policy, telemetry: broker.feed.sightings.telemetry, health: broker.health)
            if let blindness = result.blindness, blindness.neverDelivered, result.endReason == .inputLost {
                throw Failure.brokerNeverDelivered(within: policy.timeout ?? .zero, reason: blindness.lastReason)
            }
        } catch {
            try await close(broker)
            throw error
        }
        try await close(broker)
        return result
    }

    /// The result of a pass stopped before its input delivered anything: every beacon
    /// `unmonitored`, said to be so.
    static func unseen(plan: VerificationPlan, policy: VerificationPolicy) -> VerificationResult {
        var engine = VerificationEngine(plan: plan, policy: policy)
        engine.inputBlind = true
        var result = engine.conclude(at: .origin, reason: .interrupted).result
        result.blindness = InputBlindness(seconds: 0, atEnd: true, neverDelivered: true, lastReason: nil)
        return result
    }

    private func close(_ broker: BrokerInput) async throws(Failure) {
        do {
            try await broker.finish()
        } catch {
            throw .broker(error)
        }
    }

    /// This machine's scan, live for the timeout.
    public func verify(scan: LiveScan) async throws -> VerificationResult {
        try await pass(scan.sightings, timing: .live, policy: policy(live: true), lostBeforehand: scan, telemetry: scan.telemetry)
    }

    /// A recording: a regular file replayed on its own clock, to its end; anything else (a
    /// pipe, standard input) listened to live, as it comes, its first bytes awaited no longer
    /// than the timeout (docs/verify.md, "Inputs and time").
    public func verify(recording path: String) async throws -> VerificationResult {
        let isFile = SightingRecording.isRegularFile(path)
        let opened: SightingRecording
        switch await SightingRecording.open(path: path, within: isFile ? nil : listening(live: true), stops: stops, clock: clock) {
        case .opened(let input):
            opened = input
            opened.announceUndeclaredUnixTime { logger.warning("\($0)") }
        case .failed(let error):
            throw Failure.input(error)
        case .deadline(let limit):
            // The pipe never said what it carries: blind, so no beacon is judged by its silence.
            throw Failure.nothingArrived(input: path == "-" ? "<stdin>" : path, within: limit)
        case .stopped:
            // Stopped before the pipe said anything: nothing was seen, so nothing is judged.
            return Self.unseen(plan: plan, policy: policy(live: true))
        }
        let timing: VerificationTiming = isFile ? .replay : .live
        let policy = policy(live: !isFile)
        switch opened {
        case .capture(let capture):
            // Read record by record as the pass goes; a cut-off end is known once read.
            defer {
                if let truncation = capture.summary.values?.truncation { logger.warning("\(truncation)") }
            }
            var result = try await pass(capture, timing: timing, policy: policy, telemetry: opened.telemetry)
            // A pipe that gave a capture's header and then not one record is as silent as one
            // that gave nothing: blind, not evidence (a capture of a live scan has records
            // even where no beacon is heard). Stopped so, nothing is judged either.
            if !isFile, (capture.summary.values?.recordCount ?? 0) == 0 {
                switch result.endReason {
                case .timeout: throw Failure.nothingArrived(input: path == "-" ? "<stdin>" : path, within: policy.timeout ?? .zero)
                case .interrupted: return Self.unseen(plan: plan, policy: policy)
                case .allDecided, .inputEnded, .inputLost: break
                }
            }
            if let undecodable = opened.undecodableWarning { result.inputWarnings.append(undecodable) }
            return result
        case .jsonLines(let lines):
            return try await pass(lines, timing: timing, policy: policy, telemetry: lines.telemetry)
        case .broker(let sightings):
            // A file never opens as a broker (see `BrokerInput`); live, as one is.
            return try await pass(sightings, timing: .live, policy: self.policy(live: true), telemetry: sightings.telemetry)
        }
    }

    /// The pass, its progress told to the observer; a stop by the user ends it early, with the
    /// verdicts reached so far.
    private func pass<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, timing: VerificationTiming, policy: VerificationPolicy, lostBeforehand: (any LossCounting)? = nil,
        telemetry: TelemetryInbox?, health: AsyncStream<InputHealthChange>? = nil
    ) async throws(Failure) -> VerificationResult {
        if let problem = policy.problem { throw .policy(problem) }
        let verifier = BeaconVerifier(plan: plan, policy: policy)
        let (observer, logger) = (self.observer, self.logger)
        observer.passStarted(policy: policy)
        let (outcome, _) = await stops.stoppable { () -> Result<VerificationResult, any Error> in
            if case .live = timing {
                let until = policy.timeout.map { "\(VerdictWording.seconds($0)) have passed" } ?? "the input ends"
                logger.info("listening until every beacon is decided or \(until); Ctrl-C ends the pass with what was heard")
            }
            do {
                return .success(try await verifier.run(
                    sightings, timing: timing, lostBeforehand: lostBeforehand, telemetry: telemetry, health: health, clock: clock
                ) { state, events in
                    for event in events {
                        switch event {
                        case .inputLost(let reason):
                            logger.warning("\(reason): the input is not delivering; until it is back, time does not count against the beacons")
                        case .inputRestored:
                            logger.notice("the input delivers; the beacons' clock runs")
                        case .decided, .unexpected, .finished: break
                        }
                    }
                    observer.progressed(state)
                })
            } catch {
                return .failure(error)
            }
        }
        observer.passEnded()
        switch outcome {
        case .success(let result): return result
        case .failure(let error as SightingStreamError): throw .input(error)
        case .failure(let error): throw .source(error)
        }
    }
}

/// What a front end shows of a pass while it runs (a progress line on a terminal).
public protocol VerificationObserver: Sendable {
    func passStarted(policy: VerificationPolicy)
    /// After each step of the pass that decided something, and at a live pass's ticks.
    func progressed(_ progress: VerificationProgress)
    /// Before the report is written.
    func passEnded()
}
