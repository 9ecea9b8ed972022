import Foundation
import Testing

@testable import BeaconCLI

@Suite("beaconctl provision")
struct ProvisionCommandTests {
    @Test("usage errors exit 2 and name the problem", arguments: [
        (["m.yaml", "--hci", "hci0"], "Missing expected argument '--verify-hci <spec>'"),
        (["--hci", "hci0", "--verify-hci", "hci1"], "Name the manifest to provision"),
        (["m.yaml", "--hci", "hci0", "--verify-hci", "hci-user:0"], "--hci and --verify-hci name the same controller (hci-user:0)"),
        (["m.yaml", "--hci", "serial:/dev/ttyACM0", "--verify-hci", "serial:/dev/ttyACM0,1000000"], "name the same controller"),
        (["m.yaml", "--verify-hci", "bluetooth1"], "--verify-hci: "),
        (["m.yaml", "--verify-hci", "hci1", "--timeout", "0"], "--timeout must be a positive number of seconds up to 1000000000 (about 31 years); got 0."),
        (["m.yaml", "--verify-hci", "hci1", "--report", "x.bin"], "cannot tell the format of report `x.bin`"),
    ])
    func usageErrors(arguments: [String], message: String) async {
        let result = await runBeaconctl(["provision"] + arguments)
        #expect(result.status == 2)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("a manifest with errors is refused with exit 1 before any controller is opened")
    func brokenManifest() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", validManifest.replacingOccurrences(of: "minor: 2", with: "minor: 1"))
        let result = await runBeaconctl([
            "provision", manifest, "--hci", "tcp-client:127.0.0.1:9", "--verify-hci", "tcp-client:127.0.0.1:9", "--host", "x",
        ])
        #expect(result.status == 1)
        #expect(result.error.contains("error[duplicate-identity]"))
        #expect(result.output.isEmpty)
    }

    @Test("a host the manifest does not name is a usage error naming the hosts it does")
    func unknownHost() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write(
            "shop.yaml", validManifest.replacingOccurrences(of: "    major: 1\n", with: "    major: 1\n    host: pi-shop\n"))
        let result = await runBeaconctl([
            "provision", manifest, "--hci", "tcp-client:127.0.0.1:9", "--verify-hci", "tcp-client:127.0.0.1:9",
            "--host", "pi-attic",
        ])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("no beacon of the manifest names host `pi-attic`; hosts it names: pi-shop"))
    }

    @Test("a controller that cannot be reached is exit 3")
    func unreachableController() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write(
            "shop.yaml", validManifest.replacingOccurrences(of: "    major: 1\n", with: "    major: 1\n    host: pi-shop\n"))
        // Port 9 (discard) on the loopback is closed on a test machine: the connection is refused.
        let result = await runBeaconctl([
            "provision", manifest, "--hci", "tcp-client:127.0.0.1:9", "--verify-hci", "tcp-client:127.0.0.1:9",
            "--host", "pi-shop", "--once",
        ])
        #expect(result.status == 3, "\(result.error)")
        #expect(result.error.contains("beaconctl: error: "))
    }

    @Test("the help describes the sequence and both controllers")
    func help() async {
        let result = await runBeaconctl(["provision", "--help"])
        #expect(result.status == 0)
        for flag in ["--hci", "--verify-hci", "--host", "--once", "--report", "--format"] {
            #expect(result.output.contains(flag), "\(flag) missing from the help")
        }
    }
}

/// End to end without hardware: both controllers on one air of the built-in virtual radio
/// (a named air of its own, so that no other test's beacons share it).
@Suite("beaconctl provision and verify on the virtual radio", .timeLimit(.minutes(1)))
struct ProvisionVirtualRadioTests {
    static let manifest = validManifest.replacingOccurrences(of: "    major: 1\n", with: "    major: 1\n    host: pi-shop\n")

    @Test("provision --once: advertised, verified (auto at the computed power), reported, stopped; exit 0")
    func provisionOnce() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", Self.manifest)
        // The real-time virtual air runs on the wall clock: the verification's timeout and the
        // command timeout are safety nets here (the pass ends when both beacons are decided,
        // the virtual controller answers at once), so that a loaded machine cannot reach them.
        let result = await runBeaconctl([
            "provision", manifest, "--hci", "virtual:provision-once", "--verify-hci", "virtual:provision-once",
            "--host", "pi-shop", "--once", "--format", "json", "--timeout", "45", "--command-timeout", "60",
        ])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(report["passed"] as? Bool == true)
        let beacons = try #require(report["beacons"] as? [[String: Any]])
        #expect(beacons.map { $0["id"] as? String } == ["door", "till"])
        #expect(beacons.map { ($0["expected"] as? [String: Any])?["measured_power_rule"] as? String } == ["advertised", "advertised"])
        #expect(result.error.contains("provision: advertising 2 beacons on virtual:provision-once (extended)"))
        #expect(result.error.contains("provision: beacons off the air (stop requested)"))
    }

    @Test("verify on a silent air: every beacon missing at the timeout, exit 1")
    func verifySilentAir() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", Self.manifest)
        // The virtual controller answers at once, through this process's task pool that other
        // tests keep busy: the command timeout is a safety net, not the 2 s meant for hardware.
        let result = await runBeaconctl(["verify", manifest, "--hci", "virtual:silent", "--timeout", "0.5", "--command-timeout", "60"])
        #expect(result.status == 1)
        // Ended at its timeout, as the report says; a hang would meet the time limit.
        #expect(result.output.hasSuffix("failed: 2 beacons: 2 missing; 0 sightings in 0.5 s (timeout)\n"), "\(result.output)")
    }
}
