import ArgumentParser
import BeaconCore
import BeaconFleet
import BeaconProfiles
import FleetManifest
import Foundation
import HCI
import HCITransports
import Synchronization

/// The options of `provision --hardware`: write the manifest into battery beacons over
/// Bluetooth through their vendors' configuration profiles.
struct HardwareProvisionOptions: ParsableArguments {
    @Flag(help: "Write the manifest's battery beacons (no host:) over Bluetooth instead of advertising this host's beacons.")
    var hardware = false

    @Option(help: ArgumentHelp("Only the battery beacons of this venue.", valueName: "id"))
    var venue: String?

    @Option(name: .customLong("beacon"), help: ArgumentHelp("Only this beacon (repeatable).", valueName: "id"))
    var beacons: [String] = []

    @Option(help: ArgumentHelp(
        "The configuration profile: auto (from the advertisement or the GATT services), kbeacon, eddystone-gatt, a shipped profile's name, or the path of a profile file (docs/profiles.md).",
        valueName: "auto|name|file"))
    var profile = "auto"

    @Option(
        name: .customLong("password-file"),
        help: ArgumentHelp("A file whose first line is the beacons' current password (else $BEACONCTL_BEACON_PASSWORD).", valueName: "file"))
    var passwordFile: String?

    @Option(
        name: .customLong("new-password-file"),
        help: ArgumentHelp("A file whose first line is the password to set last (else $BEACONCTL_BEACON_NEW_PASSWORD).", valueName: "file"))
    var newPasswordFile: String?

    @Option(help: ArgumentHelp(
        "nearest: give each beacon without mac: the strongest unassigned connectable beacon, one at a time, and write its address back as mac: once the read-back matched.",
        valueName: "rule"))
    var assign: AssignRule?

    @Flag(help: "Take each --assign proposal without asking (for scripts).")
    var yes = false

    @Flag(name: .customLong("dry-run"), help: "Connect and read each beacon; write nothing.")
    var dryRun = false

    @Flag(help: "Overwrite a beacon that advertises another manifest beacon's identity.")
    var force = false

    @Option(name: .customLong("log"), help: ArgumentHelp("Append one JSON line per write to this file (never a password).", valueName: "file"))
    var logFile: String?

    @Option(
        name: .customLong("discovery-seconds"),
        help: ArgumentHelp("Seconds to listen for connectable beacons before connecting.", valueName: "seconds"))
    var discoverySeconds: Double = 5

    func check(verifyHCI: String?, once: Bool, host: String?, reports: VerifyReportOptions) throws {
        if verifyHCI != nil {
            throw ValidationError("--verify-hci is for this host's beacons; --hardware verifies with --hci itself once the beacons are written.")
        }
        if host != nil { throw ValidationError("--host names the host whose beacons to advertise; --hardware writes battery beacons (no host:).") }
        if once { throw ValidationError("--once is for this host's beacons; --hardware always ends after its report.") }
        if let format = reports.format, format != .text, format != .json {
            throw ValidationError("--format with --hardware is text or json; got \(format.rawValue).")
        }
        if !reports.reportFiles.isEmpty || !reports.reportFormats.isEmpty {
            throw ValidationError("--report is for the verification report of this host's beacons; with --hardware use --format json or --log.")
        }
        try SecondsFlag.check(discoverySeconds, "--discovery-seconds", allowingInfinity: false)
        // An unknown profile, or a profile file with problems, is said before the manifest is read.
        do throws(HardwareProvisioningError) {
            _ = try HardwareProfileChoice.resolve(profile)
        } catch {
            throw ValidationError(error.description)
        }
        if yes, assign == nil { throw ValidationError("--yes answers --assign's questions; add --assign nearest.") }
        if assign != nil, dryRun {
            throw ValidationError("--assign writes mac: into the manifest after writing the beacon; --dry-run writes nothing: run without --assign first, or pin mac: by hand.")
        }
    }

    enum AssignRule: String, ExpressibleByArgument, CaseIterable {
        case nearest
    }

    /// Hardware options given without --hardware are a mistake worth saying.
    func checkUnused() throws {
        let given = [
            venue.map { _ in "--venue" }, beacons.isEmpty ? nil : "--beacon", profile == "auto" ? nil : "--profile",
            passwordFile.map { _ in "--password-file" }, newPasswordFile.map { _ in "--new-password-file" },
            dryRun ? "--dry-run" : nil, force ? "--force" : nil, logFile.map { _ in "--log" }, assign.map { _ in "--assign" },
            yes ? "--yes" : nil,
        ].compactMap { $0 }
        if let first = given.first {
            throw ValidationError("\(first) applies to battery beacons: add --hardware.")
        }
    }
}

extension ProvisionCommand {
    func runHardware(_ fleet: Fleet) async throws {
        let console = Console.current
        let environment = console.environment
        guard
            let password = try ProvisionPasswords.read(
                file: hardware.passwordFile, variable: ProvisionPasswords.currentVariable, environment: environment,
                flag: "--password-file")
        else {
            throw CommandFailure(
                .usageOrInput,
                "no password: put the beacons' current password (a new KBeacon's is sixteen zeros) on the first line of a file given with --password-file, or in $\(ProvisionPasswords.currentVariable); never on the command line")
        }
        let prompting = isatty(STDIN_FILENO) == 1
        if hardware.assign != nil, !hardware.yes, !prompting {
            throw CommandFailure(
                .usageOrInput,
                "--assign nearest asks before giving a beacon's address to each manifest beacon, and standard input is not a terminal: pass --yes to take every proposal")
        }
        let newPassword = try ProvisionPasswords.read(
            file: hardware.newPasswordFile, variable: ProvisionPasswords.newVariable, environment: environment,
            flag: "--new-password-file")
        let log = try hardware.logFile.map { path throws(CommandFailure) in try ProvisioningWriteLog(path: path) }
        defer { log?.close() }

        let profile: HardwareProfileChoice
        do throws(HardwareProvisioningError) {
            profile = try HardwareProfileChoice.resolve(hardware.profile)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        let request = HardwareProvisioningRequest(
            fleet: fleet, venueID: hardware.venue, beaconIDs: hardware.beacons, profile: profile, password: password,
            newPassword: newPassword, assignNearest: hardware.assign == .nearest, dryRun: hardware.dryRun, force: hardware.force,
            discoveryWindow: SecondsFlag.duration(hardware.discoverySeconds) ?? .seconds(5),
            policy: VerificationPolicy(requiredSightings: requiredSightings, timeout: timeout))
        // An unknown --beacon or --venue is said before any controller is opened.
        do throws(HardwareProvisioningError) {
            _ = try request.selectedBeacons()
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }

        let spec = try controller.transportSpec(environment: environment)
        let capture = try controller.openCapture()
        defer { capture?.close() }
        let host = try await controller.openHost(spec, capture: capture)
        let namespace = manifests
        let askFirst = !hardware.yes
        let errorStyle = globals.style(forStandardError: true)
        let provisioner = HardwareProvisioner(
            request: request, host: host, scanConfiguration: ScanConfiguration(access: ControllerAccess(spec)),
            logger: globals.makeLogger(),
            confirm: { beacon, peripheral in
                guard askFirst else { return true }
                return await Self.ask(beacon, peripheral, console: console)
            },
            recordAddress: { beacon, address in Self.recordAddress(address, of: beacon, namespace: namespace) },
            onWrite: { record in log?.append(record) })
        // SIGINT or SIGTERM cancels the run: the beacon being written ends partly-written or
        // unreachable, those after it are reported as not attempted, and the table still prints.
        let (outcome, _) = await TerminationSignals.cancellingOnSignal(onSignal: { signal in
            console.errorLine("provision: \(TerminationSignals.name(of: signal)) received, stopping after this step")
        }) { () -> Result<HardwareProvisioningResult, HardwareProvisioningError> in
            do throws(HardwareProvisioningError) {
                return .success(try await provisioner.run { event in Self.show(event, console: console, style: errorStyle) })
            } catch {
                return .failure(error)
            }
        }
        await host.close()
        switch outcome {
        case .failure(.usage(let message)):
            throw CommandFailure(.usageOrInput, message)
        case .failure(.controller(let message)):
            throw CommandFailure(.controller, message)
        case .success(let result):
            if reports.format == .json {
                console.line(try HardwareProvisioningOutput.json(result))
            } else {
                console.line(HardwareProvisioningOutput.table(result, style: globals.style()))
            }
            // The beacons were written as reported; a write missing from the log is said after.
            if let failure = log?.failure { throw failure }
            if !result.passed { throw ExitStatus.findings.exitCode }
        }
    }

    /// Writes `mac:` for `beacon`, from the manifest as it is now: refused when the beacon's
    /// identity changed there since the run started (the address would land on another).
    static func recordAddress(_ address: BluetoothAddress, of beacon: ResolvedBeacon, namespace: [String]) -> String? {
        let loaded = ManifestLoader.load(paths: namespace, keepingSnapshots: true)
        guard let now = loaded.fleet.beacons.first(where: { $0.id == beacon.id }), now.identity == beacon.identity else {
            return "`\(beacon.id)` changed in the manifest during the run; add mac: \"\(address)\" by hand if it is still this beacon"
        }
        do {
            try ManifestValueEdit.writeAddress(address, beaconID: beacon.id, in: loaded)
            return nil
        } catch {
            return error.description
        }
    }

    /// Asks on the terminal whether `peripheral` becomes `beacon`; anything but y/yes declines.
    static func ask(_ beacon: ResolvedBeacon, _ peripheral: DiscoveredPeripheral, console: Console) async -> Bool {
        let strength = peripheral.strongestRSSI.map { ", \($0) dBm" } ?? ""
        let kind = peripheral.advertisedProfile.map { ", \($0)" } ?? ""
        console.writeToError("provision: make \(peripheral.address)\(kind)\(strength) the beacon `\(beacon.id)`? [y/N] ")
        let answer = await TerminalLine.read()?.trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// Progress on standard error, one line per step.
    private static func show(_ event: HardwareProvisioningEvent, console: Console, style: Style) {
        switch event {
        case .discovering(let seconds):
            console.errorLine("provision: listening \(ScanTable.decimal(seconds, places: 0)) s for connectable beacons")
        case .heard(let connectable, let total):
            console.errorLine("provision: heard \(NumberText.count(total, "advertiser")), \(connectable) connectable")
        case .connecting(let beaconID, let address):
            console.errorLine("provision: \(beaconID): connecting to \(address)")
        case .finished(let result):
            let status = result.status.succeeded ? result.status.rawValue : style.warning(result.status.rawValue)
            console.errorLine("provision: \(result.beaconID): \(status)")
        case .verifying(let count):
            console.errorLine("provision: listening for \(NumberText.count(count, "beacon")) on the air")
        }
    }
}

/// One line from standard input, read on a thread of its own (a blocking read has no place
/// on Swift's cooperative pool); `nil` at the end of input or when the task is cancelled
/// (SIGINT while the question waits: the answer counts as no).
enum TerminalLine {
    /// The waiting continuation, resumed once: by the line or by cancellation, whichever first.
    private final class Waiter: Sendable {
        let continuation = Mutex<CheckedContinuation<String?, Never>?>(nil)
        func resume(_ line: String?) { continuation.withLock { $0.take() }?.resume(returning: line) }
    }

    static func read() async -> String? {
        let waiter = Waiter()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.continuation.withLock { $0 = continuation }
                if Task.isCancelled {
                    waiter.resume(nil)
                    return
                }
                Thread.detachNewThread { waiter.resume(readLine()) }
            }
        } onCancel: {
            waiter.resume(nil)
        }
    }
}

/// `--log FILE`: one JSON line per write, appended and flushed as it happens. A record has
/// no field for a password (only whether one was set), so none can reach the file.
final class ProvisioningWriteLog: Sendable {
    private let handle: FileHandle
    private let path: String
    private let problem = Mutex<CommandFailure?>(nil)

    init(path: String) throws(CommandFailure) {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CommandFailure(.usageOrInput, "--log \(path): cannot create it; check that its folder exists and is writable")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CommandFailure(.usageOrInput, "--log \(path): cannot open it for writing")
        }
        _ = try? handle.seekToEnd()
        self.handle = handle
        self.path = path
    }

    func append(_ record: ProvisioningWriteRecord) {
        do {
            let line = try JSONOutput.line(record) + "\n"
            try handle.write(contentsOf: Data(line.utf8))
        } catch {
            problem.withLock { $0 = $0 ?? CommandFailure(.usageOrInput, "--log \(path): a write was not recorded: \(error)") }
        }
    }

    var failure: CommandFailure? { problem.withLock { $0 } }

    func close() { try? handle.close() }
}
