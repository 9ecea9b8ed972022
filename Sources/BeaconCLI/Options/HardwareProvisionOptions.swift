import ArgumentParser
import BeaconFleet
import BeaconProfiles
import FleetManifest

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

    /// The beacons' passwords: a file's first line or the environment (`ProvisionPasswords`),
    /// the current one required. A missing password, an unreadable file or an --assign that
    /// cannot ask (standard input not a terminal, no --yes) is a usage failure.
    func passwords(
        environment: [String: String], interactive: Bool
    ) throws(CommandFailure) -> (current: BeaconPassword, new: BeaconPassword?) {
        guard
            let password = try ProvisionPasswords.read(
                file: passwordFile, variable: ProvisionPasswords.currentVariable, environment: environment, flag: "--password-file")
        else {
            throw CommandFailure(
                .usageOrInput,
                "no password: put the beacons' current password (a new KBeacon's is sixteen zeros) on the first line of a file given with --password-file, or in $\(ProvisionPasswords.currentVariable); never on the command line")
        }
        if assign != nil, !yes, !interactive {
            throw CommandFailure(
                .usageOrInput,
                "--assign nearest asks before giving a beacon's address to each manifest beacon, and standard input is not a terminal: pass --yes to take every proposal")
        }
        let newPassword = try ProvisionPasswords.read(
            file: newPasswordFile, variable: ProvisionPasswords.newVariable, environment: environment, flag: "--new-password-file")
        return (password, newPassword)
    }

    /// What `provision --hardware` is asked to do, from these options: the profile and the
    /// beacons chosen; an unknown profile, --beacon or --venue is a usage failure, said before
    /// any controller is opened.
    func request(
        fleet: Fleet, passwords: (current: BeaconPassword, new: BeaconPassword?), policy: VerificationPolicy
    ) throws(CommandFailure) -> HardwareProvisioningRequest {
        let chosen: HardwareProfileChoice
        do throws(HardwareProvisioningError) {
            chosen = try HardwareProfileChoice.resolve(profile)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        let request = HardwareProvisioningRequest(
            fleet: fleet, venueID: venue, beaconIDs: beacons, profile: chosen, password: passwords.current,
            newPassword: passwords.new, assignNearest: assign == .nearest, dryRun: dryRun, force: force,
            discoveryWindow: SecondsFlag.duration(discoverySeconds) ?? .seconds(5), policy: policy)
        do throws(HardwareProvisioningError) {
            _ = try request.selectedBeacons()
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        return request
    }
}
