import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import HCI
import HCITransports
import Synchronization

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

    @Option(
        name: .customLong("verify-hci"),
        help: ArgumentHelp("The controller that listens: a second one, since a controller does not hear its own advertising.", valueName: "spec"))
    var verifyHCI: String?

    @OptionGroup(title: "Battery beacons (--hardware)") var hardware: HardwareProvisionOptions

    @Option(help: ArgumentHelp("The host whose beacons to provision (default: this machine's host name).", valueName: "name"))
    var host: String?

    @Flag(help: "Take the beacons off the air after the report instead of advertising until stopped.")
    var once = false

    @Option(help: "Advertising family: auto (extended when the controller has it), legacy or extended.")
    var family: AdvertiseFamilyOption = .auto

    @Option(help: ArgumentHelp("Seconds to listen before beacons not yet decided are judged.", valueName: "seconds"))
    var timeout: Double = VerifyCommand.liveTimeout

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
            try hardware.check(verifyHCI: verifyHCI, once: once, host: host, reports: reports)
            return
        }
        try hardware.checkUnused()
        try reports.checkReportFormat(command: "provision")
        guard let verifyHCI else {
            throw ValidationError("Missing expected argument '--verify-hci <spec>' (or pass --hardware to write battery beacons).")
        }
        let listening: HCITransportSpec
        do {
            listening = try HCITransportSpec(parsing: verifyHCI)
        } catch {
            throw ValidationError("--verify-hci: \(error.advisedMessage)")
        }
        if let hci = controller.hci, let advertising = try? HCITransportSpec(parsing: hci),
            advertising.isSameController(as: listening)
        {
            throw ValidationError("--hci and --verify-hci name the same controller (\(listening)); a controller does not hear its own advertising: listen with a second one.")
        }
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
        guard let verifyHCI else { throw CommandFailure(.usageOrInput, "--verify-hci is required without --hardware") }
        guard let hostName = host ?? ManifestBeaconSelection.thisHost() else {
            throw CommandFailure(.usageOrInput, "cannot read this machine's host name; pass --host NAME")
        }
        let advertising = try controller.transportSpec(environment: console.environment)
        let listening = try HCITransportSpec(parsing: verifyHCI)
        let capture = try controller.openCapture()
        defer { capture?.close() }

        let policy = VerificationPolicy(requiredSightings: requiredSightings, timeout: timeout)
        let provisioner = BeaconProvisioner(
            configuration: ProvisionConfiguration(
                fleet: loaded.fleet, host: hostName, advertisingController: advertising, listeningController: listening,
                policy: policy, family: family.choice, commandTimeout: controller.timeout),
            logger: globals.makeLogger(),
            openAdvertisingTransport: controller.connection(advertising, capture: capture).opener)
        let printer = ProvisionEventPrinter(
            console: console, reports: reports, style: globals.style(), errorStyle: globals.style(forStandardError: true),
            timeout: timeout, once: once)

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
            throw Self.failure(for: error)
        }
    }

    static func failure(for error: ProvisionError) -> CommandFailure {
        switch error {
        case .plan(let message):
            return CommandFailure(.usageOrInput, message)
        case .advertising(.invalidRequest(let message)):
            return CommandFailure(.usageOrInput, message)
        case .advertising, .scanning:
            return CommandFailure(.controller, error.description)
        case .stoppedBeforeStart:
            return CommandFailure(.findings, "stopped before the beacons were on the air: nothing was verified")
        }
    }
}

extension HCITransportSpec {
    /// Whether both specs reach one physical controller: the same kernel device (on either
    /// channel) or the same serial port. A TCP server (RootCanal hands out a new controller
    /// per connection) and the virtual radio may give two.
    fileprivate func isSameController(as other: HCITransportSpec) -> Bool {
        switch (self, other) {
        case (.kernelSocket(let first), .kernelSocket(let second)),
            (.kernelSocket(let first), .kernelUserChannel(let second)),
            (.kernelUserChannel(let first), .kernelSocket(let second)),
            (.kernelUserChannel(let first), .kernelUserChannel(let second)):
            return first == second
        case (.serial(let first, _, _), .serial(let second, _, _)):
            return first == second
        default:
            return false
        }
    }
}

/// What `provision` shows while it runs: advertiser and verification news on standard
/// error, the report on standard output (and in the report files) once it is in.
final class ProvisionEventPrinter: Sendable {
    private let console: Console
    private let reports: VerifyReportOptions
    private let style: Style
    private let errorStyle: Style
    private let once: Bool
    private let progress: VerifyProgressLine
    private let failure = Mutex<CommandFailure?>(nil)

    init(console: Console, reports: VerifyReportOptions, style: Style, errorStyle: Style, timeout: Double, once: Bool) {
        self.console = console
        self.reports = reports
        self.style = style
        self.errorStyle = errorStyle
        self.once = once
        self.progress = VerifyProgressLine(console: console, timeout: timeout)
    }

    /// Writing a report file failed: the command ends with this once the beacons are off the air.
    var reportFailure: CommandFailure? { failure.withLock { $0 } }

    func print(_ event: ProvisionEvent) {
        switch event {
        case .advertiser(let advertiserEvent):
            printAdvertiser(advertiserEvent)
        case .verifying(let expected, let controller):
            console.errorLine("provision: verifying \(NumberText.count(expected, "beacon")) from \(controller)")
        case .verification(let state, _):
            progress.update(state)
        case .verified(let result):
            progress.clear()
            do {
                try reports.emit(result, style: style)
            } catch let error as CommandFailure {
                failure.withLock { $0 = $0 ?? error }
            } catch {
                failure.withLock { $0 = $0 ?? CommandFailure(.usageOrInput, "\(error)") }
            }
            if !once {
                console.errorLine("provision: the beacons stay on the air; stop with Ctrl-C or SIGTERM")
            }
        }
    }

    func noteSignal(_ name: String) {
        progress.clear()
        console.errorLine("provision: \(name) received, taking the beacons off the air")
    }

    private func printAdvertiser(_ event: AdvertiserEvent) {
        switch event {
        case .started(let session):
            let count = session.beacons.count
            var line = "provision: advertising \(NumberText.count(count, "beacon")) on \(session.controller.name) (\(session.family)"
            if let effective = session.effectiveInterval { line += ", each every \(effective) in rotation" }
            console.errorLine(line + ")")
        case .warning(let text):
            console.errorLine(errorStyle.warning("warning") + ": " + text)
        case .interrupted(let fault, let retryIn):
            progress.clear()
            let next = retryIn.map { "; restarting in \($0)" } ?? ""
            console.errorLine(errorStyle.error("error") + ": beacons off the air: \(fault)\(next)")
        case .restartFailed(let reason, let attempt, let retryIn):
            console.errorLine(errorStyle.warning("warning") + ": restart attempt \(attempt) failed: \(reason); next in \(retryIn)")
        case .stopped(let reason):
            console.errorLine("provision: beacons off the air (\(reason))")
        }
    }
}
