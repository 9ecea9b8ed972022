import ArgumentParser
import BeaconCore
import BeaconFleet
import BeaconMQTT
import FleetManifest
import HCI

/// `beaconctl verify`: listen, and give every beacon of a manifest its verdict.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Listen, and give every beacon of a manifest a verdict: ok, missing, wrong power, duplicate, slow …",
        discussion: """
            Listens on a controller (--hci) or reads a recording (--input: JSON lines as `scan --format \
            jsonl` writes them, or a btsnoop, pcap or pcapng capture), or every receiver publishing to an \
            MQTT broker (--input mqtt://HOST/PREFIX), and stops as soon as every beacon is decided, or at \
            the timeout. With several receivers, the report says which heard each beacon and how strongly. Identities using the fleet's UUIDs that the manifest does not list are reported as \
            unexpected. The report goes to standard output (--format) and to any --report files.

            Exit codes: 0 every beacon ok and nothing unexpected; 1 anything else, or a manifest with \
            errors; 2 usage or unreadable input; 3 controller failure, or (--watch --mqtt) a \
            broker that refused or did not acknowledge every change. See docs/verify.md.

            --watch audits continuously instead: every beacon is ok, missing (not heard for --silence \
            seconds), wrong-power or duplicate (two devices within --silence), and each change of state \
            is reported as it happens (JSON lines, or a log on a terminal; --exec runs a program per \
            change, --mqtt publishes it to a broker), with statistics every 60 s. It runs until SIGINT/SIGTERM (exit 0) or the end of \
            --input, where it prints a summary and exits 0 when every beacon is ok and nothing \
            unexpected is on the air, 1 otherwise.
            """)

    @OptionGroup var globals: GlobalOptions

    @Argument(help: "Manifest files or folders. A folder is one namespace: every .yaml/.yml file in it, recursively.")
    var manifests: [String] = []

    @Option(help: ArgumentHelp("Judge only this venue's beacons; the manifest's others, when heard, are listed but not judged.", valueName: "id"))
    var venue: String?

    @Option(help: ArgumentHelp(
        "Seconds to listen before beacons not yet decided are judged (default: 10; for a recorded file, all of it).",
        valueName: "seconds"))
    var timeout: Double?

    @Option(
        name: .customLong("required-sightings"),
        help: ArgumentHelp("Receptions of a beacon needed before it is judged (default: 3).", valueName: "count"))
    var requiredSightings: Int?

    @OptionGroup(title: "Controller") var controller: HCIOptions

    @OptionGroup(title: "Input") var sightingInput: SightingInputOptions

    var input: String? { sightingInput.input }

    @OptionGroup(title: "Reports") var reports: VerifyReportOptions

    @Flag(help: "Audit continuously: report every change of a beacon's state until SIGINT/SIGTERM or the end of --input.")
    var watch = false

    @Option(help: ArgumentHelp(
        "With --watch: seconds without a reception before a beacon is missing, and in which two devices make a duplicate (default: 30).",
        valueName: "seconds"))
    var silence: Double?

    @Option(help: ArgumentHelp(
        "With --watch on a pipe (--input - or a FIFO): seconds without any sighting from it after which the pipe counts as stalled "
            + "(input-lost: nothing is judged by silence until a sighting comes again). Off by default: a pipe's silence is the beacons'.",
        valueName: "seconds"))
    var stallAfter: Double?

    /// With --watch: a program run on every change.
    @OptionGroup var execHook: ExecHookOption
    var exec: String? { execHook.command }

    /// With --watch: the broker every change is also published to (PREFIX/audit/…).
    @OptionGroup var publishing: MQTTPublishOption
    var mqtt: String? { publishing.url }

    @Flag(
        name: .customLong("home-assistant"),
        help: "With --watch --mqtt: announce every beacon to Home Assistant's MQTT discovery (a presence and a last-seen per beacon; docs/mqtt.md).")
    var homeAssistant = false

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp(
            "With --watch: keep every beacon's state in this file and start from it when restarted (only changes from it are reported).",
            valueName: "file"))
    var stateFile: String?

    @Option(
        name: .customLong("discovery-prefix"),
        help: ArgumentHelp("With --home-assistant: Home Assistant's discovery prefix (default: homeassistant).", valueName: "prefix"))
    var discoveryPrefix: String?

    @Flag(help: """
        With --watch: print the template unit beaconctl-watch@.service, whose instance NAME audits /etc/beaconctl/NAME.yaml \
        with the settings of /etc/beaconctl/NAME.env, and exit.
        """)
    var printSystemdTemplate = false

    @OptionGroup(title: "Metrics (with --watch)") var metrics: MetricsOptions

    static let liveTimeout = 10.0

    func validate() throws {
        if printSystemdTemplate {
            try validateSystemdTemplate()
            return
        }
        if manifests.isEmpty {
            throw ValidationError("Name the manifest to verify against, e.g. `beaconctl verify fleets/ --hci hci0`.")
        }
        if input == "" {
            // What a service's unset variable becomes (beaconctl-watch@.service: ${BEACONCTL_WATCH_INPUT}).
            throw ValidationError(
                "--input is empty: name a file, - for standard input, or mqtt://HOST[:PORT]/PREFIX; as the service "
                    + "beaconctl-watch@NAME, set \(WatchSystemdUnit.inputVariable) in /etc/beaconctl/NAME.env.")
        }
        if input != nil && (controller.hci != nil || controller.snoop != nil) {
            throw ValidationError("--input reads a recording and --hci/--snoop drive a controller; use one or the other.")
        }
        try SecondsFlag.check(timeout, "--timeout", allowingInfinity: true)
        if let requiredSightings, requiredSightings < 1 {
            throw ValidationError("--required-sightings must be at least 1; got \(requiredSightings).")
        }
        if watch {
            try validateWatch()
        } else {
            let watchOnly = [
                silence.map { _ in "--silence" }, exec.map { _ in "--exec" }, mqtt.map { _ in "--mqtt" },
                homeAssistant ? "--home-assistant" : nil, discoveryPrefix.map { _ in "--discovery-prefix" },
                stateFile.map { _ in "--state" }, metrics.metrics.map { _ in "--metrics" }, stallAfter.map { _ in "--stall-after" },
            ].compactMap { $0 }
            if !watchOnly.isEmpty {
                throw ValidationError("\(watchOnly.joined(separator: " and ")) only appl\(watchOnly.count == 1 ? "ies" : "y") with --watch; add --watch or leave \(watchOnly.count == 1 ? "it" : "them") out.")
            }
            try reports.checkReportFormat(command: "verify without --watch")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached(watch ? "verify --watch" : "verify")
        if printSystemdTemplate {
            Console.current.write(WatchSystemdUnit(globals: globals).text())
            return
        }
        let loaded = ManifestLoader.load(paths: manifests)
        try reportBlockingDiagnostics(loaded)
        let plan: VerificationPlan
        do {
            plan = try VerificationPlan(fleet: loaded.fleet, venueID: venue)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }

        if watch {
            // Home Assistant names a beacon's area after its venue, as the manifest names it.
            let venueNames = Dictionary(loaded.fleet.venues.compactMap { venue in venue.name.map { (venue.id, $0) } }, uniquingKeysWith: { first, _ in first })
            try await watchContinuously(plan: plan, venueNames: venueNames)
            return
        }
        let result: VerificationResult
        if let input {
            // A broker's sightings are read like a pipe: live, for --timeout seconds; the
            // interval rule measures each receiver's gaps on its own clock.
            let logger = globals.makeLogger()
            let broker = try BrokerInput.open(sightingInput, role: "verify", environment: Console.current.environment, logger: logger)
            do {
                if let broker {
                    let policy = policy(defaultTimeout: Self.liveTimeout)
                    if let warning = GatewayPacing.timeoutWarning(
                        gateways: broker.feed.subscriptions.map(\.gateway), requiredSightings: policy.requiredSightings, timeout: policy.timeout) {
                        logger.warning("\(warning)")
                    }
                    result = try await verify(
                        broker.feed.sightings, plan: plan, timing: .live, policy: policy, telemetry: broker.feed.sightings.telemetry)
                } else {
                    result = try await verifyRecording(input, plan: plan)
                }
            } catch {
                try await broker?.close()
                throw error
            }
            try await broker?.close()
        } else {
            result = try await verifyLive(plan: plan)
        }
        try reports.emit(result, style: globals.style())
        if !result.passed { throw ExitStatus.findings.exitCode }
    }

    private func policy(defaultTimeout: Double) -> VerificationPolicy {
        VerificationPolicy(requiredSightings: requiredSightings ?? VerificationPolicy().requiredSightings, timeout: timeout ?? defaultTimeout)
    }

    /// A capture, or JSON lines: a regular file is replayed on its own clock (all of it,
    /// unless --timeout); a pipe may be a live `scan`, so it is listened to live.
    private func verifyRecording(_ path: String, plan: VerificationPlan) async throws -> VerificationResult {
        let logger = globals.makeLogger()
        let isFile = VerifyInputKind.isRegularFile(path)
        let opened: SightingRecording
        switch await Self.open(path, deadline: isFile ? nil : timeout ?? Self.liveTimeout) {
        case .opened(let input):
            opened = input
            opened.announceUndeclaredUnixTime { logger.warning("\($0)") }
        case .failed(let error):
            throw CommandFailure(.usageOrInput, error.description)
        case .deadline(let seconds):
            // The pipe never said what it carries: nothing was heard, and the report says so.
            logger.warning("\(path == "-" ? "<stdin>" : path): no sighting arrived within \(VerdictWording.seconds(seconds))")
            var engine = VerificationEngine(plan: plan, policy: policy(defaultTimeout: Self.liveTimeout))
            return engine.conclude(at: seconds, reason: .timeout).result
        case .interrupted:
            var engine = VerificationEngine(plan: plan, policy: policy(defaultTimeout: Self.liveTimeout))
            return engine.conclude(at: 0, reason: .interrupted).result
        }
        switch opened {
        case .capture(let capture):
            // Read record by record as the pass goes; a cut-off end is known once read.
            defer {
                if let truncation = capture.summary.values?.truncation { logger.warning("\(truncation)") }
            }
            // A pipe is listened to live, as JSON lines on a pipe are (docs/verify.md, "Inputs
            // and time"): a capture that stalls then ends at the timeout, not never.
            var result = isFile
                ? try await verify(capture, plan: plan, timing: .replay, policy: policy(defaultTimeout: .infinity), telemetry: opened.telemetry)
                : try await verify(
                    capture, plan: plan, timing: .live, policy: policy(defaultTimeout: Self.liveTimeout), telemetry: opened.telemetry)
            if let undecodable = opened.undecodableWarning { result.inputWarnings.append(undecodable) }
            return result
        case .jsonLines(let lines):
            if isFile {
                return try await verify(lines, plan: plan, timing: .replay, policy: policy(defaultTimeout: .infinity), telemetry: lines.telemetry)
            }
            return try await verify(lines, plan: plan, timing: .live, policy: policy(defaultTimeout: Self.liveTimeout), telemetry: lines.telemetry)
        case .broker(let sightings):
            // A file never opens as a broker (see `BrokerInput`); live, as one is.
            return try await verify(
                sightings, plan: plan, timing: .live, policy: policy(defaultTimeout: Self.liveTimeout), telemetry: sightings.telemetry)
        }
    }

    private enum OpenOutcome: Sendable {
        case opened(SightingRecording)
        case failed(SightingStreamError)
        case deadline(Double)
        case interrupted
    }

    /// Opens the input (reading its first bytes to tell its format) under the pass's
    /// deadline and SIGINT/SIGTERM: a pipe that stays silent must not hold the command
    /// before the timeout even starts.
    private static func open(_ path: String, deadline: Double?) async -> OpenOutcome {
        let (outcome, signal) = await TerminationSignals.cancellingOnSignal { () -> OpenOutcome in
            await withTaskGroup(of: OpenOutcome?.self) { group in
                group.addTask {
                    do throws(SightingStreamError) {
                        return .opened(try await SightingRecording.open(path: path))
                    } catch {
                        return Task.isCancelled ? nil : .failed(error)
                    }
                }
                if let deadline, let wait = SecondsFlag.duration(deadline) {
                    group.addTask {
                        try? await Task.sleep(for: wait)
                        return Task.isCancelled ? nil : .deadline(deadline)
                    }
                }
                for await outcome in group {
                    if let outcome {
                        group.cancelAll()
                        return outcome
                    }
                }
                return .interrupted
            }
        }
        return signal == nil ? outcome : .interrupted
    }

    /// Scans on the controller for the length of the pass, and turns scanning off after it.
    private func verifyLive(plan: VerificationPlan) async throws -> VerificationResult {
        try await controller.scanning(logger: globals.makeLogger()) { session in
            try await verify(
                session.sightings, plan: plan, timing: .live, policy: policy(defaultTimeout: Self.liveTimeout), lostBeforehand: session,
                telemetry: session.telemetry)
        }
    }

    /// Runs `operation`; SIGINT or SIGTERM cancel it, and it ends with what it has.
    /// `stopWithin`: seconds the command may take to end after the signal before
    /// `StopDeadline` ends it (the watch, a service).
    static func untilSignal<Value: Sendable>(
        stopWithin: Double? = nil, _ operation: @escaping @Sendable () async throws -> Value
    ) async -> Result<Value, any Error> {
        let (outcome, _) = await TerminationSignals.cancellingOnSignal(onSignal: { signalNumber in
            if let stopWithin { StopDeadline.arm(after: stopWithin, signal: signalNumber) }
        }) { () -> Result<Value, any Error> in
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        return outcome
    }

    /// The value, or the failure as the command's: a bad input is a usage or input error,
    /// anything else the controller's.
    static func value<Value>(of outcome: Result<Value, any Error>) throws -> Value {
        switch outcome {
        case .success(let value):
            return value
        case .failure(let error as SightingStreamError):
            throw CommandFailure(.usageOrInput, error.description)
        case .failure(let error):
            throw CommandFailure(.controller, ExitStatus.message(for: error))
        }
    }

    /// Runs the pass with progress on a terminal; SIGINT or SIGTERM end it early, with the
    /// verdicts reached so far.
    private func verify<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, plan: VerificationPlan, timing: VerificationTiming, policy: VerificationPolicy,
        lostBeforehand: (any LossCounting)? = nil, telemetry: TelemetryInbox? = nil
    ) async throws -> VerificationResult {
        if let problem = policy.problem { throw CommandFailure(.usageOrInput, problem) }
        let progress = VerifyProgressLine(console: Console.current, timeout: policy.timeout)
        let verifier = BeaconVerifier(plan: plan, policy: policy)
        let logger = globals.makeLogger()
        let outcome = await Self.untilSignal {
            if case .live = timing {
                logger.info("listening until every beacon is decided or \(VerdictWording.seconds(policy.timeout)) have passed; Ctrl-C ends the pass with what was heard")
            }
            return try await verifier.run(sightings, timing: timing, lostBeforehand: lostBeforehand, telemetry: telemetry) { state, _ in
                progress.update(state)
            }
        }
        progress.clear()
        return try Self.value(of: outcome)
    }
}
