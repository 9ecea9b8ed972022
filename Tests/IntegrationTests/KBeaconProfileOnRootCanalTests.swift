import BeaconCore
import BeaconProfiles
import Foundation
import HCI
import LECentral
import Testing

/// The kbeacon profile against an independent KBeacon: Bumble playing the beacon's side of
/// the vendor's SDK (Peripherals/kbeacon_peripheral.py) on RootCanal, beaconctl's central on
/// another RootCanal controller. Provisioned at ATT MTU 23 (folded proofs, many parts) and
/// 247; already correct (nothing written); a wrong password (one attempt, refused); a
/// locked-out beacon.
@Suite("kbeacon profile on RootCanal against a Bumble KBeacon", .requiresRootCanal, .timeLimit(.minutes(3)))
struct KBeaconProfileOnRootCanalTests {
    static let address = BluetoothAddress("F0:4C:0A:00:00:21") ?? .zero
    static let uuid = ProximityUUID(high: 0xE2C5_6DB5_DFFB_48D2, low: 0xB060_D0F5_A710_96E0)
    static let target = BeaconSettings(
        uuid: uuid, major: 12, minor: 3456, measuredPower: -61, txPower: -4, advertisingInterval: 350)
    static let newPassword = BeaconPassword("fleet-pass-2026")

    @Test("a factory beacon is provisioned: every differing field written, read back, then the password changed",
        arguments: [23, 247])
    func provisioned(serverMTU: Int) async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.address, ["--mtu", "\(serverMTU)"])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await KBeaconProfile.open(on: connection)
            #expect(await connection.att.mtu == min(serverMTU, 247))

            let outcome = try await BeaconProvisioning.run(
                profile, password: KBeaconProfile.factoryPassword, target: Self.target, newPassword: Self.newPassword)
            guard case .provisioned(let report) = outcome else {
                Issue.record("not provisioned: \(outcome)")
                return
            }
            #expect(report.before.model == "BC011-sim")
            #expect(report.before.firmware == "5.31")
            #expect(report.before.batteryPercent == 93)
            #expect(report.before.settings.major == 1)
            #expect(report.written == BeaconField.allCases)
            #expect(report.after.settings == Self.target)
            #expect(report.passwordChanged)
            // At MTU 23 a full proof (22 bytes) does not fit a notification: the beacon folds it.
            _ = try await beacon.waitForLine("the challenge form") { $0 == (serverMTU == 23 ? "auth folded" : "auth full") }
            _ = try await beacon.waitForLine("the configuration applied") { $0 == "cfg advObj,meaPwr" }
            _ = try await beacon.waitForLine("the password changed") { $0 == "password changed" }
            try await connection.disconnect()

            // The next connection needs the new password, and finds the settings kept.
            let again = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let second = try await KBeaconProfile.open(on: again)
            #expect(try await second.authenticate(Self.newPassword) == .accepted)
            #expect(try await second.read().settings == Self.target)
            try await again.disconnect()
            await central.host.close()
        }
    }

    @Test("a beacon that already holds the target: read, nothing written, no password change asked")
    func alreadyCorrect() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start(
                "kbeacon_peripheral.py", on: rootCanal, address: Self.address,
                ["--uuid", "\(Self.uuid)", "--major", "12", "--minor", "3456", "--measured-power", "-61", "--tx-power", "-4", "--interval", "350"])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await KBeaconProfile.open(on: connection)
            let outcome = try await BeaconProvisioning.run(profile, password: KBeaconProfile.factoryPassword, target: Self.target)
            guard case .provisioned(let report) = outcome else {
                Issue.record("not provisioned: \(outcome)")
                return
            }
            #expect(report.written.isEmpty)
            #expect(report.after == report.before)
            #expect(!report.passwordChanged)
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(beacon.outputLines.contains("read"))
            #expect(!beacon.outputLines.contains { $0.hasPrefix("cfg") || $0 == "password changed" })
            await central.host.close()
        }
    }

    @Test("a beacon without an iBeacon slot: slot 0 becomes one with the whole identity")
    func noIBeaconSlot() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.address, ["--no-ibeacon-slot"])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await KBeaconProfile.open(on: connection)
            let outcome = try await BeaconProvisioning.run(profile, password: KBeaconProfile.factoryPassword, target: Self.target)
            guard case .provisioned(let report) = outcome else {
                Issue.record("not provisioned: \(outcome)")
                return
            }
            #expect(report.before.settings.identity == nil)
            #expect(report.after.settings == Self.target)
            let state = try await beacon.waitForLine("the new slot") { $0.hasPrefix("state ") }
            #expect(state.contains(#""slot": 0"#) && state.contains(#""type": 5"#))
            try await connection.disconnect()
            await central.host.close()
        }
    }

    @Test("a wrong password: the beacon's proof does not match, one attempt only, nothing written")
    func wrongPassword() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start(
                "kbeacon_peripheral.py", on: rootCanal, address: Self.address, ["--password", "owner-secret-42"])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await KBeaconProfile.open(on: connection)
            let outcome = try await BeaconProvisioning.run(
                profile, password: KBeaconProfile.factoryPassword, target: Self.target, newPassword: Self.newPassword)
            #expect(outcome == .refused(.passwordMismatch))
            // A second attempt on the same connection is refused before anything is sent.
            await #expect(throws: BeaconProfileError.self) { try await profile.authenticate(BeaconPassword("owner-secret-43")) }
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(beacon.outputLines.filter { $0 == "auth request" }.count == 1)
            #expect(!beacon.outputLines.contains { $0 == "authenticated" || $0 == "read" || $0.hasPrefix("cfg") })
            await central.host.close()
        }
    }

    @Test("a locked-out beacon refuses at once: a typed refusal, nothing read or written")
    func lockedOut() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start("kbeacon_peripheral.py", on: rootCanal, address: Self.address, ["--locked", "--mtu", "23"])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await KBeaconProfile.open(on: connection)
            let outcome = try await BeaconProvisioning.run(profile, password: KBeaconProfile.factoryPassword, target: Self.target)
            #expect(outcome == .refused(.refusedByBeacon))
            #expect(AuthenticationRefusal.refusedByBeacon.description.contains("nothing was written"))
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(beacon.outputLines.filter { $0 == "auth request" }.count == 1)
            #expect(!beacon.outputLines.contains { $0 == "read" || $0.hasPrefix("cfg") })
            await central.host.close()
        }
    }
}

/// A vendor beacon that Bumble plays (`Peripherals/<script>`, written from the vendor's
/// documents) on a new RootCanal controller, run by the venv's Python.
enum ProfilePeripheral {
    static func start(_ script: String, on rootCanal: RootCanal, address: BluetoothAddress, _ options: [String]) async throws -> BeaconctlProcess {
        let installation = try RootCanalInstallation.current.get()
        let python = installation.venv.appendingPathComponent("bin/python3")
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peripherals/\(script)")
        let process = try BeaconctlProcess(
            program: python, arguments: [path.path, rootCanal.hciTransportSpec, "\(address)"] + options,
            environment: ["PYTHONUNBUFFERED": "1"])
        _ = try await process.waitForLine("ready (advertising)") { $0 == "ready" }
        return process
    }
}
