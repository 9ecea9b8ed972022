import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest

/// `beaconctl provision`: advertise this host's beacons, prove them on the air from a
/// second controller, keep advertising.
struct ProvisionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provision",
        abstract: "Advertise this host's beacons and verify them, or (--hardware) write the manifest into battery beacons over Bluetooth.",
        discussion: """
            Validates the manifest, advertises the beacons whose host: is --host on --hci, listens on \
            --verify-hci until every one of them is decided (expecting, for measured_power: auto, the \
            value the advertiser computed), prints the verification report, then keeps the beacons on \
            the air until SIGINT or SIGTERM, or stops at once with --once.

            Exit codes: the verification's, 0 when every beacon is ok, 1 otherwise (or a manifest with \
            errors); 2 usage errors; 3 when a controller fails. See docs/verify.md.

            With --hardware: scans on --hci, matches the manifest's battery beacons (no host:) by mac: \
            (or --assign nearest), and for each connects, tries the password once, reads, writes only \
            what differs, reads back, sets the new password last, then hears the beacons on the air. \
            Passwords come from --password-file / --new-password-file or BEACONCTL_BEACON_PASSWORD / \
            BEACONCTL_BEACON_NEW_PASSWORD, never the command line. Exit 0 when every beacon is \
            provisioned or already correct and verified, 1 otherwise, 2 usage, 3 controller. See \
            docs/provisioning.md.
            """)

    @OptionGroup var globals: GlobalOptions

    @Argument(help: "Manifest files or folders. A folder is one namespace: every .yaml/.yml file in it, recursively.")
    var manifests: [String] = []

    @OptionGroup(title: "Advertising controller") var controller: HCIOptions

    @OptionGroup var listening: ListeningControllerOption

    @OptionGroup(title: "Battery beacons (--hardware)") var hardware: HardwareProvisionOptions

    @Option(help: ArgumentHelp("The host whose beacons to provision (default: this machine's host name).", valueName: "name"))
    var host: String?

    @Flag(help: "Take the beacons off the air after the report instead of advertising until stopped.")
    var once = false

    @Option(help: "Advertising family: auto (extended when the controller has it), legacy or extended.")
    var family: AdvertiseFamilyOption = .auto

    @Option(help: ArgumentHelp("Seconds to listen before beacons not yet decided are judged.", valueName: "seconds"))
    var timeout: Double = OneShotVerification.liveTimeout.instantSeconds
    /// `--timeout` once `validate` accepted it (`nil`: `inf`, to the end).
    var listeningTime: Duration? { SecondsFlag.duration(timeout) }

    @Option(
        name: .customLong("required-sightings"),
        help: ArgumentHelp("Receptions of a beacon needed before it is judged.", valueName: "count"))
    var requiredSightings = 3

    @OptionGroup(title: "Reports") var reports: VerifyReportOptions

    func validate() throws {
        if manifests.isEmpty {
            throw ValidationError("Name the manifest to provision, e.g. `beaconctl provision fleets/ --hci hci0 --verify-hci hci1`.")
        }
        if hardware.hardware {
            try hardware.check(verifyHCI: listening.verifyHCI, once: once, host: host, reports: reports)
            return
        }
        try hardware.checkUnused()
        try reports.checkReportFormat(command: "provision")
        try listening.check(advertisingOn: controller.hci)
        try SecondsFlag.check(timeout, "--timeout", allowingInfinity: true)
        if requiredSightings < 1 {
            throw ValidationError("--required-sightings must be at least 1; got \(requiredSightings).")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("provision")
        let console = Console.current
        let loaded = ManifestLoader.load(paths: manifests)
        try reportBlockingDiagnostics(loaded)
        if hardware.hardware {
            try await runHardware(loaded.fleet)
            return
        }
        let listeningSpec = try listening.spec()
        guard let hostName = host ?? ManifestBeaconSelection.thisHost() else {
            throw CommandFailure(.usageOrInput, "cannot read this machine's host name; pass --host NAME")
        }
        let advertising = try controller.transportSpec(environment: console.environment)
        let capture = try controller.openCapture()
        defer { capture?.close() }

        let policy = VerificationPolicy(requiredSightings: requiredSightings, timeout: listeningTime)
        let provisioner = BeaconProvisioner(
            configuration: ProvisionConfiguration(
                fleet: loaded.fleet, host: hostName, advertisingController: advertising, listeningController: listeningSpec,
                policy: policy, family: family.choice, commandTimeout: controller.timeout),
            logger: globals.makeLogger(), platform: controller.platform, capture: capture)
        let printer = ProvisionEventPrinter(
            console: console, reports: reports, style: globals.style(), errorStyle: globals.style(forStandardError: true),
            timeout: listeningTime, once: once)

        let (outcome, _) = await TerminationSignals.cancellingOnSignal(onSignal: { signal in
            printer.noteSignal(TerminationSignals.name(of: signal))
        }) { () -> Result<VerificationResult, ProvisionError> in
            do throws(ProvisionError) {
                return .success(try await provisioner.run(once: once) { printer.print($0) })
            } catch {
                return .failure(error)
            }
        }
        if let failure = printer.reportFailure { throw failure }
        switch outcome {
        case .success(let result):
            if !result.passed { throw ExitStatus.findings.exitCode }
        case .failure(let error):
            throw ProvisionFailures.failure(for: error)
        }
    }
}
