import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
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

    @OptionGroup var globals: GlobalOptions
    @OptionGroup(title: "Controller") var controller: HCIOptions

    @OptionGroup var regionOptions: ScanRegionOptions

    @Option(help: ArgumentHelp("Name beacons by their id in these manifests (files or folders).", valueName: "path"))
    var manifest: [String] = []

    @OptionGroup(title: "Input") var sightingInput: SightingInputOptions

    var input: String? { sightingInput.input }

    @OptionGroup var runDuration: RunDurationOption
    var duration: Duration? { runDuration.duration }

    @Option(help: "Output: text (a table) or jsonl (one sighting per line). Default: text on a terminal, jsonl otherwise.")
    var format: Format?

    @OptionGroup(title: "Ranging") var rangingOptions: RangingProfileOptions

    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    @OptionGroup var publishingOptions: ScanPublishingOptions
    var mqtt: String? { publishingOptions.mqtt }

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

    @OptionGroup var timing: ScanTimingOptions

    func validate() throws {
        if telemetry && format == .text && mqtt == nil {
            throw ValidationError("--telemetry adds telemetry lines to --format jsonl or to what --mqtt publishes; the text table shows telemetry without it.")
        }
        if telemetry && publishingOptions.publishAs == .mqttRoom {
            throw ValidationError("--telemetry publishes telemetry lines in the beaconctl convention; --publish-as mqtt-room has no place for them.")
        }
        if let receiver, receiver.isEmpty || receiver.count > 128 {
            throw ValidationError("--receiver takes a name of 1 to 128 characters.")
        }
        if input != nil && unixTime {
            throw ValidationError("--unix-time stamps a live scan's sightings; a recording keeps the times it was recorded with.")
        }
        if input != nil {
            let controllerFlags = controller.givenFlags + timing.givenFlags
            if !controllerFlags.isEmpty {
                throw ValidationError("--input ranges a recording; \(controllerFlags.joined(separator: ", ")) drive\(controllerFlags.count == 1 ? "s" : "") a controller: pass one or the other.")
            }
        }
        _ = try timing.configure()
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("scan")
        let console = Console.current
        let logger = globals.makeLogger()
        let names = try ScanRegionOptions.beaconNames(in: manifest)
        let serving = try MetricsServing.start(metrics, command: "scan", logger: logger)
        defer { serving?.stop() }
        let outputFormat = format ?? (console.standardOutputIsTerminal ? .text : .jsonl)
        let spec = input == nil ? try controller.transportSpec(environment: console.environment).description : nil
        var ranging = try rangingOptions.configuration(receiver: spec, console: console, logger: logger)
        // HOST:CONTROLLER unless renamed: many receivers' streams merged still say who heard what.
        let receiverName = receiver ?? spec.map(ReceiverName.standard(controller:))
        // A recording is ranged as a whole: its last table lists every beacon heard in it.
        if input != nil { ranging.forgetAfter = nil }
        // JSON lines go to standard output as the run takes them; the table is drawn from it.
        let run = ScanRun(
            region: try regionOptions.region(), ranging: ranging, write: outputFormat == .jsonl ? ScanOutput.writeJSONLine : nil,
            writeTelemetry: outputFormat == .jsonl && telemetry ? ScanOutput.writeTelemetryLine : nil, publishesTelemetry: telemetry)
        let capture = input == nil ? try controller.openCapture() : nil
        defer { capture?.close() }
        let configure = try timing.configure(receiver: receiverName)
        // A live scan's sightings are published under its receiver name; a recording's keep theirs unless --receiver.
        let publishing = publishingOptions.request(receiver: input == nil ? receiverName : receiver, environment: console.environment)
        try await BrokerInput.reading(sightingInput, role: "scan", environment: console.environment, logger: logger) { broker in
            let output = ScanOutput(
                run: run, table: ScanTable(names: names, style: globals.style()), path: input ?? "-",
                drawsLive: outputFormat == .text && console.standardOutputIsTerminal, drawsAtEnd: outputFormat == .text,
                serving: serving, broker: broker, logger: logger)
            // The scope stops and closes a live scan however the run ends; Ctrl-C or SIGTERM
            // ends the reading like the end of --duration does: a normal end.
            try await controller.withSource(input: input, broker: broker, capture: capture, logger: logger, configure: configure) { source in
                do throws(ScanFailure) {
                    try await run.range(
                        source, named: input ?? "-", duration: duration, publishing: publishing, writesUnixTime: unixTime,
                        tickEvery: ScanOutput.redrawInterval, stops: SignalStops(logger: input == nil ? logger : nil),
                        observer: output, logger: logger)
                } catch {
                    throw CommandFailure(error)
                }
            }
        }
    }
}
