import BeaconCore
import Foundation
import Glibc
import Testing

/// `beaconctl provision --hardware` as users run it, against KBeacons that Bumble plays on
/// RootCanal (Peripherals/kbeacon_peripheral.py, written from the vendor's SDK): scan,
/// match by mac:, connect, write through the kbeacon profile, read back, hear the beacon on
/// the air.
@Suite("provision --hardware on RootCanal against Bumble KBeacons", .requiresRootCanal, .timeLimit(.minutes(3)))
struct ProvisionHardwareOnRootCanalTests {
    static let kitchen = BluetoothAddress("F0:4C:0A:00:00:31") ?? .zero
    static let hall = BluetoothAddress("F0:4C:0A:00:00:32") ?? .zero
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let factory = "0000000000000000"

    /// Two battery beacons pinned by mac:, and one this host advertises (never touched).
    static func manifest(kitchenMeasuredPower: Int = -61) -> String {
        """
        version: 1
        fleet: hardware-test
        uuid: \(uuid)
        defaults:
          interval_ms: 350
          tx_power: -4
        venues:
          - id: cafe
            major: 12
            beacons:
              # the beacon above the counter
              - {id: kitchen, minor: 3456, measured_power: \(kitchenMeasuredPower), mac: "\(kitchen)"}
              - {id: hall, minor: 3457, measured_power: -60, mac: "\(hall)"}
          - id: office
            major: 13
            host: pi-office
            beacons:
              - {id: office-desk, minor: 1}
        """
    }

    static func run(
        _ manifest: String, _ rootCanal: RootCanal, _ extra: [String], environment: [String: String] = [:], timeout: Int = 10
    ) async throws -> (status: Int32?, process: BeaconctlProcess) {
        let process = try BeaconctlProcess(
            ["provision", manifest, "--hardware", "--hci", rootCanal.hciTransportSpec, "--discovery-seconds", "2", "--timeout", "\(timeout)"]
                + extra,
            environment: environment)
        let status = await process.waitForExit()
        return (status, process)
    }

    static func beacons(_ process: BeaconctlProcess) throws -> [String: [String: Any]] {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(process.standardOutput.utf8)) as? [String: Any],
            "standard output is the JSON result: \(process.standardOutput)\n\(process.standardError)")
        let beacons = try #require(document["beacons"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: beacons.map { ($0["id"] as? String ?? "", $0) })
    }

    @Test("a factory beacon is provisioned and verified, the password changed last; a second run finds it already correct")
    func provisionedThenAlreadyCorrect() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            let current = try folder.write("current.txt", Self.factory + "\n")
            let new = try folder.write("new.txt", "fleet-pass-2026\n")
            let log = folder.url.appendingPathComponent("writes.jsonl").path
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.kitchen, ["--advertise-ibeacon"])
            defer { beacon.signal(SIGKILL) }

            let first = try await Self.run(
                manifest, rootCanal,
                ["--beacon", "kitchen", "--password-file", current, "--new-password-file", new, "--format", "json", "--log", log])
            #expect(first.status == 0, "\(first.process.standardOutput)\n\(first.process.standardError)")
            let kitchen = try #require(try Self.beacons(first.process)["kitchen"])
            #expect(kitchen["status"] as? String == "provisioned")
            #expect(kitchen["profile"] as? String == "kbeacon")
            #expect(kitchen["written"] as? [String] == ["uuid", "major", "minor", "measured-power", "tx-power", "advertising-interval"])
            #expect(kitchen["password_changed"] as? Bool == true)
            #expect(kitchen["verdict"] as? String == "ok")
            _ = try await beacon.waitForLine("the configuration applied") { $0 == "cfg advObj,meaPwr" }
            _ = try await beacon.waitForLine("the password changed") { $0 == "password changed" }
            // The log has the write and never a password.
            let logged = try String(contentsOfFile: log, encoding: .utf8)
            #expect(logged.split(separator: "\n").count == 1)
            #expect(logged.contains(#""beacon":"kitchen""#) && logged.contains(#""password_changed":true"#))
            #expect(!logged.contains("fleet-pass-2026") && !logged.contains(Self.factory))
            #expect(!first.process.standardOutput.contains("fleet-pass-2026") && !first.process.standardError.contains("fleet-pass-2026"))

            // Again, with the new password from the environment: nothing to write.
            let configured = beacon.outputLines.filter { $0.hasPrefix("cfg ") }.count
            let second = try await Self.run(
                manifest, rootCanal, ["--beacon", "kitchen", "--format", "json"],
                environment: ["BEACONCTL_BEACON_PASSWORD": "fleet-pass-2026"])
            #expect(second.status == 0, "\(second.process.standardOutput)\n\(second.process.standardError)")
            let again = try #require(try Self.beacons(second.process)["kitchen"])
            #expect(again["status"] as? String == "already-correct")
            #expect(again["written"] as? [String] == [])
            #expect(again["verdict"] as? String == "ok")
            #expect(beacon.outputLines.filter { $0.hasPrefix("cfg ") }.count == configured, "the second run wrote nothing")
            #expect(beacon.outputLines.filter { $0 == "authenticated" }.count == 2)
        }
    }

    @Test("a wrong password: one attempt, refused, the beacon left alone; exit 1")
    func wrongPassword() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            let beacon = try await ProfilePeripheral.start(
                "kbeacon_peripheral.py", on: rootCanal, address: Self.kitchen, ["--password", "owner-secret-42"])
            defer { beacon.signal(SIGKILL) }
            let run = try await Self.run(
                manifest, rootCanal, ["--beacon", "kitchen", "--format", "json"],
                environment: ["BEACONCTL_BEACON_PASSWORD": Self.factory])
            #expect(run.status == 1, "\(run.process.standardOutput)\n\(run.process.standardError)")
            let kitchen = try #require(try Self.beacons(run.process)["kitchen"])
            #expect(kitchen["status"] as? String == "refused")
            #expect((kitchen["detail"] as? String)?.contains("nothing was written") == true)
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(beacon.outputLines.filter { $0 == "auth request" }.count == 1)
            #expect(!beacon.outputLines.contains { $0 == "read" || $0.hasPrefix("cfg") })
        }
    }

    @Test("--dry-run connects and reads, writes nothing, and says what it would write")
    func dryRun() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.kitchen, [])
            defer { beacon.signal(SIGKILL) }
            let run = try await Self.run(
                manifest, rootCanal, ["--beacon", "kitchen", "--dry-run"], environment: ["BEACONCTL_BEACON_PASSWORD": Self.factory])
            #expect(run.status == 0, "\(run.process.standardOutput)\n\(run.process.standardError)")
            #expect(run.process.standardOutput.contains("dry-run"))
            #expect(run.process.standardOutput.contains("would write uuid=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
            #expect(run.process.standardOutput.contains("(dry run: nothing written)"))
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(beacon.outputLines.contains("read"))
            #expect(!beacon.outputLines.contains { $0.hasPrefix("cfg") || $0 == "password changed" })
        }
    }

    @Test("a beacon that already carries another manifest beacon's identity is not overwritten without --force")
    func identityConflict() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            // The beacon at kitchen's address holds hall's identity: two beacons would get one.
            let beacon = try await ProfilePeripheral.start(
                "kbeacon_peripheral.py", on: rootCanal, address: Self.kitchen,
                ["--uuid", Self.uuid, "--major", "12", "--minor", "3457", "--measured-power", "-60", "--tx-power", "-4", "--interval", "350"])
            defer { beacon.signal(SIGKILL) }
            let environment = ["BEACONCTL_BEACON_PASSWORD": Self.factory]
            let refused = try await Self.run(manifest, rootCanal, ["--beacon", "kitchen", "--format", "json"], environment: environment)
            #expect(refused.status == 1, "\(refused.process.standardOutput)\n\(refused.process.standardError)")
            let kitchen = try #require(try Self.beacons(refused.process)["kitchen"])
            #expect(kitchen["status"] as? String == "conflict")
            #expect((kitchen["detail"] as? String)?.contains("hall's identity") == true)
            #expect(!beacon.outputLines.contains { $0.hasPrefix("cfg") })

            let forced = try await Self.run(
                manifest, rootCanal, ["--beacon", "kitchen", "--force", "--format", "json"], environment: environment)
            let written = try #require(try Self.beacons(forced.process)["kitchen"])
            #expect(written["written"] as? [String] == ["minor", "measured-power"], "\(forced.process.standardError)")
            _ = try await beacon.waitForLine("the configuration applied") { $0.hasPrefix("cfg ") }
        }
    }

    @Test("a beacon advertising without accepting connections, and one not heard at all, are unreachable")
    func unreachable() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.kitchen, ["--non-connectable"])
            defer { beacon.signal(SIGKILL) }
            let run = try await Self.run(manifest, rootCanal, ["--format", "json"], environment: ["BEACONCTL_BEACON_PASSWORD": Self.factory])
            #expect(run.status == 1, "\(run.process.standardOutput)\n\(run.process.standardError)")
            let beacons = try Self.beacons(run.process)
            #expect(beacons["kitchen"]?["status"] as? String == "unreachable")
            #expect((beacons["kitchen"]?["detail"] as? String)?.contains("not advertising connectably") == true)
            #expect(beacons["hall"]?["status"] as? String == "unreachable")
            #expect((beacons["hall"]?["detail"] as? String)?.contains("was not heard") == true)
            #expect(beacons["office-desk"] == nil, "a beacon this host advertises is not a battery beacon")
            #expect(!beacon.outputLines.contains("connected"))
        }
    }
    @Test("--assign nearest --yes: the beacon without mac: gets the connectable KBeacon heard, and its address is written back")
    func assignNearest() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let text = """
                version: 1
                fleet: hardware-test
                uuid: \(Self.uuid)
                defaults:
                  interval_ms: 350
                  tx_power: -4
                venues:
                  - id: cafe
                    major: 12
                    beacons:
                      - id: counter   # unboxed today, no address yet
                        minor: 7
                        measured_power: -59
                """
            let manifest = try folder.write("fleet.yaml", text)
            let address = BluetoothAddress("F0:4C:0A:00:00:33") ?? .zero
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: address, ["--advertise-ibeacon"])
            defer { beacon.signal(SIGKILL) }
            let environment = ["BEACONCTL_BEACON_PASSWORD": Self.factory]
            let run = try await Self.run(
                manifest, rootCanal, ["--assign", "nearest", "--yes", "--profile", "kbeacon", "--format", "json"], environment: environment)
            #expect(run.status == 0, "\(run.process.standardOutput)\n\(run.process.standardError)")
            let counter = try #require(try Self.beacons(run.process)["counter"])
            #expect(counter["status"] as? String == "provisioned")
            #expect(counter["address"] as? String == "\(address)")
            #expect(counter["address_assigned"] as? Bool == true)
            #expect(counter["verdict"] as? String == "ok")
            let written = try String(contentsOfFile: manifest, encoding: .utf8)
            #expect(written == text.replacingOccurrences(
                of: "no address yet\n", with: "no address yet\n        mac: \"\(address)\"\n"), "\(written)")

            // The next run finds it by its mac: and has nothing to write.
            let again = try await Self.run(manifest, rootCanal, ["--format", "json"], environment: environment)
            #expect(again.status == 0, "\(again.process.standardOutput)\n\(again.process.standardError)")
            #expect(try Self.beacons(again.process)["counter"]?["status"] as? String == "already-correct")
        }
    }
    @Test("a link lost while writing is partly-written (exit 1, never provisioned); the next run finishes it")
    func interruptedThenFinished() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            let beacon = try await ProfilePeripheral.start(
                "kbeacon_peripheral.py", on: rootCanal, address: Self.kitchen, ["--advertise-ibeacon", "--hang-up-on-cfg", "1"])
            defer { beacon.signal(SIGKILL) }
            let environment = ["BEACONCTL_BEACON_PASSWORD": Self.factory]
            let first = try await Self.run(manifest, rootCanal, ["--beacon", "kitchen", "--format", "json"], environment: environment)
            #expect(first.status == 1, "\(first.process.standardOutput)\n\(first.process.standardError)")
            let broken = try #require(try Self.beacons(first.process)["kitchen"])
            #expect(broken["status"] as? String == "partly-written")
            #expect(broken["written"] as? [String] == [])
            #expect(broken["not_written"] as? [String] == ["uuid", "major", "minor", "measured-power", "tx-power", "advertising-interval"])
            #expect((broken["detail"] as? String)?.contains("run again") == true)
            #expect(beacon.outputLines.contains("hung up"))

            let second = try await Self.run(manifest, rootCanal, ["--beacon", "kitchen", "--format", "json"], environment: environment)
            #expect(second.status == 0, "\(second.process.standardOutput)\n\(second.process.standardError)")
            let finished = try #require(try Self.beacons(second.process)["kitchen"])
            #expect(finished["status"] as? String == "provisioned")
            #expect(finished["verdict"] as? String == "ok")
        }
    }

    @Test("an Eddystone configuration beacon cannot carry an iBeacon identity: unsupported, said plainly, nothing sent")
    func eddystoneCannotCarryAnIBeacon() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            let beacon = try await ProfilePeripheral.start("eddystone_peripheral.py", on: rootCanal, address: Self.kitchen, [])
            defer { beacon.signal(SIGKILL) }
            let run = try await Self.run(
                manifest, rootCanal, ["--beacon", "kitchen", "--format", "json"],
                environment: ["BEACONCTL_BEACON_PASSWORD": String(repeating: "0", count: 32)])
            #expect(run.status == 1, "\(run.process.standardOutput)\n\(run.process.standardError)")
            let kitchen = try #require(try Self.beacons(run.process)["kitchen"])
            #expect(kitchen["status"] as? String == "unsupported")
            #expect(kitchen["profile"] as? String == "eddystone-gatt")
            #expect((kitchen["detail"] as? String)?.contains("cannot carry an iBeacon identity") == true)
            #expect(!beacon.outputLines.contains { $0.hasPrefix("unlock") || $0.hasPrefix("challenge") })
        }
    }
    @Test("written and read back but not heard with its identity on the air: not-verified with the verdict, exit 1")
    func notVerified() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            // Without --advertise-ibeacon the beacon keeps advertising KKM's data only.
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.kitchen, [])
            defer { beacon.signal(SIGKILL) }
            let run = try await Self.run(
                manifest, rootCanal, ["--beacon", "kitchen", "--format", "json"], environment: ["BEACONCTL_BEACON_PASSWORD": Self.factory],
                timeout: 3)
            #expect(run.status == 1, "\(run.process.standardOutput)\n\(run.process.standardError)")
            let kitchen = try #require(try Self.beacons(run.process)["kitchen"])
            #expect(kitchen["status"] as? String == "not-verified")
            #expect(kitchen["verdict"] as? String == "missing")
            #expect(kitchen["written"] as? [String] == ["uuid", "major", "minor", "measured-power", "tx-power", "advertising-interval"])
            #expect((kitchen["detail"] as? String)?.contains("not verified on the air: missing") == true)
        }
    }
    @Test("a connectable peripheral with no known profile (--profile auto): unsupported, saying so, no password sent")
    func noKnownProfile() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest())
            let peripheral = try await BumblePeripheral.start(on: rootCanal, address: Self.kitchen, [])
            defer { peripheral.signal(SIGKILL) }
            let run = try await Self.run(
                manifest, rootCanal, ["--beacon", "kitchen", "--format", "json"], environment: ["BEACONCTL_BEACON_PASSWORD": Self.factory])
            #expect(run.status == 1, "\(run.process.standardOutput)\n\(run.process.standardError)")
            let kitchen = try #require(try Self.beacons(run.process)["kitchen"])
            #expect(kitchen["status"] as? String == "unsupported")
            #expect((kitchen["detail"] as? String)?.contains("no known profile") == true)
            #expect((kitchen["detail"] as? String)?.contains("--profile") == true)
        }
    }
}
