import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import Foundation

/// `beaconctl advertise`: become one or many iBeacons until stopped.
struct AdvertiseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advertise",
        abstract: "Become one or many iBeacons: from flags, or the beacons a manifest assigns to this host.",
        discussion: """
            Runs until SIGINT (Ctrl-C) or SIGTERM, or for --duration, then takes every beacon off the \
            air. On start it prints what the controller accepted: interval, TX power, measured power and \
            address of each beacon.

            Controllers with LE Extended Advertising (Bluetooth 5) get one advertising set per beacon, \
            all on the air at once; older ones advertise several beacons in rotation, and the effective \
            interval of each is the slot times the number of beacons. Exclusive transports are reset \
            first; the kernel's shared hci0 never is.

            Exit codes: 0 after a clean stop; 1 when the manifest has errors; 2 for usage or input \
            errors; 3 when the controller or its link fails. See docs/advertising.md.
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup(title: "Controller") var controller: HCIOptions
    @OptionGroup(title: "One beacon from flags") var beacon: AdvertiseBeaconOptions
    @OptionGroup(title: "Beacons from a manifest") var manifest: AdvertiseManifestOptions
    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    @OptionGroup var runDuration: RunDurationOption
    var duration: Double? { runDuration.seconds }

    @Flag(help: "When the beacons go off the air (hardware error, controller reset, dropped link), bring them back, with backoff.")
    var restart = false

    @Option(help: "Advertising family: auto (extended when the controller has it), legacy or extended.")
    var family: AdvertiseFamilyOption = .auto

    @Option(
        name: .customLong("rotation-slot-ms"),
        help: ArgumentHelp("Legacy rotation: how long each beacon keeps the air (default: one advertising interval).", valueName: "ms"))
    var rotationSlotMilliseconds: Double?

    @Option(help: "Output: text (for people) or json (one JSON object per line and event).")
    var format: AdvertiseFormat = .text

    @Flag(help: "Print a systemd unit that runs this same command as a service, and exit.")
    var printSystemdUnit = false

    @Flag(help: """
        Print the template unit beaconctl-advertise@.service, whose instance NAME advertises this host's beacons \
        of /etc/beaconctl/NAME.yaml, and exit.
        """)
    var printSystemdTemplate = false

    func validate() throws {
        if printSystemdTemplate {
            if printSystemdUnit {
                throw ValidationError("--print-systemd-unit and --print-systemd-template each print a unit; pass one of them.")
            }
            if beacon.isAnyGiven || manifest.isAnyGiven {
                throw ValidationError(
                    "--print-systemd-template takes this host's beacons from /etc/beaconctl/NAME.yaml, NAME being the "
                        + "instance; drop the beacon and manifest flags.")
            }
        }
        if beacon.isAnyGiven && manifest.isAnyGiven {
            throw ValidationError(
                "\(beacon.givenFlags.joined(separator: ", ")) describe one beacon and --manifest takes beacons from a "
                    + "manifest; use one or the other.")
        }
        if !beacon.isAnyGiven && !manifest.isAnyGiven && !printSystemdTemplate {
            throw ValidationError(
                "say what to advertise: --uuid UUID --major N --minor N, or --manifest PATH (with --beacon ID, --host NAME or --all).")
        }
        if beacon.isAnyGiven { _ = try beacon.request() }
        if let slot = rotationSlotMilliseconds, !(slot.isFinite && slot >= 20 && slot <= 60_000) {
            throw ValidationError("--rotation-slot-ms \(NumberText.plain(slot)) is outside 20 to 60000 ms.")
        }
        if rotationSlotMilliseconds != nil && family == .extended {
            throw ValidationError("--rotation-slot-ms applies to legacy rotation; extended advertising puts every beacon on the air at once.")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("advertise")
        let console = Console.current
        if printSystemdUnit || printSystemdTemplate {
            console.write(AdvertiseSystemdUnit(command: self, isTemplate: printSystemdTemplate).text())
            return
        }
        let spec = try controller.transportSpec(environment: console.environment)
        let requests = try AdvertiseRequests.load(beacon: beacon, manifest: manifest, errorStyle: globals.style(forStandardError: true))
        let capture = try controller.openCapture()
        defer { capture?.close() }
        let serving = try MetricsServing.start(metrics, command: "advertise", logger: globals.makeLogger())
        defer { serving?.stop() }
        let advertising = serving.map(AdvertiseMetrics.init)

        let configuration = AdvertiserConfiguration(
            requests: requests, family: family.choice,
            rotationSlot: rotationSlotMilliseconds.flatMap { SecondsFlag.duration($0 / 1000) },
            restart: restart ? RestartPolicy() : nil, commandTimeout: controller.timeout,
            duration: duration.flatMap(SecondsFlag.duration))
        let advertiser = BeaconAdvertiser(
            connection: controller.connection(spec, capture: capture), configuration: configuration, logger: globals.makeLogger())
        let printer = AdvertiseEventPrinter(
            format: format, console: console, style: globals.style(), errorStyle: globals.style(forStandardError: true),
            duration: duration)

        let (outcome, _) = await TerminationSignals.cancellingOnSignal(onSignal: { signal in
            printer.noteSignal(TerminationSignals.name(of: signal))
        }) { () -> Result<StopReason, AdvertisingError> in
            do throws(AdvertisingError) {
                return .success(try await advertiser.run { event in
                    printer.print(event)
                    advertising?.note(event)
                })
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success:
            return
        case .failure(let error):
            if case .invalidRequest = error { throw CommandFailure(.usageOrInput, error.description) }
            throw CommandFailure(.controller, error.description)
        }
    }
}
