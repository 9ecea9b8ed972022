import BeaconCore
import Foundation
import Glibc
import Testing

/// `provision --hardware --assign nearest` as people run it: at a terminal, asked before each
/// beacon is given an address (a pseudo-terminal plays the terminal: beaconctl's standard input
/// and error are its follower side, the test reads the question and types on the leader); and
/// two KBeacons heard where one identity could land on both.
@Suite("provision --hardware --assign nearest on RootCanal: the question, and one identity per beacon", .requiresRootCanal, .timeLimit(.minutes(3)))
struct ProvisionAssignOnRootCanalTests {
    static let uuid = ProvisionHardwareOnRootCanalTests.uuid
    static let environment = ["BEACONCTL_BEACON_PASSWORD": ProvisionHardwareOnRootCanalTests.factory]
    static let first = BluetoothAddress("F0:4C:0A:00:00:41") ?? .zero
    static let second = BluetoothAddress("F0:4C:0A:00:00:42") ?? .zero

    /// Battery beacons `ids` (minors 7, 8, …) in one venue, none with mac:.
    static func manifest(_ ids: [String]) -> String {
        let entries = ids.enumerated().map { "      - {id: \($1), minor: \(7 + $0), measured_power: -59}" }
        return """
            version: 1
            fleet: assign-test
            uuid: \(uuid)
            defaults:
              interval_ms: 350
              tx_power: -4
            venues:
              - id: cafe
                major: 12
                beacons:

            """ + entries.joined(separator: "\n") + "\n"
    }

    static func arguments(_ manifest: String, _ rootCanal: RootCanal, _ extra: [String]) -> [String] {
        [
            "provision", manifest, "--hardware", "--hci", rootCanal.hciTransportSpec, "--discovery-seconds", "2", "--timeout", "10",
            "--assign", "nearest", "--profile", "kbeacon", "--format", "json",
        ] + extra
    }

    @Test("at a terminal: the question names the beacon and the address; \"y\" provisions it and writes mac: back")
    func yesAssigns() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest(["counter"]))
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.first, ["--advertise-ibeacon"])
            defer { beacon.signal(SIGKILL) }
            let terminal = try PseudoTerminal()
            let run = try BeaconctlProcess(Self.arguments(manifest, rootCanal, []), environment: Self.environment, terminal: terminal)
            try await run.waitForError(containing: "the beacon `counter`? [y/N] ")
            #expect(run.standardError.contains("provision: make \(Self.first)"), "\(run.standardError)")
            #expect(!beacon.outputLines.contains("connected"), "nothing is connected before the answer")
            await terminal.type("y\n")
            let status = await run.waitForExit()
            #expect(status == 0, "\(run.standardOutput)\n\(run.standardError)")
            let counter = try #require(try ProvisionHardwareOnRootCanalTests.beacons(run)["counter"])
            #expect(counter["status"] as? String == "provisioned")
            #expect(counter["address_assigned"] as? Bool == true)
            #expect(counter["verdict"] as? String == "ok")
            let written = try String(contentsOfFile: manifest, encoding: .utf8)
            #expect(written.contains("mac: \"\(Self.first)\""), "\(written)")
        }
    }

    @Test("at a terminal: \"n\" declines, and the end of input (Control-D) declines too: nothing connected, nothing written, exit 1")
    func noAndEndOfInputDecline() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let text = Self.manifest(["counter", "door"])
            let manifest = try folder.write("fleet.yaml", text)
            let one = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.first, ["--advertise-ibeacon"])
            defer { one.signal(SIGKILL) }
            let other = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.second, ["--advertise-ibeacon"])
            defer { other.signal(SIGKILL) }
            let terminal = try PseudoTerminal()
            let run = try BeaconctlProcess(Self.arguments(manifest, rootCanal, []), environment: Self.environment, terminal: terminal)
            try await run.waitForError(containing: "the beacon `counter`? [y/N] ")
            await terminal.type("n\n")
            try await run.waitForError(containing: "the beacon `door`? [y/N] ")
            await terminal.type("\u{04}")
            let status = await run.waitForExit()
            #expect(status == 1, "\(run.standardOutput)\n\(run.standardError)")
            let beacons = try ProvisionHardwareOnRootCanalTests.beacons(run)
            for id in ["counter", "door"] {
                #expect(beacons[id]?["status"] as? String == "unmatched", "\(id): \(beacons[id] ?? [:])")
                #expect((beacons[id]?["detail"] as? String)?.contains("declined") == true)
            }
            #expect(try String(contentsOfFile: manifest, encoding: .utf8) == text)
            #expect(!one.outputLines.contains("connected") && !other.outputLines.contains("connected"))
        }
    }

    @Test("two connectable KBeacons heard, one manifest beacon to assign: exactly one is written and becomes its mac:, the other is never connected")
    func oneBeaconForOneIdentity() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest(["counter"]))
            let one = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.first, ["--advertise-ibeacon"])
            defer { one.signal(SIGKILL) }
            let other = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.second, ["--advertise-ibeacon"])
            defer { other.signal(SIGKILL) }
            let run = try BeaconctlProcess(Self.arguments(manifest, rootCanal, ["--yes"]), environment: Self.environment)
            let status = await run.waitForExit()
            #expect(status == 0, "\(run.standardOutput)\n\(run.standardError)")
            let counter = try #require(try ProvisionHardwareOnRootCanalTests.beacons(run)["counter"])
            #expect(counter["status"] as? String == "provisioned")
            let chosen = try #require(counter["address"] as? String)
            let (written, untouched) = chosen == "\(Self.first)" ? (one, other) : (other, one)
            #expect([Self.first, Self.second].map(\.description).contains(chosen))
            _ = try await written.waitForLine("the configuration applied") { $0.hasPrefix("cfg ") }
            #expect(!untouched.outputLines.contains("connected"), "the other beacon is left alone")
            #expect(try String(contentsOfFile: manifest, encoding: .utf8).contains("mac: \"\(chosen)\""))
        }
    }

    @Test("a KBeacon already advertising one manifest beacon's identity is given that beacon, never a second identity, whatever the signal strengths")
    func beaconAdvertisingAnIdentityKeepsIt() async throws {
        try await withRootCanal { rootCanal in
            let folder = try TemporaryFolder()
            let manifest = try folder.write("fleet.yaml", Self.manifest(["counter", "door"]))
            // Provisioned as `door` before (minor 8), its mac: never recorded.
            let door = try await ProfilePeripheral.start(
                "kbeacon_peripheral.py", on: rootCanal, address: Self.first,
                [
                    "--advertise-ibeacon", "--uuid", Self.uuid, "--major", "12", "--minor", "8", "--measured-power", "-59", "--tx-power", "-4",
                    "--interval", "350",
                ])
            defer { door.signal(SIGKILL) }
            let factory = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.second, ["--advertise-ibeacon"])
            defer { factory.signal(SIGKILL) }
            let run = try BeaconctlProcess(Self.arguments(manifest, rootCanal, ["--yes"]), environment: Self.environment)
            let status = await run.waitForExit()
            #expect(status == 0, "\(run.standardOutput)\n\(run.standardError)")
            let beacons = try ProvisionHardwareOnRootCanalTests.beacons(run)
            #expect(beacons["counter"]?["address"] as? String == "\(Self.second)")
            #expect(beacons["counter"]?["status"] as? String == "provisioned")
            #expect(beacons["door"]?["address"] as? String == "\(Self.first)")
            #expect(beacons["door"]?["status"] as? String == "already-correct")
            #expect(beacons["counter"]?["verdict"] as? String == "ok" && beacons["door"]?["verdict"] as? String == "ok")
            #expect(!door.outputLines.contains { $0.hasPrefix("cfg") }, "door's beacon is not rewritten")
            let written = try String(contentsOfFile: manifest, encoding: .utf8)
            #expect(written.contains("mac: \"\(Self.first)\"") && written.contains("mac: \"\(Self.second)\""), "\(written)")
        }
    }
}

/// Without a terminal, the question cannot be asked: said before any controller is opened.
@Suite("provision --hardware --assign nearest without a terminal")
struct ProvisionAssignWithoutTerminalTests {
    @Test("standard input not a terminal (here /dev/null, at its end at once) and no --yes: a usage error naming --yes, exit 2, no controller opened")
    func usageErrorWithoutATerminal() async throws {
        let folder = try TemporaryFolder()
        let manifest = try folder.write("fleet.yaml", ProvisionAssignOnRootCanalTests.manifest(["counter"]))
        // Port 1 on the loopback: nothing listens there, so an attempt to open it would fail
        // with a controller error (exit 3), not this usage error.
        let run = try BeaconctlProcess(
            ["provision", manifest, "--hardware", "--hci", "tcp-client:127.0.0.1:1", "--assign", "nearest"],
            environment: ProvisionAssignOnRootCanalTests.environment)
        let status = await run.waitForExit()
        #expect(status == 2, "\(run.standardOutput)\n\(run.standardError)")
        #expect(run.standardError.contains("standard input is not a terminal: pass --yes"), "\(run.standardError)")
        #expect(try String(contentsOfFile: manifest, encoding: .utf8) == ProvisionAssignOnRootCanalTests.manifest(["counter"]))
    }
}
