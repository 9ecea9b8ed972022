import ArgumentParser
import BeaconCore
import BeaconFleet
import BeaconMQTT
import Logging

/// `verify --watch`: the continuous audit (docs/verify.md, "--watch").
extension VerifyCommand {
    /// Options that only make sense for a pass that decides once are refused with --watch.
    func validateWatch() throws {
        try SecondsFlag.check(silence, "--silence")
        try SecondsFlag.check(stallAfter, "--stall-after")
        if let stallAfter, stallAfter >= silence ?? ContinuousAudit.Configuration.defaultSilence {
            throw ValidationError(
                "--stall-after \(NumberText.plain(stallAfter)) must be shorter than --silence "
                    + "(\(NumberText.plain(silence ?? ContinuousAudit.Configuration.defaultSilence)) s): a pipe noticed stalled after "
                    + "its beacons were judged missing would not have kept them from it.")
        }
        if stallAfter != nil, input == nil || input.map(MQTTBrokerURL.looksLikeBroker) == true {
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
        let readings = serving?.registerWatch(beacons: plan.expected.count)
        let format: WatchOutput.Format
        switch reports.format {
        case .jsonl: format = .jsonl
        case .text: format = .text
        default: format = console.standardOutputIsTerminal ? .text : .jsonl
        }
        var sinks: [any AuditEventSink] = [WatchOutput(format: format, console: console)]
        let program = exec.flatMap { ProgramHook(command: $0, environment: console.environment, logger: logger, label: "beaconctl.verify-exec") }
        if let program { sinks.append(WatchEventHook(program: program)) }
        var publishing: ReportPublishing?
        if let mqtt {
            let started: ReportPublishing
            do {
                started = try ReportPublishing.start(mqtt, role: "audit", what: "audit changes", environment: console.environment, logger: logger)
            } catch {
                throw CommandFailure(error)
            }
            let discovery = homeAssistant
                ? HomeAssistantDiscovery(
                    discoveryPrefix: discoveryPrefix ?? HomeAssistantDiscovery.defaultPrefix, topics: started.topics,
                    venueNames: venueNames)
                : nil
            // Receivers are learned from the input: each is announced when the watch first knows it.
            let sink = MQTTAuditSink(client: started.client, topics: started.topics, receiverDiscovery: discovery)
            sinks.append(sink)
            publishing = started
            // A previous run's retained standings say nothing of now: each beacon is unknown
            // until this watch judges it. Published before the discovery and any change, on
            // the same connection, so that nobody reads the old standing as this run's.
            sink.unconfirm(plan.expected)
            logger.notice("publishing every change to \(started.client.broker) (\(started.topics.auditEvents))")
            if let discovery {
                let announcements = discovery.announcements(for: plan.expected)
                // Retained: Home Assistant reads them whenever it (re)connects.
                for announcement in announcements {
                    started.client.publish(topic: announcement.topic, payload: Array(announcement.payload.utf8), retain: true)
                }
                logger.notice("announced \(NumberText.count(plan.expected.count, "beacon")) to Home Assistant (\(discovery.discoveryPrefix)/…/config)")
            }
        }
        // Restart without amnesia: the states a previous watch kept, and the file kept current.
        var restored: [String: AuditState] = [:]
        var restoredReceivers: [String: [String]] = [:]
        var restoredBatteries: [String: [BatteryForecast.DailyMedian]] = [:]
        var keeper: AuditStateFile?
        if let stateFile {
            do {
                if let found = try AuditStateFile.read(stateFile) {
                    restored = found.beacons
                    restoredReceivers = found.receivers
                    restoredBatteries = found.batteries
                    let known = plan.expected.count { found.beacons[$0.beaconID] != nil }
                    let written = WallClock.iso8601(found.writtenAt) ?? "at an unknown time"
                    logger.notice("restarting from \(stateFile) (written \(written)): \(known) of \(plan.expected.count) beacons start in the state they had; only changes from it are reported")
                } else {
                    logger.notice("\(stateFile) does not exist yet: every beacon starts unknown, and their states are kept there from now on")
                }
            } catch {
                throw CommandFailure(.usageOrInput, error.description)
            }
            let file = AuditStateFile(
                path: stateFile, restored: restored, restoredReceivers: restoredReceivers, restoredBatteries: restoredBatteries)
            sinks.append(file)
            keeper = file
        }
        // A broker's sightings are read like a pipe: live, each receiver on its own clock.
        let broker = try BrokerInput.open(sightingInput, role: "watch", environment: console.environment, logger: logger)
        if let broker, let warning = GatewayPacing.silenceWarning(
            gateways: broker.feed.subscriptions.map(\.gateway), silence: silence ?? ContinuousAudit.Configuration.defaultSilence) {
            logger.warning("\(warning)")
        }
        // A broker's receivers are boxes that can die: followed. This host's controller (or a
        // file or pipe of its scans) is one receiver whose failure ends the scan, and whose
        // silence is the beacons'.
        let watch = AuditWatch(
            plan: plan,
            configuration: ContinuousAudit.Configuration(
                silence: silence ?? ContinuousAudit.Configuration.defaultSilence, followsReceivers: broker != nil),
            restoredStates: restored, restoredReceivers: restoredReceivers, restoredBatteries: restoredBatteries, readings: readings)
        serving?.registerBrokerClients(input: broker?.metricsClients ?? [], publish: publishing?.client)
        if let serving, let broker { serving.registerSkippedMessages(broker.feed) }

        let report: AuditStatusReport
        do {
            if let broker {
                report = try await watchBroker(broker, watch: watch, sinks: sinks)
            } else if let input {
                report = try await watchRecording(input, watch: watch, sinks: sinks)
            } else {
                report = try await watchController(watch: watch, sinks: sinks)
            }
        } catch {
            await program?.finish(stopping: true)
            if let failure = await keeper?.flush() { logger.error("\(failure)") }
            _ = await publishing?.finish(logger: logger)
            try await broker?.close()
            throw error
        }
        await program?.finish()
        if let failure = await keeper?.flush() { logger.error("\(failure); the next start with --state will not know the latest states") }
        do {
            try await broker?.close()
        } catch {
            _ = await publishing?.finish(logger: logger)
            throw error
        }
        if let publishing, !(await publishing.finish(logger: logger)) {
            throw CommandFailure(.controller, "not every change reached \(publishing.client.broker) (see above)")
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
        let timing = VerifyInputKind.isRegularFile(path) ? VerificationTiming.replay : AuditWatch.liveTiming
        return try Self.value(of: await Self.untilSignal(stopWithin: StopDeadline.watchLimit) { () async throws -> AuditStatusReport in
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
                    capture, timing: timing, input: path, sinks: sinks, stallAfter: stallAfter, telemetry: opened.telemetry)
            case .jsonLines(let lines):
                return try await watch.run(
                    lines, timing: timing, input: path, sinks: sinks, stallAfter: stallAfter, telemetry: lines.telemetry)
            case .broker(let sightings):
                return try await watch.run(sightings, timing: timing, input: path, sinks: sinks, telemetry: sightings.telemetry)
            }
        })
    }

    /// A broker's sightings, live from the start, without waiting for a first sighting: the
    /// beacons of a chain whose boxes are all silent still go missing after --silence. Blind
    /// until the broker is connected, and whenever it is lost.
    private func watchBroker(_ broker: BrokerInput, watch: AuditWatch, sinks: [any AuditEventSink]) async throws -> AuditStatusReport {
        try Self.value(of: await Self.untilSignal(stopWithin: StopDeadline.watchLimit) {
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
        try Self.value(of: await Self.untilSignal(stopWithin: StopDeadline.watchLimit) {
            try await watch.run(
                sightings, timing: timing, lostBeforehand: lostBeforehand, health: health, input: input, sinks: sinks, telemetry: telemetry)
        })
    }
}
