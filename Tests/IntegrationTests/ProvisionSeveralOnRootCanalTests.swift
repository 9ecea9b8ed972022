import BeaconCore
import Foundation
import Glibc
import Testing

/// Several battery beacons in one `provision --hardware` run: each pinned beacon's connection
/// is made while the one before it is written (two links on the controller at once), and
/// every one still ends provisioned, read back and heard on the air.
@Suite("provision --hardware: several KBeacons in one run on RootCanal", .requiresRootCanal, .timeLimit(.minutes(3)))
struct ProvisionSeveralOnRootCanalTests {
    @Test("four KBeacons pinned by mac: (one Bumble process plays them): all provisioned and verified, each configured once, exit 0")
    func severalPinned() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let first: UInt64 = 0xF0_4C_0A_00_00_51
            let addresses = (0..<4).compactMap { BluetoothAddress(value: first + UInt64($0)) }
            let entries = addresses.enumerated().map { "      - {id: beacon-\($0 + 1), minor: \($0 + 1), measured_power: -60, mac: \"\($1)\"}" }
            let text = """
                version: 1
                fleet: several
                uuid: \(ProvisionHardwareOnRootCanalTests.uuid)
                defaults:
                  interval_ms: 350
                  tx_power: -4
                venues:
                  - id: hall
                    major: 21
                    beacons:

                """ + entries.joined(separator: "\n") + "\n"
            let manifest = try folder.write("fleet.yaml", text)
            let beacons = try await ProfilePeripheral.start(
                "kbeacon_peripheral.py", on: rootCanal, address: addresses[0], ["--advertise-ibeacon", "--count", "4"])
            defer { beacons.signal(SIGKILL) }
            let run = try await ProvisionHardwareOnRootCanalTests.run(
                manifest, rootCanal, ["--format", "json"], environment: ["BEACONCTL_BEACON_PASSWORD": ProvisionHardwareOnRootCanalTests.factory])
            #expect(run.status == 0, "\(run.process.standardOutput)\n\(run.process.standardError)")
            let results = try ProvisionHardwareOnRootCanalTests.beacons(run.process)
            for (index, address) in addresses.enumerated() {
                let result = results["beacon-\(index + 1)"]
                #expect(result?["status"] as? String == "provisioned", "\(address): \(result ?? [:])")
                #expect(result?["verdict"] as? String == "ok")
                // The beacon's own word: one configuration applied, one connection.
                _ = try await beacons.waitForLine("\(address) applying its configuration") { $0.hasPrefix("\(address) cfg ") }
                #expect(beacons.outputLines.filter { $0 == "\(address) connected" }.count == 1)
            }
        }
    }
}
