/// The template unit `verify --watch --print-systemd-template` prints and the Debian package
/// installs, `beaconctl-watch@.service`: instance NAME audits `/etc/beaconctl/NAME.yaml`
/// continuously, from the sightings every receiver publishes to a broker.
///
/// How the settings reach the watch (docs/verify.md, "Running the watch as a service"):
/// `/etc/beaconctl/NAME.env` is read by systemd (as root, before the service's user exists)
/// and holds the input URL, any further options and the broker's credentials. systemd
/// expands `${VAR}` in ExecStart as exactly one word (an unset one is an empty word, which
/// beaconctl refuses: exit 2, no restart) and a lone `$VAR` as words split at whitespace
/// (none when unset): systemd.service(5), "Command lines".
struct WatchSystemdUnit {
    /// `--quiet` and `-v`, carried into ExecStart.
    var globals: GlobalOptions
    /// The running binary; the unit must name it by absolute path.
    var binaryPath: String = SystemdUnitWords.currentExecutable()

    static let unitName = "beaconctl-watch@.service"
    /// The variables of the environment file that ExecStart reads.
    static let inputVariable = "BEACONCTL_WATCH_INPUT"
    static let optionsVariable = "BEACONCTL_WATCH_OPTIONS"
    /// `%i` is the instance name, as systemd expands it (systemd.unit(5), "Specifiers").
    static let manifest = "/etc/beaconctl/%i.yaml"
    static let environmentFile = "/etc/beaconctl/%i.env"
    static let stateFile = "/var/lib/beaconctl/%i.state"
    /// Every instance runs as this one dynamic user: systemd shares a dynamic user between
    /// the units that name it, so instances running side by side do not take
    /// /var/lib/beaconctl from each other (StateDirectory= hands the folder to the unit's
    /// user, recursively, whenever its owner differs: systemd.exec(5), "StateDirectory=").
    static let user = "beaconctl-watch"
    /// The exit statuses that need the configuration fixed (docs/verify.md, "Exit codes"):
    /// 1, a manifest with errors (a live broker's input never ends, so a watch's findings
    /// never end it); 2, bad options, an unreadable manifest or input, a state file that is
    /// not a watch's. Restarting would fail the same way.
    static let permanentExitStatuses = [1, 2]

    func text() -> String {
        var words = [SystemdUnitWords.quoted(binaryPath), "verify"]
        if globals.quiet { words.append("--quiet") }
        if globals.verbose > 0 { words.append("-" + String(repeating: "v", count: globals.verbose)) }
        // Not quoted: systemd must expand the specifiers and the variables.
        words += [
            Self.manifest, "--watch", "--input", "${\(Self.inputVariable)}", "--state", Self.stateFile, "$\(Self.optionsVariable)",
        ]
        let lines = [
            "# beaconctl verify --watch as a template service: instance NAME audits the beacons of",
            "# /etc/beaconctl/NAME.yaml continuously, from what every receiver publishes to a broker.",
            "# Its settings go in /etc/beaconctl/NAME.env (chmod 600: systemd reads it as root), e.g.",
            "#   \(Self.inputVariable)=mqtt://broker.example/beaconctl",
            "#   \(Self.optionsVariable)=--mqtt mqtt://broker.example/beaconctl --silence 60",
            "#   BEACONCTL_MQTT_USERNAME=audit",
            "#   BEACONCTL_MQTT_PASSWORD=…",
            "# \(Self.inputVariable) is required; \(Self.optionsVariable) is split at spaces.",
            "# To start one at boot:",
            "#   sudo systemctl enable --now beaconctl-watch@NAME",
            "# Without the beaconctl package, install it first:",
            "#   sudo cp \(Self.unitName) /etc/systemd/system/ && sudo systemctl daemon-reload",
            "# It runs as a transient unprivileged user (DynamicUser), the same for every instance:",
            "# manifests must be readable by any user. Each instance keeps its beacons' states in",
            "# /var/lib/beaconctl/NAME.state. Exit statuses 1 (a manifest with errors) and 2 (bad",
            "# options, an unreadable manifest, input or state file) need the configuration fixed:",
            "# the service is not restarted after them.",
            "[Unit]",
            "Description=beaconctl: continuous audit of the beacons of \(Self.manifest)",
            "Documentation=man:beaconctl-verify(1)",
            // The broker is on the network (the watch retries it anyway, every second).
            "Wants=network-online.target",
            "After=network-online.target",
            "",
            "[Service]",
            "Type=exec",
            // Optional: without it the input is an empty word, which beaconctl refuses (exit 2)
            // and names, instead of systemd failing the start and restarting it forever.
            "EnvironmentFile=-\(Self.environmentFile)",
            "ExecStart=" + words.joined(separator: " "),
            "DynamicUser=yes",
            "User=\(Self.user)",
            "StateDirectory=beaconctl",
            // A broker's client needs no capability at all.
            "CapabilityBoundingSet=",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ProtectHome=yes",
            "PrivateTmp=yes",
            "PrivateDevices=yes",
            "ProtectHostname=yes",
            "ProtectKernelTunables=yes",
            "ProtectKernelModules=yes",
            "ProtectKernelLogs=yes",
            "ProtectControlGroups=yes",
            "ProtectClock=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
            "RestrictNamespaces=yes",
            "RestrictRealtime=yes",
            "RestrictSUIDSGID=yes",
            "LockPersonality=yes",
            "SystemCallArchitectures=native",
            "Environment=NO_COLOR=1",
            "Restart=on-failure",
            "RestartSec=5",
            "RestartPreventExitStatus=" + Self.permanentExitStatuses.map(String.init).joined(separator: " "),
            // SIGTERM ends the watch with its summary; with --mqtt it then waits up to 10 s for
            // the broker to acknowledge the last changes, and writes the state file.
            "KillSignal=SIGTERM",
            "TimeoutStopSec=20",
            "",
            "[Install]",
            "WantedBy=multi-user.target",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
