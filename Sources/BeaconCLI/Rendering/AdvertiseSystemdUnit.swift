import BeaconCore
import BeaconFleet
import Foundation
import HCI
import HCITransports

/// The systemd unit `advertise --print-systemd-unit` prints: the same advertise command as
/// a service, with the capabilities it needs and nothing more, never as root. With
/// `isTemplate` (`--print-systemd-template`) it is the template `beaconctl-advertise@.service`
/// the Debian package installs: the manifest is `/etc/beaconctl/INSTANCE.yaml`.
struct AdvertiseSystemdUnit {
    let command: AdvertiseCommand
    var isTemplate = false
    /// The running binary; the unit must name it by absolute path.
    var binaryPath: String = SystemdUnitWords.currentExecutable()
    var workingDirectory: String = FileManager.default.currentDirectoryPath
    var environment: [String: String] = Console.current.environment

    func text() -> String {
        let arguments = [binaryPath, "advertise"] + advertiseArguments()
        var execStart = arguments.map(SystemdUnitWords.quoted).joined(separator: " ")
        if isTemplate {
            // Not quoted: systemd must expand the instance specifier (systemd.unit(5), "Specifiers").
            execStart += " --manifest " + Self.templateManifest
        }
        let paths = command.manifest.manifest.map(absolute)
        let readsHome = paths.contains { $0.hasPrefix("/home/") || $0.hasPrefix("/root/") || $0 == "/root" || $0 == "/home" }
        let spec = specText()
        let usesSerial = spec.hasPrefix("serial:")

        var lines: [String]
        if isTemplate {
            lines = [
                "# beaconctl advertise as a template service: instance NAME advertises the beacons of",
                "# /etc/beaconctl/NAME.yaml whose host is this machine's host name. To start one at boot:",
                "#   sudo systemctl enable --now beaconctl-advertise@NAME",
                "# Without the beaconctl package, install it first:",
                "#   sudo cp beaconctl-advertise@.service /etc/systemd/system/ && sudo systemctl daemon-reload",
            ]
        } else {
            lines = [
                "# beaconctl advertise as a service. To install it:",
                "#   sudo cp beaconctl-advertise.service /etc/systemd/system/",
                "#   sudo systemctl daemon-reload && sudo systemctl enable --now beaconctl-advertise",
            ]
        }
        lines.append("# It runs as a transient unprivileged user (DynamicUser): manifests must be readable by any user.")
        if command.controller.snoop != nil {
            lines.append("# --snoop writes to /var/log/beaconctl, the one folder the service may write (LogsDirectory).")
        }
        lines += [
            "[Unit]",
            isTemplate
                ? "Description=beaconctl: advertise this host's iBeacons of \(Self.templateManifest) on \(spec)"
                : "Description=beaconctl: advertise iBeacons on \(spec)",
        ]
        if isTemplate { lines.append("Documentation=man:beaconctl-advertise(1)") }
        lines += [
            "After=bluetooth.target",
            "",
            "[Service]",
            "Type=exec",
            "ExecStart=\(execStart)",
            "DynamicUser=yes",
            // CAP_NET_RAW: LE commands on the RAW channel (hci0); CAP_NET_ADMIN: the USER channel (hci-user:N).
            "AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN",
            "CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ProtectHome=\(readsHome ? "read-only" : "yes")",
            "PrivateTmp=yes",
        ]
        if usesSerial {
            // The UART is a device node: keep /dev, and join the group that owns serial ports.
            lines += ["SupplementaryGroups=dialout"]
        } else {
            lines += ["PrivateDevices=yes"]
        }
        lines += [
            "ProtectKernelTunables=yes",
            "ProtectKernelModules=yes",
            "ProtectKernelLogs=yes",
            "ProtectControlGroups=yes",
            "ProtectClock=yes",
            "RestrictAddressFamilies=AF_BLUETOOTH AF_UNIX AF_INET AF_INET6",
            "RestrictNamespaces=yes",
            "RestrictRealtime=yes",
            "RestrictSUIDSGID=yes",
            "LockPersonality=yes",
            "SystemCallArchitectures=native",
        ]
        if command.controller.snoop != nil {
            lines += ["LogsDirectory=beaconctl"]
        }
        lines += [
            "Environment=NO_COLOR=1",
            "Restart=on-failure",
            "RestartSec=5",
            // 1, a manifest with errors; 2, bad options or an unreadable manifest: restarting
            // would fail the same way. 3 (the controller failed, a dongle replugged) is retried.
            "RestartPreventExitStatus=1 2",
            // SIGTERM makes beaconctl take its beacons off the air before it exits.
            "KillSignal=SIGTERM",
            "TimeoutStopSec=15",
            "",
            "[Install]",
            "WantedBy=multi-user.target",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The controller as the service must name it: `--hci`, else `$BEACONCTL_HCI`, else hci0,
    /// in canonical form (the service does not see this shell's environment).
    private func specText() -> String {
        let text = command.controller.hci
            ?? environment[HCIOptions.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
            ?? HCIOptions.defaultSpec
        return (try? HCITransportSpec(parsing: text))?.description ?? text
    }

    /// The options of this invocation, with paths made absolute (a service has no useful
    /// working directory) and without `--print-systemd-unit`.
    private func advertiseArguments() -> [String] {
        var arguments: [String] = []
        let globals = command.globals
        if globals.quiet { arguments.append("--quiet") }
        if globals.verbose > 0 { arguments.append("-" + String(repeating: "v", count: globals.verbose)) }
        arguments += ["--hci", specText()]
        if let snoop = command.controller.snoop { arguments += ["--snoop", Self.serviceCapturePath(snoop)] }
        if command.controller.commandTimeout != 2 {
            arguments += ["--command-timeout", NumberText.plain(command.controller.commandTimeout)]
        }
        let beacon = command.beacon
        if let uuid = beacon.uuid { arguments += ["--uuid", (try? ProximityUUIDText.canonical(uuid)) ?? uuid] }
        if let major = beacon.major { arguments += ["--major", String(major)] }
        if let minor = beacon.minor { arguments += ["--minor", String(minor)] }
        if let measuredPower = beacon.measuredPower { arguments += ["--measured-power", measuredPower] }
        if let interval = beacon.intervalMilliseconds { arguments += ["--interval-ms", NumberText.plain(interval)] }
        if let txPower = beacon.txPower { arguments += ["--tx-power", String(txPower)] }
        let manifest = command.manifest
        for path in manifest.manifest { arguments += ["--manifest", absolute(path)] }
        for id in manifest.beaconIDs { arguments += ["--beacon", id] }
        if let host = manifest.host { arguments += ["--host", host] }
        if manifest.all { arguments.append("--all") }
        if let duration = command.duration { arguments += ["--duration", NumberText.plain(duration)] }
        if command.restart { arguments.append("--restart") }
        if command.family != .auto { arguments += ["--family", command.family.rawValue] }
        if let slot = command.rotationSlotMilliseconds { arguments += ["--rotation-slot-ms", NumberText.plain(slot)] }
        if command.format != .text { arguments += ["--format", command.format.rawValue] }
        if let metrics = command.metrics.metrics { arguments += ["--metrics", metrics] }
        return arguments
    }

    /// The template's manifest: `%i` is the instance name, as systemd expands it.
    static let templateManifest = "/etc/beaconctl/%i.yaml"

    /// Where the service writes a capture: its logs folder, under the file name asked for.
    static func serviceCapturePath(_ path: String) -> String {
        "/var/log/beaconctl/" + (path as NSString).lastPathComponent
    }

    private func absolute(_ path: String) -> String {
        let joined = path.hasPrefix("/") ? path : (workingDirectory as NSString).appendingPathComponent(path)
        return (joined as NSString).standardizingPath
    }
}

/// The canonical form of a UUID the user typed.
enum ProximityUUIDText {
    static func canonical(_ text: String) throws -> String {
        try ProximityUUID(parsing: text).description
    }
}
