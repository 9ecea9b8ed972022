import ArgumentParser
import BeaconCore
import BeaconFleet
import BeaconMQTT
import FleetManifest
import HCI
import Logging

/// `beaconctl scan`: iBeacons on the air (or in a recording), ranged.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan for iBeacons and range them: identity, RSSI, filtered RSSI, distance and proximity.",
        discussion: """
            On a terminal the table is redrawn in place, nearest beacon first; otherwise (or \
            with --format jsonl) every sighting is written as one JSON line, the format \
            --input and `verify --input` read back (docs/sightings.md). Text output that is \
            not a terminal gets the table once, when the scan ends.
            Scanning is passive and continuous (window = interval = 100 ms), with duplicate \
            filtering off. Ctrl-C or SIGTERM stops it cleanly. Ranging is described in \
            docs/ranging.md; a receiver profile saved by `calibrate --walk` is used when present.
            --mqtt also publishes every sighting to a broker (docs/mqtt.md); --input \
            mqtt://HOST/PREFIX ranges what every receiver publishes there.
            Exit codes: 0 the scan ran (and was stopped); 1 the manifest has errors; 2 a usage \
            error or an unreadable --input; 3 the controller failed, or the broker refused or \
            did not acknowledge sightings.
            """)

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case text, jsonl
    }

    enum Family: String, CaseIterable, ExpressibleByArgument {
        case auto, legacy, extended

        var choice: ScanFamilyChoice {
            switch self {
            case .auto: return .auto
            case .legacy: return .legacy
            case .extended: return .extended
            }
        }
    }

    @OptionGroup var globals: GlobalOptions
    @OptionGroup(title: "Controller") var controller: HCIOptions

    @Option(help: ArgumentHelp("Only beacons with this proximity UUID.", valueName: "uuid"))
    var uuid: String?

    @Option(help: ArgumentHelp("Only this major (needs --uuid).", valueName: "major"))
    var major: Int?

    @Option(help: ArgumentHelp("Only this minor (needs --major).", valueName: "minor"))
    var minor: Int?

    @Option(help: ArgumentHelp("Name beacons by their id in these manifests (files or folders).", valueName: "path"))
    var manifest: [String] = []

    @OptionGroup(title: "Input") var sightingInput: SightingInputOptions

    var input: String? { sightingInput.input }

    @OptionGroup var runDuration: RunDurationOption
    var duration: Double? { runDuration.seconds }

    @Option(help: "Output: text (a table) or jsonl (one sighting per line). Default: text on a terminal, jsonl otherwise.")
    var format: Format?

    @OptionGroup(title: "Ranging") var rangingOptions: RangingProfileOptions

    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    /// Every sighting also published, stamped with Unix time.
    @OptionGroup var publishing: MQTTPublishOption
    var mqtt: String? { publishing.url }

    @Option(
        name: .customLong("publish-as"),
        help: ArgumentHelp(
            "With --mqtt: beaconctl (every sighting, docs/mqtt.md) or mqtt-room (each beacon's ranged distance on room_presence/RECEIVER, as Home Assistant's mqtt_room sensor reads it; docs/gateways.md).",
            valueName: "convention"))
    var publishAs: SightingPublishing.Convention = .beaconctl

    @Flag(help: "Also write the telemetry heard (Eddystone-TLM, KKM frames, gateways' battery fields) as telemetry lines among the JSON lines (--format jsonl) and publish them with --mqtt (docs/sightings.md). Off by default: readers before telemetry lines refuse them.")
    var telemetry = false

    @Flag(
        name: .customLong("unix-time"),
        help: "Stamp sightings with Unix time (seconds since 1970, UTC) instead of seconds since the scan started, so that many receivers' streams merge. Published sightings (--mqtt) always carry it.")
    var unixTime = false

    @Option(help: ArgumentHelp(
        "The receiver's name in every sighting. Default: HOST:CONTROLLER (e.g. store-12:hci0), stable across restarts and different between machines.",
        valueName: "name"))
    var receiver: String?

    @Option(help: "Scanning commands: auto (extended when the controller has LE feature bit 12), legacy or extended.")
    var family: Family = .auto

    @Option(help: ArgumentHelp("Scan interval in milliseconds (2.5 to 10240).", valueName: "ms"))
    var interval: Double?

    @Option(help: ArgumentHelp("Scan window in milliseconds, at most the interval (default: the interval).", valueName: "ms"))
    var window: Double?

    /// A year: longer scans run without --duration, until stopped.

    func validate() throws {
        if let uuid {
            do {
                _ = try ProximityUUID(parsing: uuid)
            } catch {
                throw ValidationError("--uuid \(uuid): \(error)")
            }
        }
        if major != nil && uuid == nil {
            throw ValidationError("--major needs --uuid: a region is a UUID, optionally narrowed by major, then by minor.")
        }
        if minor != nil && major == nil {
            throw ValidationError("--minor needs --major: a region narrows by minor only within a major (UUID, UUID+major, UUID+major+minor).")
        }
        for (name, value) in [("--major", major), ("--minor", minor)] {
            if let value, !(0...65_535).contains(value) {
                throw ValidationError("\(name) must be 0 to 65535; got \(value).")
            }
        }
        if publishAs != .beaconctl && mqtt == nil {
            throw ValidationError("--publish-as \(publishAs.rawValue) says how --mqtt publishes; add --mqtt mqtt://HOST/room_presence.")
        }
        if telemetry && format == .text && mqtt == nil {
            throw ValidationError("--telemetry adds telemetry lines to --format jsonl or to what --mqtt publishes; the text table shows telemetry without it.")
        }
        if telemetry && publishAs == .mqttRoom {
            throw ValidationError("--telemetry publishes telemetry lines in the beaconctl convention; --publish-as mqtt-room has no place for them.")
        }
        if let receiver, receiver.isEmpty || receiver.count > 128 {
            throw ValidationError("--receiver takes a name of 1 to 128 characters.")
        }
        if input != nil && unixTime {
            throw ValidationError("--unix-time stamps a live scan's sightings; a recording keeps the times it was recorded with.")
        }
        if input != nil {
            let controllerFlags = [
                controller.hci.map { _ in "--hci" }, controller.snoop.map { _ in "--snoop" },
                family != .auto ? "--family" : nil, interval.map { _ in "--interval" }, window.map { _ in "--window" },
            ].compactMap { $0 }
            if !controllerFlags.isEmpty {
                throw ValidationError("--input ranges a recording; \(controllerFlags.joined(separator: ", ")) drive\(controllerFlags.count == 1 ? "s" : "") a controller: pass one or the other.")
            }
        }
        _ = try scanTiming()
    }

    /// The scan interval and window from the options, checked.
    private func scanTiming() throws -> (interval: ScanInterval?, window: ScanInterval?) {
        func parse(_ milliseconds: Double?, _ name: String) throws -> ScanInterval? {
            guard let milliseconds else { return nil }
            do {
                let value = try ScanInterval(milliseconds: milliseconds)
                guard value.isLegacyCompatible else {
                    throw ValidationError("\(name) must be between 2.5 and 10240 ms; got \(milliseconds).")
                }
                return value
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("\(name) must be between 2.5 and 10240 ms; got \(milliseconds).")
            }
        }
        let interval = try parse(interval, "--interval")
        let window = try parse(window, "--window")
        let effectiveInterval = interval ?? (try? ScanInterval(milliseconds: ScanConfiguration.defaultMilliseconds))
        if let window, let effectiveInterval, window > effectiveInterval {
            throw ValidationError("--window (\(window)) must not be longer than the scan interval (\(effectiveInterval)).")
        }
        return (interval, window)
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("scan")
        let console = Console.current
        let logger = globals.makeLogger()
        let names = try loadManifestNames()
        let serving = try MetricsServing.start(metrics, command: "scan", logger: logger)
        defer { serving?.stop() }
        let outputFormat = format ?? (console.standardOutputIsTerminal ? .text : .jsonl)
        let spec = input == nil ? try controller.transportSpec(environment: console.environment).description : nil
        var ranging = try rangingOptions.configuration(receiver: spec, console: console, logger: logger)
        // HOST:CONTROLLER unless renamed: many receivers' streams merged still say who heard what.
        let receiverName = receiver ?? spec.map(ReceiverName.standard(controller:))
        if input != nil {
            // A recording is ranged as a whole: its last table lists every beacon heard in it.
            ranging.forgetAfter = .infinity
        }
        // JSON lines go to standard output as the run takes them; the table is drawn from it.
        let run = ScanRun(
            region: try region(), ranging: ranging,
            write: outputFormat == .jsonl ? Self.writeJSONLine : nil,
            writeTelemetry: outputFormat == .jsonl && telemetry ? Self.writeTelemetryLine : nil,
            publishesTelemetry: telemetry)
        let table = ScanTable(names: names, style: globals.style())
        let capture = input == nil ? try controller.openCapture() : nil
        defer { capture?.close() }
        let timing = try scanTiming()
        let family = self.family.choice
        let broker = try BrokerInput.open(sightingInput, role: "scan", environment: console.environment, logger: logger)
        let configure: (inout ScanConfiguration) -> Void = { configuration in
            configuration.family = family
            configuration.interval = timing.interval
            configuration.window = timing.window
            if let receiverName { configuration.receiver = receiverName }
        }
        do {
            // The scope stops and closes a live scan however the run ends.
            try await controller.withSource(input: input, broker: broker, capture: capture, logger: logger, configure: configure) { source in
                // A live scan counts from its start; the broker gets Unix time. A recording's
                // sightings go out on the clocks they were recorded on, each saying which.
                var wallClockOffset: Double?
                if case .live(let scan) = source { wallClockOffset = scan.unixTimeOffset() }
                let publisher = try mqtt.map { url throws(CommandFailure) in
                    do throws(BrokerSetupError) {
                        return try SightingPublishing.start(
                            url, receiver: input == nil ? receiverName : receiver, wallClockOffset: wallClockOffset, convention: publishAs,
                            environment: console.environment, logger: logger)
                    } catch {
                        throw CommandFailure(error)
                    }
                }
                var loss: ScanLoss?
                if case .live(let scan) = source { loss = ScanLoss(scan) }
                if let serving {
                    Self.registerMetrics(
                        serving, sightings: { run.sightingCount }, loss: loss, broker: broker?.metricsClients ?? [], publisher: publisher?.client)
                }
                try await consumeSource(source, run: run, table: table, outputFormat: outputFormat, publisher: publisher, loss: loss, logger: logger)
            }
        } catch {
            try await broker?.close()
            throw error
        }
        try await broker?.close()
    }

    /// Ranges the opened source to its end (a recording) or until stopped (a controller)
    /// with the run, and draws its table.
    private func consumeSource(
        _ source: SightingSource, run: ScanRun, table: ScanTable, outputFormat: Format, publisher: SightingPublishing?,
        loss: ScanLoss?, logger: Logger
    ) async throws {
        let console = Console.current
        switch source {
        case .recording(let recording):
            let path = input ?? "-"
            try await rangeRecording(recording, path: path, run: run, publisher: publisher, logger: logger)
            try await Self.finishPublishing(publisher, logger: logger)
            if outputFormat == .text {
                let time = run.latestTime ?? 0
                let header = "\(path == "-" ? "<stdin>" : path): \(Self.count(run.sightingCount, "sighting")) of "
                printFinalTable(run, table, at: time, header: header)
            }
        case .live(let scan):
            let live = outputFormat == .text && console.standardOutputIsTerminal
            do {
                try await scanController(
                    scan, run: run, table: table, live: live, textAtEnd: outputFormat == .text, publisher: publisher,
                    loss: loss ?? ScanLoss(scan), logger: logger)
            } catch {
                await publisher?.finish(logger: logger)
                throw error
            }
            try await Self.finishPublishing(publisher, logger: logger)
        }
    }

    /// `scan --metrics`: sightings read and (a live scan: `loss`) lost, and the broker clients.
    static func registerMetrics(
        _ serving: MetricsServing, sightings: @escaping @Sendable () -> Int, loss: ScanLoss?, broker: [MQTTClient],
        publisher: MQTTClient?
    ) {
        serving.registry.register("beaconctl_scan_sightings_total", help: "iBeacon sightings the scan read.", type: .counter) {
            Double(sightings())
        }
        if let loss {
            serving.registry.register(
                "beaconctl_scan_sightings_lost_total",
                help: "Sightings lost between the controller and the output: the scan's queues or the run's were full (this host could not keep up).",
                type: .counter
            ) {
                Double(loss.count)
            }
        }
        serving.registerBrokerClients(input: broker, publish: publisher)
    }

    /// Delivers what is left; sightings the broker did not take are a failure (exit 3).
    private static func finishPublishing(_ publisher: SightingPublishing?, logger: Logger) async throws {
        guard let publisher else { return }
        if !(await publisher.finish(logger: logger)) {
            throw CommandFailure(.controller, "not every sighting reached \(publisher.client.broker) (see above)")
        }
    }

    // MARK: A controller

    /// Runs the live scan (`ScanRun.rangeLive`) until --duration, Ctrl-C or SIGTERM, redrawing
    /// the live table twice a second meanwhile, then draws the final table.
    private func scanController(
        _ session: LiveScan, run: ScanRun, table: ScanTable, live: Bool, textAtEnd: Bool, publisher: SightingPublishing?,
        loss: ScanLoss, logger: Logger
    ) async throws {
        let console = Console.current
        let spec = session.controller
        let duration = self.duration
        let unixTime = self.unixTime
        let header = "Scanning \(spec) (\(session.family) scanning)"
        let display = ScanLiveDisplayBox()
        let redrawInterval = 0.5
        // Ctrl-C or SIGTERM cancels the scan like the end of --duration does: a normal end.
        let (end, _) = await TerminationSignals.cancellingOnSignal(onSignal: { signal in
            logger.info("stopping on \(TerminationSignals.name(of: signal))")
        }) {
            var lastFrame: Double?
            return await run.rangeLive(
                session, duration: duration, publisher: publisher, writesUnixTime: unixTime, tickEvery: redrawInterval,
                drops: loss.reading
            ) { now in
                guard live, lastFrame.map({ now - $0 >= redrawInterval }) ?? true else { return }
                lastFrame = now
                Console.current.write(display.frame(Self.frameLines(run, table, at: now, header: header)))
            }
        }
        let elapsed = end.elapsed
        logger.info("scan ended", metadata: ["hci": "\(spec)", "seconds": "\(ScanTable.decimal(elapsed, places: 1))", "counts": "\(end.counts)"])
        // Lost before the run (the scan's queue) and in it: one count, as the metric's.
        let lostCount = loss.count
        if lostCount > 0 {
            logger.warning("\(LossWording.reports(lostCount)) lost between the controller and the output (this host could not keep up): beacons may be missing from what was shown")
        }
        if live {
            let lines = Self.frameLines(run, table, at: elapsed, header: header)
            console.write(display.frame(lines) + display.finish())
        } else if textAtEnd {
            printFinalTable(run, table, at: elapsed, header: header + ", \(ScanTable.decimal(elapsed, places: 1)) s: \(Self.count(run.sightingCount, "sighting")) of ")
        }
        if let failure = end.failure {
            throw CommandFailure(.controller, "\(failure)")
        }
    }

    private static func frameLines(_ run: ScanRun, _ table: ScanTable, at time: Double, header: String) -> [String] {
        let beacons = run.snapshot(at: time)
        let title = header + ", \(ScanTable.decimal(time, places: 1)) s: \(count(beacons.count, "beacon"))"
        return [title, ""] + table.lines(beacons, at: time) + TelemetryText.lines(run.latestTelemetry(), style: table.style)
    }

    private func printFinalTable(_ run: ScanRun, _ table: ScanTable, at time: Double, header: String) {
        let beacons = run.snapshot(at: time)
        let console = Console.current
        console.line(header + Self.count(beacons.count, "beacon"))
        console.line()
        for line in table.lines(beacons, at: time) + TelemetryText.lines(run.latestTelemetry(), style: table.style) {
            console.line(line)
        }
    }

    // MARK: A recording

    /// Ranges a recording to its end, or to --duration of its own time; a broker's stream
    /// for --duration seconds of real time (`ScanRun.rangeRecording`). Ctrl-C or SIGTERM
    /// ends it normally, with what was read.
    private func rangeRecording(
        _ recording: SightingRecording, path: String, run: ScanRun, publisher: SightingPublishing?, logger: Logger
    ) async throws {
        let duration = self.duration
        let (outcome, _) = await TerminationSignals.cancellingOnSignal { () -> Result<Void, SightingStreamError> in
            do throws(SightingStreamError) {
                try await run.rangeRecording(recording, name: path, duration: duration, publisher: publisher, logger: logger)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = outcome {
            throw CommandFailure(.usageOrInput, error.description)
        }
    }

    // MARK: Options

    private func region() throws -> BeaconRegion? {
        guard let uuid else { return nil }
        let parsed = try ProximityUUID(parsing: uuid)
        return BeaconRegion(identifier: "scan", uuid: parsed, major: major.map(UInt16.init), minor: minor.map(UInt16.init))
    }

    private func loadManifestNames() throws -> [BeaconIdentity: String] {
        guard !manifest.isEmpty else { return [:] }
        let result = ManifestLoader.load(paths: manifest)
        try reportBlockingDiagnostics(result)
        return Dictionary(result.fleet.beacons.map { ($0.identity, $0.id) }) { first, _ in first }
    }

    /// One sighting to standard output, as `--format jsonl` writes it.
    @Sendable private static func writeJSONLine(_ sighting: Sighting) {
        Console.current.line(SightingJSONLines.encode(sighting))
    }

    /// One telemetry reading to standard output, as `--format jsonl --telemetry` writes it.
    @Sendable private static func writeTelemetryLine(_ reading: TelemetryReading) {
        Console.current.line(TelemetryJSONLines.encode(reading))
    }

    static func count(_ value: Int, _ noun: String) -> String {
        NumberText.count(value, noun)
    }
}

extension SightingPublishing.Convention: ExpressibleByArgument {}
