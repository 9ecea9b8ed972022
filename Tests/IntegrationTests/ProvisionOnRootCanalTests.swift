import Foundation
import Glibc
import Testing

/// `beaconctl provision` and `beaconctl verify` as users run them, against RootCanal: one
/// controller advertises, another listens, and the report says what was on the air.
@Suite("provision and verify on RootCanal", .requiresRootCanal, .timeLimit(.minutes(2)))
struct ProvisionOnRootCanalTests {
    static let uuid = "5C1B7E40-9A3D-4F2E-8B6C-1D0E2F3A4B5C"

    /// Host `pi-test` advertises three beacons (one calibrated, two `auto`); `pi-other`'s
    /// beacon is nobody's business here.
    static let manifest = """
        version: 1
        fleet: provision-test
        uuid: \(uuid)
        defaults:
          measured_power: auto
          interval_ms: 100
        venues:
          - id: lobby
            major: 5
            host: pi-test
            beacons:
              - {id: lobby-door, minor: 1, measured_power: -61}
              - {id: lobby-desk, minor: 2}
              - {id: lobby-lift, minor: 3}
          - id: garage
            major: 6
            host: pi-other
            beacons:
              - {id: garage-gate, minor: 1}
        """

    @Test("--once: advertise, verify from a second controller (auto beacons at the computed power), report, stop; exit 0")
    func once() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest)
            let junit = folder.url.appendingPathComponent("provision.xml").path
            let provision = try BeaconctlProcess([
                "provision", manifest, "--hci", rootCanal.hciTransportSpec, "--verify-hci", rootCanal.hciTransportSpec,
                "--host", "pi-test", "--once", "--format", "json", "--report", junit,
            ])
            let status = await provision.waitForExit()
            #expect(status == 0, "stdout:\n\(provision.standardOutput)\nstderr:\n\(provision.standardError)")

            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(provision.standardOutput.utf8)) as? [String: Any],
                "standard output is the JSON report: \(provision.standardOutput)")
            #expect(report["passed"] as? Bool == true)
            #expect(report["end"] as? String == "all-decided")
            #expect(report["scope"] as? String == "fleet provision-test, host pi-test")
            let beacons = try #require(report["beacons"] as? [[String: Any]])
            #expect(beacons.map { $0["id"] as? String } == ["lobby-door", "lobby-desk", "lobby-lift"])
            #expect(beacons.allSatisfy { $0["status"] as? String == "ok" })
            let rules = beacons.map { ($0["expected"] as? [String: Any])?["measured_power_rule"] as? String }
            #expect(rules == ["calibrated", "advertised", "advertised"], "auto beacons expect what the advertiser computed")
            #expect(FileManager.default.fileExists(atPath: junit))
            #expect(provision.standardError.contains("provision: advertising 3 beacons on "))
            #expect(provision.standardError.contains("provision: beacons off the air"))
        }
    }

    @Test("without --once the beacons stay on the air after the report (verify hears them) until SIGTERM")
    func keepsAdvertising() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest)
            let provision = try BeaconctlProcess([
                "provision", manifest, "--hci", rootCanal.hciTransportSpec, "--verify-hci", rootCanal.hciTransportSpec,
                "--host", "pi-test",
            ])
            let summary = try await provision.waitForLine("the report's summary") {
                $0.hasPrefix("passed: ") || $0.hasPrefix("failed: ")
            }
            #expect(summary.hasPrefix("passed: 3 beacons: 3 ok"), "\(provision.standardOutput)")

            // A separate verify of the lobby, live from a third controller: the beacons are still up.
            let verify = try BeaconctlProcess([
                "verify", manifest, "--venue", "lobby", "--hci", rootCanal.hciTransportSpec, "--timeout", "60",
                "--format", "markdown",
            ])
            let verifyStatus = await verify.waitForExit()
            #expect(verifyStatus == 0, "verify said:\n\(verify.standardOutput)\n\(verify.standardError)")
            #expect(verify.standardOutput.contains("| lobby | lobby-desk | `\(Self.uuid)/5/2` | ok |"))

            #expect(provision.exitStatus == nil, "provision keeps running after its report")
            provision.signal(SIGTERM)
            let status = await provision.waitForExit()
            #expect(status == 0, "\(provision.standardError)")
            #expect(provision.standardError.contains("provision: SIGTERM received, taking the beacons off the air"))
            #expect(provision.standardError.contains("provision: beacons off the air (stop requested)"))
        }
    }

    @Test("verify of a venue nobody advertises: every beacon missing at the timeout, exit 1")
    func nothingOnTheAir() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest)
            let verify = try BeaconctlProcess([
                "verify", manifest, "--venue", "garage", "--hci", rootCanal.hciTransportSpec, "--timeout", "1",
            ])
            let status = await verify.waitForExit()
            #expect(status == 1, "\(verify.standardOutput)\n\(verify.standardError)")
            #expect(verify.standardOutput.contains("  missing  "))
            // The report says the pass ended at its timeout (a hang would meet the time limit).
            #expect(verify.standardOutput.contains("(timeout)"))
        }
    }
}
