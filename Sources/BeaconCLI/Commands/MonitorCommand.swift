import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
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
    var duration: Duration? { runDuration.duration }

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
        if !range { try rangingOptions.checkUnused(by: "--range") }
        // Periodic reports: a period below a millisecond would only flood the output.
        try SecondsFlag.checkPeriod(stateEvery, "--state-every", atLeast: MonitorSchedule.shortestPeriod)
        try SecondsFlag.checkPeriod(rangeEvery, "--range-every", atLeast: MonitorSchedule.shortestPeriod)
        if input != nil {
            let controllerFlags = controller.givenFlags
            if !controllerFlags.isEmpty {
                throw ValidationError("--input monitors a recording; \(controllerFlags.joined(separator: ", ")) drive\(controllerFlags.count == 1 ? "s" : "") a controller: pass one or the other.")
            }
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("monitor")
        let console = Console.current
        let logger = globals.makeLogger()
        let (regions, names) = try MonitorRegionOption.load(
            manifest: manifest, regions: region, notifyOnEntry: !noNotifyEntry, notifyOnExit: !noNotifyExit,
            notifyStateOnStart: notifyStateOnStart)
        let serving = try MetricsServing.start(self.metrics, command: "monitor", logger: logger)
        defer { serving?.stop() }
        let hook = exec.flatMap { MonitorEventHook(command: $0, environment: console.environment, logger: logger) }
        let local = MonitorOutput(format: format ?? (console.standardOutputIsTerminal ? .text : .jsonl), names: names, hook: hook)
        let ranging = range
            ? try rangingOptions.configuration(
                receiver: input == nil ? try controller.transportSpec(environment: console.environment).description : nil,
                console: console, logger: logger)
            : nil
        let monitoring = RegionMonitoring(
            // `validate` took each of these seconds (finite, positive, at most the longest
            // accepted): each is a duration; the fallbacks are what an absent one would mean.
            regions: regions,
            configuration: RegionMonitor.Configuration(
                exitPeriod: SecondsFlag.duration(exitPeriod) ?? .longestAccepted, minimumSightingsForEntry: minSightings),
            ranging: ranging, stateEvery: stateEvery.flatMap(SecondsFlag.duration),
            rangeEvery: SecondsFlag.duration(rangeEvery) ?? .longestAccepted, duration: duration, logger: logger)
        do {
            try await monitoring.reporting(
                to: MonitorReporting(local: local, hook: hook, serving: serving, regions: regions),
                publishing: mqtt.map { RegionMonitoring.PublishingRequest(url: $0, environment: console.environment) }
            ) { output in
                if let input {
                    // Ctrl-C or SIGTERM: what was read was monitored; a normal end.
                    try await BrokerInput.reading(sightingInput, role: "monitor", environment: console.environment, logger: logger) { broker in
                        try await monitoring.replay(input, broker: broker, output: output, stops: SignalStops())
                    }
                } else {
                    let end = try await controller.scanning(logger: logger) { scan in
                        await monitoring.live(scan, output: output, stops: SignalStops(), stateRequests: SignalStateRequests(logger: logger))
                    }
                    if end.lostCount > 0 { logger.warning("\(LossWording.monitorLost(end.lostCount))") }
                    if let failure = end.failure { throw CommandFailure(.controller, ExitStatus.message(for: failure)) }
                }
            }
        } catch let failure as MonitorFailure {
            throw CommandFailure(failure)
        }
    }
}
