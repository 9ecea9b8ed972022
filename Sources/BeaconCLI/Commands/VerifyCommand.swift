import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest

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

    /// `--watch` and what applies only with it (`--silence`, `--exec`, `--mqtt`, `--state`, `--metrics` …).
    @OptionGroup var watchOptions: WatchOptions

    func validate() throws {
        if watchOptions.printSystemdTemplate {
            try watchOptions.checkSystemdTemplate(otherFlags: givenFlags)
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
        if watchOptions.watch {
            try watchOptions.checkWatch(timeout: timeout, requiredSightings: requiredSightings, reports: reports, input: sightingInput)
        } else {
            try watchOptions.checkWithoutWatch()
            try reports.checkReportFormat(command: "verify without --watch")
        }
    }

    /// The options of verify itself that were given, in the order of its help.
    private var givenFlags: [String] {
        [
            manifests.isEmpty ? nil : "the manifest \(manifests.joined(separator: " "))",
            venue.map { _ in "--venue" }, timeout.map { _ in "--timeout" }, requiredSightings.map { _ in "--required-sightings" },
            controller.hci.map { _ in "--hci" }, controller.snoop.map { _ in "--snoop" },
            controller.commandTimeout != 2 ? "--command-timeout" : nil,
            input.map { _ in "--input" }, sightingInput.gateways.isEmpty ? nil : "--gateway", reports.format.map { _ in "--format" },
            reports.reportFiles.isEmpty ? nil : "--report", reports.reportFormats.isEmpty ? nil : "--report-format",
        ].compactMap { $0 }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached(watchOptions.watch ? "verify --watch" : "verify")
        if watchOptions.printSystemdTemplate {
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

        if watchOptions.watch {
            // Home Assistant names a beacon's area after its venue, as the manifest names it.
            let venueNames = Dictionary(loaded.fleet.venues.compactMap { venue in venue.name.map { (venue.id, $0) } }, uniquingKeysWith: { first, _ in first })
            try await watchContinuously(plan: plan, venueNames: venueNames)
            return
        }
        let verification = OneShotVerification(
            plan: plan, requiredSightings: requiredSightings, timeout: timeout, stops: SignalStops(),
            observer: VerifyProgress(console: Console.current), logger: globals.makeLogger())
        let result: VerificationResult
        do {
            if let broker = try BrokerInput.open(sightingInput, role: "verify", environment: Console.current.environment, logger: globals.makeLogger()) {
                result = try await verification.verify(broker: broker)
            } else if let input {
                result = try await verification.verify(recording: input)
            } else {
                result = try await controller.scanning(logger: globals.makeLogger()) { try await verification.verify(scan: $0) }
            }
        } catch let failure as OneShotVerification.Failure {
            throw CommandFailure(failure)
        }
        try reports.emit(result, style: globals.style())
        if !result.passed {
            // Beacons the pass could not see are the input's failure, not theirs.
            throw (result.failedOnlyForBlindness ? ExitStatus.controller : ExitStatus.findings).exitCode
        }
    }
}
