import Foundation
import Testing

@testable import BeaconCLI

@Suite("beaconctl advertise --print-systemd-unit")
struct AdvertiseSystemdUnitTests {
    func unit(_ arguments: [String], environment: [String: String] = [:]) async -> CommandResult {
        await runBeaconctl(["advertise"] + arguments + ["--print-systemd-unit"], environment: environment)
    }

    @Test("runs the same command unprivileged, with only the capabilities it needs, hardened")
    func hardenedService() async throws {
        let result = await unit([
            "--hci", "hci-user:1", "--uuid", "89d6e936-f61f-4227-bcd2-6e94c5a6b2e3", "--major", "1", "--minor", "2",
            "--measured-power", "-59", "--interval-ms", "250", "--tx-power", "-4", "--restart", "--family", "legacy",
        ])
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        let lines = result.output.split(separator: "\n").map(String.init)
        let execStart = try #require(lines.first { $0.hasPrefix("ExecStart=") })
        let binary = String(execStart.dropFirst("ExecStart=".count).prefix { $0 != " " })
        #expect(binary.hasPrefix("/"), "the binary must be named by absolute path: \(binary)")
        #expect(execStart.hasSuffix(
            " advertise --hci hci-user:1 --uuid 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3 --major 1 --minor 2 "
                + "--measured-power -59 --interval-ms 250 --tx-power -4 --restart --family legacy"))
        #expect(!execStart.contains("--print-systemd-unit"))
        for line in [
            "[Unit]", "[Service]", "[Install]", "WantedBy=multi-user.target", "DynamicUser=yes",
            "AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN", "CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN",
            "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
            "RestrictAddressFamilies=AF_BLUETOOTH AF_UNIX AF_INET AF_INET6", "Restart=on-failure", "RestartPreventExitStatus=1 2", "KillSignal=SIGTERM",
        ] {
            #expect(lines.contains(line), "the unit lacks \(line)")
        }
        // Never root.
        #expect(!lines.contains { $0.hasPrefix("User=root") || $0 == "User=0" })
    }

    @Test("manifest paths become absolute; a manifest under /home stays readable")
    func manifestPaths() async throws {
        let directory = FileManager.default.currentDirectoryPath
        let result = await unit(["--manifest", "fleets/jays.yaml", "--manifest", "/home/ops/fleets", "--beacon", "door"])
        #expect(result.status == 0)
        let execStart = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let expectedPath = ((directory as NSString).appendingPathComponent("fleets/jays.yaml") as NSString).standardizingPath
        #expect(execStart.hasSuffix(
            " advertise --hci hci0 --manifest \(SystemdUnitWords.quoted(expectedPath)) --manifest /home/ops/fleets --beacon door"))
        #expect(result.output.contains("\nProtectHome=read-only\n"))
    }

    @Test("the controller comes from $BEACONCTL_HCI when --hci is absent: the service does not inherit it")
    func environmentTransport() async {
        let result = await unit(["--manifest", "/srv/fleet.yaml", "--all"], environment: ["BEACONCTL_HCI": "serial:/dev/ttyACM0,1000000"])
        #expect(result.output.contains(" advertise --hci serial:/dev/ttyACM0,1000000 --manifest /srv/fleet.yaml --all\n"))
        // A UART needs its device node and the group owning it.
        #expect(result.output.contains("\nSupplementaryGroups=dialout\n"))
        #expect(!result.output.contains("PrivateDevices=yes"))
    }

    @Test("--snoop goes to the service's logs folder")
    func snoop() async {
        let result = await unit(["--manifest", "/srv/fleet.yaml", "--all", "--snoop", "/tmp/beacons.snoop"])
        #expect(result.output.contains(" --snoop /var/log/beaconctl/beacons.snoop "))
        #expect(result.output.contains("\nLogsDirectory=beaconctl\n"))
    }

    @Test("--print-systemd-template: instance NAME advertises this host's beacons of /etc/beaconctl/NAME.yaml")
    func template() async throws {
        let result = await runBeaconctl(["advertise", "--hci", "hci0", "--restart", "--print-systemd-template"])
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let execStart = try #require(lines.first { $0.hasPrefix("ExecStart=/") })
        // The specifier stays unescaped so systemd expands it; no --host: the service asks the machine its name.
        #expect(execStart.hasSuffix(" advertise --hci hci0 --restart --manifest /etc/beaconctl/%i.yaml"))
        #expect(lines.contains("Description=beaconctl: advertise this host's iBeacons of /etc/beaconctl/%i.yaml on hci0"))
        #expect(lines.contains("Documentation=man:beaconctl-advertise(1)"))
        #expect(lines.contains("ProtectHome=yes"))

        // Everything from [Service] on but ExecStart is what --print-systemd-unit writes for the same command.
        let plain = await unit(["--hci", "hci0", "--restart", "--manifest", "/etc/beaconctl/shop.yaml"])
        let plainLines = plain.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func service(_ lines: [String]) -> [String] {
            Array(lines.drop { $0 != "[Service]" }.filter { !$0.hasPrefix("ExecStart=") })
        }
        #expect(!service(lines).isEmpty)
        #expect(service(lines) == service(plainLines))
    }

    @Test(
        "--print-systemd-template names its own manifest and is not combined with --print-systemd-unit",
        arguments: [
            (["--manifest", "/srv/fleet.yaml"], "--print-systemd-template takes this host's beacons from /etc/beaconctl/NAME.yaml"),
            (["--uuid", "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"], "drop the beacon and manifest flags."),
            (["--print-systemd-unit"], "--print-systemd-unit and --print-systemd-template each print a unit; pass one of them."),
        ] as [([String], String)])
    func templateUsage(extra: [String], message: String) async {
        let result = await runBeaconctl(["advertise", "--print-systemd-template"] + extra)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("ExecStart words are quoted and escaped the way systemd reads them")
    func quoting() {
        #expect(SystemdUnitWords.quoted("plain") == "plain")
        #expect(SystemdUnitWords.quoted("/srv/my fleet.yaml") == "\"/srv/my fleet.yaml\"")
        #expect(SystemdUnitWords.quoted("100%") == "100%%")
        #expect(SystemdUnitWords.quoted("$HOME") == "$$HOME")
        #expect(SystemdUnitWords.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(SystemdUnitWords.quoted("") == "\"\"")
    }
}
