import Testing

@testable import BeaconCLI

@Suite("beaconctl advertise: help and validation")
struct AdvertiseCommandTests {
    static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"
    static let oneBeacon = ["advertise", "--uuid", uuid, "--major", "1", "--minor", "2"]

    @Test("--help lists every option group and exits 0")
    func help() async {
        let result = await runBeaconctl(["advertise", "--help"])
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        for text in [
            "USAGE: beaconctl advertise <options>", "CONTROLLER:", "ONE BEACON FROM FLAGS:", "BEACONS FROM A MANIFEST:",
            "--hci <spec>", "--snoop <file>", "--command-timeout <seconds>", "--measured-power <dbm|auto>",
            "--interval-ms <ms>", "--tx-power <dbm>", "--manifest <path>", "--beacon <id>", "--host <name>", "--all",
            "--duration <seconds>", "--restart", "--family <family>", "--rotation-slot-ms <ms>", "--format <format>",
            "--print-systemd-unit", "Exit codes: 0 after a clean stop",
        ] {
            #expect(result.output.contains(text), "help lacks \(text)")
        }
    }

    @Test(
        "a bad value is a usage error (exit 2) naming it",
        arguments: [
            (["--major", "70000"], "--major 70000 is outside 0 to 65535 (a 16-bit field of the iBeacon frame)."),
            (["--minor", "-1"], "--minor -1 is outside 0 to 65535 (a 16-bit field of the iBeacon frame)."),
            (["--interval-ms", "10"], "--interval-ms 10 is outside 20 to 10240 ms, the advertising intervals controllers accept."),
            (["--interval-ms", "20000"], "--interval-ms 20000 is outside 20 to 10240 ms, the advertising intervals controllers accept."),
            (["--measured-power", "5"], "--measured-power 5 is outside -127 to -1 dBm (the RSSI 1 m from a beacon is always negative)."),
            (["--measured-power", "loud"], "--measured-power loud is neither a number of dBm nor auto."),
            (["--tx-power", "30"], "--tx-power 30 is outside -127 to 20 dBm."),
            (["--duration", "0"], "--duration must be a positive number of seconds up to 1000000000 (about 31 years); got 0."),
            (["--rotation-slot-ms", "5"], "--rotation-slot-ms 5 is outside 20 to 60000 ms."),
            (["--command-timeout", "0"], "--command-timeout must be between 0.1 and 60 seconds; got 0.0."),
        ] as [([String], String)])
    func badValue(extra: [String], message: String) async {
        // Later options win, so the bad value replaces the good one of `oneBeacon`.
        let result = await runBeaconctl(Self.oneBeacon + extra + ["--print-systemd-unit"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("Error: \(message)"), "\(result.error)")
    }

    @Test("a malformed UUID is named with what is wrong")
    func badUUID() async {
        let result = await runBeaconctl(["advertise", "--uuid", "89D6E936F61F4227BCD26E94C5A6B2E3", "--major", "1", "--minor", "2"])
        #expect(result.status == 2)
        #expect(result.error.contains(
            "Error: --uuid 89D6E936F61F4227BCD26E94C5A6B2E3: UUID has 32 hex digits but no hyphens; write it as 8-4-4-4-12."))
    }

    @Test(
        "flags that do not fit together are a usage error",
        arguments: [
            (["advertise"], "say what to advertise: --uuid UUID --major N --minor N, or --manifest PATH (with --beacon ID, --host NAME or --all)."),
            (["advertise", "--uuid", uuid, "--major", "1"], "a beacon needs --uuid, --major and --minor; missing --minor."),
            (oneBeacon + ["--manifest", "fleet.yaml"],
             "--uuid, --major, --minor describe one beacon and --manifest takes beacons from a manifest; use one or the other."),
            (["advertise", "--beacon", "door"], "--beacon chooses beacons of a manifest; name it with --manifest PATH."),
            (["advertise", "--manifest", "fleet.yaml", "--all", "--host", "pi"], "--host and --all both choose beacons; pass one of them."),
            (oneBeacon + ["--family", "extended", "--rotation-slot-ms", "100"],
             "--rotation-slot-ms applies to legacy rotation; extended advertising puts every beacon on the air at once."),
        ] as [([String], String)])
    func conflicts(arguments: [String], message: String) async {
        let result = await runBeaconctl(arguments)
        #expect(result.status == 2)
        #expect(result.error.contains("Error: \(message)"), "\(result.error)")
    }

    @Test("an invalid --hci is a usage error with the accepted forms")
    func badTransport() async {
        let result = await runBeaconctl(Self.oneBeacon + ["--hci", "bluetooth0"])
        #expect(result.status == 2)
        #expect(result.error.contains("Error: --hci: invalid transport \"bluetooth0\": unknown kind of transport. Accepted forms: "))
    }

    @Test("an invalid $BEACONCTL_HCI is a usage error naming the variable")
    func badEnvironmentTransport() async {
        let result = await runBeaconctl(Self.oneBeacon, environment: ["BEACONCTL_HCI": "usb:1"])
        #expect(result.status == 2)
        #expect(result.error.hasPrefix("beaconctl: error: $BEACONCTL_HCI: invalid transport \"usb:1\""), "\(result.error)")
    }

    @Test("a controller that cannot be reached is exit 3 with the transport's advice")
    func unreachableController() async throws {
        let result = await runBeaconctl(Self.oneBeacon + ["--hci", "tcp-client:127.0.0.1:1"])
        #expect(result.status == 3)
        #expect(result.error.contains(
            "beaconctl: error: tcp-client:127.0.0.1:1: connection refused: is the controller/RootCanal running on 127.0.0.1:1?"),
            "\(result.error)")
    }

    @Test("a manifest that cannot be read is exit 2")
    func unreadableManifest() async {
        let result = await runBeaconctl(["advertise", "--manifest", "/nonexistent/fleet.yaml", "--all"])
        #expect(result.status == 2)
        #expect(result.error.contains("beaconctl: error: cannot read /nonexistent/fleet.yaml"), "\(result.error)")
    }

    @Test("controllers --help describes both modes")
    func controllersHelp() async {
        let result = await runBeaconctl(["controllers", "--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("USAGE: beaconctl controllers [--verbose ...]"))
        #expect(result.output.contains("Without --hci: the controllers the kernel knows"))
        #expect(result.output.contains("--format <format>"))
    }

    @Test("controllers without --hci lists, or says plainly that the kernel has no Bluetooth")
    func controllersList() async {
        let result = await runBeaconctl(["controllers"])
        #expect(result.status == 0, "\(result.error)")
        let noBluetooth = result.output.hasPrefix("This kernel has no Bluetooth support")
            && result.output.contains("--hci tcp-client:HOST:PORT")
        let listing = result.output.hasPrefix("NAME") || result.output.hasPrefix("The kernel lists no Bluetooth controller")
        #expect(noBluetooth || listing, "\(result.output)")
    }
}
