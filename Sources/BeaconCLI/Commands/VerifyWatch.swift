import ArgumentParser
import BeaconCore
import BeaconFleet
import Logging

/// `verify --watch`: the continuous audit (docs/verify.md, "--watch").
extension VerifyCommand {
    /// Options that only make sense for a pass that decides once are refused with --watch.
    func validateWatch() throws {
        try SecondsFlag.check(silence, "--silence")
        try SecondsFlag.check(stallAfter, "--stall-after")
        let silenceSeconds = silence ?? ContinuousAudit.Configuration.defaultSilence.secondsValue
        if let stallAfter, stallAfter >= silenceSeconds {
            throw ValidationError(
                "--stall-after \(NumberText.plain(stallAfter)) must be shorter than --silence "
                    + "(\(NumberText.plain(silenceSeconds)) s): a pipe noticed stalled after "
                    + "its beacons were judged missing would not have kept them from it.")
        }
        if stallAfter != nil, input == nil || sightingInput.inputIsBroker {
            throw ValidationError(
                "--stall-after is for a pipe (--input - or a FIFO), which cannot say whether it delivers; a controller (--hci) "
                    + "and a broker (mqtt://) say so themselves: leave it out.")
        }
        if timeout != nil {
            throw ValidationError("--timeout ends a one-shot pass; --watch runs until SIGINT/SIGTERM or the end of --input: leave --timeout out.")
        }
        if requiredSightings != nil {
            throw ValidationError("--required-sightings is how a one-shot pass decides; --watch judges every reception as it comes: leave it out.")
        }
        if !reports.reportFiles.isEmpty || !reports.reportFormats.isEmpty {
            throw ValidationError("--report writes the report of a one-shot pass; --watch streams changes to standard output and --exec: leave --report out.")
        }
        if let format = reports.format, format != .text, format != .jsonl {
            throw ValidationError("--format \(format.rawValue) is a one-shot report; --watch writes text or jsonl.")
        }
        if homeAssistant && mqtt == nil {
            throw ValidationError("--home-assistant announces the beacons on the broker the changes go to: add --mqtt mqtt://HOST[:PORT]/PREFIX.")
        }
        if discoveryPrefix != nil && !homeAssistant {
            throw ValidationError("--discovery-prefix applies with --home-assistant; add it or leave --discovery-prefix out.")
        }
        if let discoveryPrefix {
            let levels = discoveryPrefix.split(separator: "/", omittingEmptySubsequences: false)
            if levels.contains(where: \.isEmpty) || discoveryPrefix.contains(where: { "+#".contains($0) || $0.isNewline }) {
                throw ValidationError("--discovery-prefix \(discoveryPrefix): topic levels separated by `/`, none empty, no `+` or `#`.")
            }
        }
    }

    /// `--print-systemd-template` prints the watch's unit, which names its own manifest, state
    /// and input (`WatchSystemdUnit`): every other option goes in the instance's environment
    /// file, so one given here would be lost.
    func validateSystemdTemplate() throws {
        guard watch else {
            throw ValidationError(
                "--print-systemd-template prints the unit of the continuous audit (beaconctl-watch@.service): "
                    + "add --watch, as in `beaconctl verify --watch --print-systemd-template`.")
        }
        let given = [
            manifests.isEmpty ? nil : "the manifest \(manifests.joined(separator: " "))",
            venue.map { _ in "--venue" }, timeout.map { _ in "--timeout" }, requiredSightings.map { _ in "--required-sightings" },
            controller.hci.map { _ in "--hci" }, controller.snoop.map { _ in "--snoop" },
            controller.commandTimeout != 2 ? "--command-timeout" : nil,
            input.map { _ in "--input" }, sightingInput.gateways.isEmpty ? nil : "--gateway", reports.format.map { _ in "--format" },
            reports.reportFiles.isEmpty ? nil : "--report", reports.reportFormats.isEmpty ? nil : "--report-format",
            silence.map { _ in "--silence" }, exec.map { _ in "--exec" }, mqtt.map { _ in "--mqtt" },
            homeAssistant ? "--home-assistant" : nil, stateFile.map { _ in "--state" },
            discoveryPrefix.map { _ in "--discovery-prefix" }, metrics.metrics.map { _ in "--metrics" },
        ].compactMap { $0 }
        if !given.isEmpty {
            throw ValidationError(
                "--print-systemd-template prints a unit whose instance NAME audits /etc/beaconctl/NAME.yaml with the input "
                    + "and options of /etc/beaconctl/NAME.env (\(WatchSystemdUnit.inputVariable), \(WatchSystemdUnit.optionsVariable)): "
                    + "leave out \(given.joined(separator: ", ")) and put the options in that file.")
        }
    }

    /// Watches the controller or the input until SIGINT/SIGTERM or the end of the input; at
    /// the end of the input, anything but every beacon ok is exit status 1. `venueNames`:
    /// the manifest's venue names by id, for Home Assistant's areas.
    func watchContinuously(plan: VerificationPlan, venueNames: [String: String] = [:]) async throws {
        let console = Console.current
        let logger = globals.makeLogger()
        // Served first: a port in use stops the watch before it says anything else.
        let serving = try MetricsServing.start(metrics, command: "verify --watch", logger: logger)
        defer { serving?.stop() }
        let format: WatchOutput.Format
        switch reports.format {
        case .jsonl: format = .jsonl
        case .text: format = .text
        default: format = console.standardOutputIsTerminal ? .text : .jsonl
        }
        var sinks: [any AuditEventSink] = [WatchOutput(format: format, console: console)]
        let program = exec.flatMap { ProgramHook(command: $0, environment: console.environment, logger: logger, label: "beaconctl.verify-exec") }
        if let program { sinks.append(WatchEventHook(program: program)) }
        var settings = AuditWatchService.Settings()
        settings.silence = silence.flatMap(SecondsFlag.duration) ?? settings.silence
        settings.stateFile = stateFile
        settings.publishTo = mqtt
        settings.homeAssistantPrefix = homeAssistant ? discoveryPrefix ?? HomeAssistantDiscovery.defaultPrefix : nil
        settings.venueNames = venueNames
        settings.environment = console.environment
        let service: AuditWatchService
        do {
            service = try AuditWatchService.start(plan: plan, settings: settings, sinks: sinks, logger: logger)
        } catch {
            switch error {
            case .publishing(let setup): throw CommandFailure(setup)
            default: throw CommandFailure(.usageOrInput, error.description)
            }
        }
        // A broker's sightings are read like a pipe: live, each receiver on its own clock.
        let broker = try BrokerInput.open(sightingInput, role: "watch", environment: console.environment, logger: logger)
        if let broker, let warning = GatewayPacing.silenceWarning(gateways: broker.feed.subscriptions.map(\.gateway), silence: settings.silence.secondsValue) {
            logger.warning("\(warning)")
        }
        let watch = service.watch(followsReceivers: broker != nil, readings: serving?.registerWatch(beacons: plan.expected.count))
        serving?.registerBrokerClients(input: broker?.metricsClients ?? [], publish: service.publishing?.client)
        if let serving, let broker { serving.registerSkippedMessages(broker.feed) }

        let outcome: Result<AuditStatusReport, any Error>
        do {
            if let broker {
                outcome = .success(try await watchBroker(broker, watch: watch, sinks: service.sinks))
            } else if let input {
                outcome = .success(try await watchRecording(input, watch: watch, sinks: service.sinks))
            } else {
                outcome = .success(try await watchController(watch: watch, sinks: service.sinks))
            }
        } catch {
            outcome = .failure(error)
        }
        if case .failure = outcome { await program?.finish(stopping: true) } else { await program?.finish() }
        let report: AuditStatusReport
        do {
            report = try await service.finish(outcome) { try await broker?.close() }
        } catch let failure as AuditWatchService.Failure {
            throw CommandFailure(.controller, failure.description)
        }
        let batteryLow = report.batteries.contains { $0.standing == .low }
        if report.end == .inputEnded && (!report.statistics.allOK || batteryLow) { throw ExitStatus.findings.exitCode }
    }

    /// A regular file on its own clock, as fast as it reads; a pipe (a live `scan`) live.
    ///
    /// Opening the input (which waits for its first bytes) and watching it share one
    /// SIGINT/SIGTERM scope: a signal while the first bytes are awaited stops it too.
    private func watchRecording(_ path: String, watch: AuditWatch, sinks: [any AuditEventSink]) async throws -> AuditStatusReport {
        let logger = globals.makeLogger()
        let timing = SightingRecording.isRegularFile(path) ? VerificationTiming.replay : AuditWatch.liveTiming
        return try SignalScope.value(of: await SignalScope.untilSignal(stopWithin: StopDeadline.watchLimit) { () async throws -> AuditStatusReport in
            let opened: SightingRecording
            do {
                opened = try await SightingRecording.open(path: path)
            } catch where Task.isCancelled {
                // Interrupted before the input said what it carries: nothing was heard.
                return try await watch.run(AsyncThrowingStream<Sighting, any Error> { $0.finish() }, timing: .replay, sinks: sinks)
            }
            opened.announceUndeclaredUnixTime { logger.warning("\($0)") }
            defer {
                if let truncation = opened.truncation { logger.warning("\(path): \(truncation); used what precedes it") }
                if let undecodable = opened.undecodableWarning { logger.warning("\(path): \(undecodable)") }
            }
            // Each format by its own type: a replay runs specialised code at a million sightings/s.
            switch opened {
            case .capture(let capture):
                return try await watch.run(
                    capture, timing: timing, input: path, sinks: sinks, stallAfter: stallAfter.flatMap(SecondsFlag.duration), telemetry: opened.telemetry)
            case .jsonLines(let lines):
                return try await watch.run(
                    lines, timing: timing, input: path, sinks: sinks, stallAfter: stallAfter.flatMap(SecondsFlag.duration), telemetry: lines.telemetry)
            case .broker(let sightings):
                return try await watch.run(sightings, timing: timing, input: path, sinks: sinks, telemetry: sightings.telemetry)
            }
        })
    }

    /// A broker's sightings, live from the start, without waiting for a first sighting: the
    /// beacons of a chain whose boxes are all silent still go missing after --silence. Blind
    /// until the broker is connected, and whenever it is lost.
    private func watchBroker(_ broker: BrokerInput, watch: AuditWatch, sinks: [any AuditEventSink]) async throws -> AuditStatusReport {
        try SignalScope.value(of: await SignalScope.untilSignal(stopWithin: StopDeadline.watchLimit) {
            try await watch.run(
                broker.feed.sightings, timing: AuditWatch.liveTiming, lostMessages: broker.feed, health: broker.health,
                receiverStatus: broker.feed.receiverStatuses,
                input: broker.name, sinks: sinks, telemetry: broker.feed.sightings.telemetry)
        })
    }

    private func watchController(watch: AuditWatch, sinks: [any AuditEventSink]) async throws -> AuditStatusReport {
        try await controller.scanning(logger: globals.makeLogger()) { session in
            try await run(
                watch, over: session.sightings, timing: AuditWatch.liveTiming, lostBeforehand: session, health: session.health,
                input: session.controller, sinks: sinks, telemetry: session.telemetry)
        }
    }

    /// Runs the watch until its input ends; SIGINT or SIGTERM stop it with a final report.
    private func run<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ watch: AuditWatch, over sightings: Sightings, timing: VerificationTiming, lostBeforehand: (any LossCounting)? = nil,
        health: AsyncStream<InputHealthChange>? = nil, input: String, sinks: [any AuditEventSink], telemetry: TelemetryInbox? = nil
    ) async throws -> AuditStatusReport {
        try SignalScope.value(of: await SignalScope.untilSignal(stopWithin: StopDeadline.watchLimit) {
            try await watch.run(
                sightings, timing: timing, lostBeforehand: lostBeforehand, health: health, input: input, sinks: sinks, telemetry: telemetry)
        })
    }
}
