import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import HCI
import BeaconMQTT
import Logging

/// `beaconctl monitor`: region monitoring as CoreLocation defines it, on Linux.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Monitor beacon regions: enter, exit and state events, optionally with ranging inside them.",
        discussion: """
            Regions come from the manifest's `regions:` (--manifest) and from --region \
            ID=UUID[/MAJOR[/MINOR]]; absent values are wildcards. A region is entered after \
            --min-sightings matching sightings, and left only when no matching beacon has been \
            heard for --exit-period seconds (default 30), so a lost packet never makes it flap. \
            `state` events answer --state-every and SIGUSR1 with every region's state.
            Output: JSON lines (one event per line) or, on a terminal, a readable log. --exec \
            runs a program on every event with the event in BEACONCTL_* environment variables \
            (never through a shell). --range uses the receiver profile `calibrate --walk` saved, \
            if any (docs/ranging.md). --input mqtt://HOST/PREFIX monitors every receiver publishing \
            to a broker; --mqtt publishes the events to one (docs/mqtt.md). Details in \
            docs/monitoring.md.
            Exit codes: 0 monitoring ran (and was stopped); 1 the manifest has errors; 2 a usage \
            error or an unreadable --input; 3 the controller failed, or the broker (--mqtt) \
            refused or did not acknowledge every event.
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup(title: "Controller") var controller: HCIOptions

    @Option(help: ArgumentHelp("Monitor the regions of these manifests (files or folders), and name beacons by their id.", valueName: "path"))
    var manifest: [String] = []

    @Option(help: ArgumentHelp("A region to monitor: ID=UUID, ID=UUID/MAJOR or ID=UUID/MAJOR/MINOR (repeatable).", valueName: "region"))
    var region: [String] = []

    @Flag(help: "For --region regions: do not report entering them.")
    var noNotifyEntry = false

    @Flag(help: "For --region regions: do not report leaving them.")
    var noNotifyExit = false

    @Flag(help: "For --region regions: report inside/outside as soon as it is known after monitoring starts.")
    var notifyStateOnStart = false

    @Option(help: ArgumentHelp("Seconds without a matching beacon before a region is left.", valueName: "seconds"))
    var exitPeriod: Double = 30

    @Option(help: ArgumentHelp("Matching sightings needed to enter a region.", valueName: "count"))
    var minSightings: Int = 1

    @Option(help: ArgumentHelp("Report every region's state this often (SIGUSR1 asks at any time).", valueName: "seconds"))
    var stateEvery: Double?

    @Flag(help: "Range the beacons of the regions the device is inside, nearest first.")
    var range = false

    @Option(help: ArgumentHelp("How often to report ranging, with --range.", valueName: "seconds"))
    var rangeEvery: Double = 1

    @OptionGroup(title: "Ranging (with --range)") var rangingOptions: RangingProfileOptions

    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    @OptionGroup var execHook: ExecHookOption
    var exec: String? { execHook.command }

    @OptionGroup(title: "Input") var sightingInput: SightingInputOptions

    var input: String? { sightingInput.input }

    @OptionGroup var runDuration: RunDurationOption
    var duration: Double? { runDuration.seconds }

    @Option(help: "Output: text (a log) or jsonl. Default: text on a terminal, jsonl otherwise.")
    var format: MonitorOutput.Format?

    /// Every event also published (PREFIX/monitor/events, each region's latest state
    /// retained on PREFIX/monitor/regions/ID).
    @OptionGroup var publishing: MQTTPublishOption
    var mqtt: String? { publishing.url }

    func validate() throws {
        if region.isEmpty && manifest.isEmpty {
            throw ValidationError("no regions: give --region ID=UUID[/MAJOR[/MINOR]] or --manifest with a `regions:` list.")
        }
        for text in region { _ = try MonitorRegionOption.parse(text) }
        try SecondsFlag.check(exitPeriod, "--exit-period")
        guard minSightings >= 1 else { throw ValidationError("--min-sightings must be at least 1; got \(minSightings).") }
        if !range {
            let rangingFlags = [
                rangingOptions.profile.map { _ in "--profile" }, rangingOptions.noProfile ? "--no-profile" : nil,
                rangingOptions.pathLossExponent.map { _ in "--path-loss-exponent" },
            ].compactMap { $0 }
            if !rangingFlags.isEmpty {
                throw ValidationError("\(rangingFlags.joined(separator: ", ")) choose\(rangingFlags.count == 1 ? "s" : "") how --range estimates distances; add --range or leave \(rangingFlags.count == 1 ? "it" : "them") out.")
            }
        }
        // Periodic reports: a period below a millisecond would only flood the output.
        for (name, value) in [("--state-every", stateEvery), ("--range-every", rangeEvery)] {
            try SecondsFlag.check(value, name)
            if let value, value < MonitorSchedule.shortestPeriod {
                throw ValidationError("\(name) must be at least \(MonitorSchedule.shortestPeriod) s; got \(value).")
            }
        }
        if input != nil {
            let controllerFlags = [controller.hci.map { _ in "--hci" }, controller.snoop.map { _ in "--snoop" }].compactMap { $0 }
            if !controllerFlags.isEmpty {
                throw ValidationError("--input monitors a recording; \(controllerFlags.joined(separator: ", ")) drive\(controllerFlags.count == 1 ? "s" : "") a controller: pass one or the other.")
            }
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("monitor")
        let console = Console.current
        let logger = globals.makeLogger()
        let (regions, names) = try loadRegions()
        let serving = try MetricsServing.start(self.metrics, command: "monitor", logger: logger)
        defer { serving?.stop() }
        let hook = exec.flatMap { MonitorEventHook(command: $0, environment: console.environment, logger: logger) }
        let localOutput = MonitorOutput(
            format: format ?? (console.standardOutputIsTerminal ? .text : .jsonl), names: names, hook: hook)
        let publishing = try mqtt.map { url throws(CommandFailure) in
            do throws(BrokerSetupError) {
                return try ReportPublishing.start(url, role: "monitor", what: "region events", environment: console.environment, logger: logger)
            } catch {
                throw CommandFailure(error)
            }
        }
        if let publishing { logger.notice("publishing every event to \(publishing.client.broker) (\(publishing.topics.monitorEvents))") }
        let metricsSink = serving.map { MonitorMetricsSink($0, regions: regions) }
        serving?.registerBrokerClients(input: [], publish: publishing?.client)
        var sinks: [any MonitorReportSink] = [localOutput]
        if let publishing { sinks.append(MQTTMonitorSink(client: publishing.client, topics: publishing.topics)) }
        if let metricsSink { sinks.append(metricsSink) }
        let output = MonitorReportSinks(sinks)
        let configuration = RegionMonitor.Configuration(exitPeriod: exitPeriod, minimumSightingsForEntry: minSightings)
        let ranging = range
            ? try rangingOptions.configuration(
                receiver: input == nil ? try controller.transportSpec(environment: console.environment).description : nil,
                console: console, logger: logger)
            : nil
        logger.info("monitoring", metadata: ["regions": "\(regions.map(\.region.description).joined(separator: ", "))"])
        do {
            if let input {
                let broker = try BrokerInput.open(sightingInput, role: "monitor", environment: console.environment, logger: logger)
                do {
                    try await monitorRecording(
                        input, broker: broker, regions: regions, configuration: configuration,
                        ranging: ranging, output: output, logger: logger)
                } catch {
                    try await broker?.close()
                    throw error
                }
                try await broker?.close()
            } else {
                let run = MonitorRun(
                    session: MonitorSession(regions: regions, configuration: configuration, ranging: ranging, start: 0),
                    schedule: MonitorSchedule(stateEvery: stateEvery, rangeEvery: ranging == nil ? nil : rangeEvery),
                    output: output, logger: logger)
                try await monitorController(run: run, logger: logger)
            }
        } catch {
            await hook?.finish(stopping: true)
            _ = await publishing?.finish(logger: logger)
            throw error
        }
        await hook?.finish()
        if let publishing, !(await publishing.finish(logger: logger)) {
            throw CommandFailure(.controller, "not every event reached \(publishing.client.broker) (see above)")
        }
    }

    // MARK: Regions

    private func loadRegions() throws -> (regions: [MonitoredRegion], names: [BeaconIdentity: String]) {
        var regions: [MonitoredRegion] = []
        var names: [BeaconIdentity: String] = [:]
        if !manifest.isEmpty {
            let result = ManifestLoader.load(paths: manifest)
            try reportBlockingDiagnostics(result)
            regions += result.fleet.regions.map(MonitoredRegion.init)
            names = Dictionary(result.fleet.beacons.map { ($0.identity, $0.id) }) { first, _ in first }
            if result.fleet.regions.isEmpty && region.isEmpty {
                throw CommandFailure(.usageOrInput, "\(manifest.joined(separator: ", ")) has no `regions:`; add some (docs/manifest.md) or give --region")
            }
        }
        for text in region {
            regions.append(MonitoredRegion(
                region: try MonitorRegionOption.parse(text), notifyOnEntry: !noNotifyEntry,
                notifyOnExit: !noNotifyExit, notifyStateOnStart: notifyStateOnStart))
        }
        var seen: Set<String> = []
        for monitored in regions where !seen.insert(monitored.region.identifier).inserted {
            throw CommandFailure(.usageOrInput, "two regions are called `\(monitored.region.identifier)`; events name regions by identifier, so give each its own")
        }
        return (regions, names)
    }

    // MARK: A recording

    /// Replays a recording, or follows a broker's stream, on one clock (`MonitorReplay`):
    /// a broker's stream is live, so its clock also follows the wall clock between sightings.
    private func monitorRecording(
        _ path: String, broker: BrokerInput?, regions: [MonitoredRegion], configuration: RegionMonitor.Configuration,
        ranging: RangingConfiguration?, output: any MonitorReportSink, logger: Logger
    ) async throws {
        let replay = MonitorReplay(
            session: { start in MonitorSession(regions: regions, configuration: configuration, ranging: ranging, start: start) },
            schedule: MonitorSchedule(stateEvery: stateEvery, rangeEvery: ranging == nil ? nil : rangeEvery),
            duration: duration, output: output, logger: logger)
        let heardAny: Bool
        do {
            heardAny = try await TerminationSignals.cancellingOnInterrupt {
                do {
                    let recording = if let broker { broker.sightings } else { try await SightingRecording.open(path: path) }
                    return try await replay.run(recording, named: path, followsWallClock: broker != nil)
                } catch let error as SightingStreamError {
                    throw CommandFailure(.usageOrInput, error.description)
                }
            }
        } catch is TerminationSignals.Interrupted {
            // Ctrl-C or SIGTERM: what was read was monitored; a normal end.
            return
        }
        if !heardAny {
            logger.warning("\(broker?.name ?? (path == "-" ? "<stdin>" : path)) holds no sightings; nothing to monitor")
        }
    }

    // MARK: A controller

    private func monitorController(run: MonitorRun, logger: Logger) async throws {
        let duration = self.duration
        let (lostCount, failure) = try await controller.scanning(logger: logger) { session -> (Int, (any Error)?) in
            var failure: (any Error)?
            // Reports lost before monitoring (the scan's) and in its own queue: one count.
            let dropped = DropCounter()
            do {
                try await TerminationSignals.cancellingOnInterrupt {
                    try await MonitorLiveLoop.run(session, monitor: run, duration: duration, drops: dropped, logger: logger)
                }
            } catch is TerminationSignals.Interrupted {
                // Ctrl-C or SIGTERM: a normal end.
            } catch {
                failure = error
            }
            // Stopped here, not at the end of the scope: what was lost is known once it has.
            await session.close()
            return (session.lostCount + dropped.value, failure)
        }
        if lostCount > 0 {
            logger.warning("\(LossWording.reports(lostCount)) lost between the controller and monitoring (this host could not keep up): an exit may have come from lost reports rather than silence")
        }
        if let failure { throw CommandFailure(.controller, ExitStatus.message(for: failure)) }
    }
}
