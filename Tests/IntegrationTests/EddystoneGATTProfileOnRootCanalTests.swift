import BeaconCore
import BeaconProfiles
import Foundation
import HCI
import LECentral
import Testing

/// The eddystone-gatt profile against an independent beacon: Bumble playing the Eddystone
/// Configuration GATT Service from its document (Peripherals/eddystone_peripheral.py) on
/// RootCanal. Unlocked with the AES challenge and provisioned at ATT MTU 23 and 247, the lock
/// code changed; already correct; a wrong lock code and a beacon refusing every token (one
/// attempt each); an iBeacon identity refused as the service's limitation before anything is
/// sent; factory reset only when asked.
@Suite("eddystone-gatt profile on RootCanal against a Bumble beacon", .requiresRootCanal, .timeLimit(.minutes(3)))
struct EddystoneGATTProfileOnRootCanalTests {
    static let address = BluetoothAddress("F0:4C:0A:00:00:31") ?? .zero
    static let factoryCode = BeaconPassword(String(repeating: "0", count: 32))
    static let newCode = BeaconPassword("0123456789abcdeffedcba9876543210")
    static let target = BeaconSettings(txPower: -4, advertisingInterval: 350)

    @Test("unlocked with the challenge, interval and power written, read back, the lock code changed", arguments: [23, 247])
    func provisioned(serverMTU: Int) async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start("eddystone_peripheral.py", on: rootCanal, address: Self.address, ["--mtu", "\(serverMTU)"])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await EddystoneGATTProfile.open(on: connection)
            let outcome = try await BeaconProvisioning.run(profile, password: Self.factoryCode, target: Self.target, newPassword: Self.newCode)
            guard case .provisioned(let report) = outcome else {
                Issue.record("not provisioned: \(outcome)")
                return
            }
            #expect(report.before.settings == BeaconSettings(txPower: 0, advertisingInterval: 1000))
            #expect(report.written == [.txPower, .advertisingInterval])
            #expect(report.after.settings == Self.target)
            #expect(report.passwordChanged)
            _ = try await beacon.waitForLine("the new lock code") { $0 == "lock code changed" }
            try await connection.disconnect()

            // Locked again with the new code: it unlocks with that one.
            let again = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let second = try await EddystoneGATTProfile.open(on: again)
            #expect(try await second.authenticate(Self.newCode) == .accepted)
            #expect(try await second.read().settings == Self.target)
            try await again.disconnect()
            #expect(await beacon.waitForOutput("the second disconnection") { lines in lines.filter { $0.hasPrefix("disconnected") }.count == 2 })
            #expect(beacon.outputLines.filter { $0 == "unlocked" }.count == 2)
            #expect(!beacon.outputLines.contains("factory reset"))
            await central.host.close()
        }
    }

    @Test("a beacon already right: nothing written")
    func alreadyCorrect() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start(
                "eddystone_peripheral.py", on: rootCanal, address: Self.address, ["--interval", "350", "--tx-power", "-4"])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await EddystoneGATTProfile.open(on: connection)
            guard case .provisioned(let report) = try await BeaconProvisioning.run(profile, password: Self.factoryCode, target: Self.target) else {
                Issue.record("not provisioned")
                return
            }
            #expect(report.written.isEmpty)
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(!beacon.outputLines.contains { $0.hasPrefix("write") || $0 == "lock code changed" })
            await central.host.close()
        }
    }

    @Test("a wrong lock code, or a beacon refusing every token: one token written, refused, nothing else", arguments: [false, true])
    func refused(lockedOut: Bool) async throws {
        try await withRootCanal { rootCanal in
            let options = lockedOut ? ["--refuse-unlock"] : ["--lock-code", "ffeeddccbbaa99887766554433221100"]
            let beacon = try await ProfilePeripheral.start("eddystone_peripheral.py", on: rootCanal, address: Self.address, options)
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await EddystoneGATTProfile.open(on: connection)
            let outcome = try await BeaconProvisioning.run(profile, password: Self.factoryCode, target: Self.target, newPassword: Self.newCode)
            #expect(outcome == .refused(.refusedByBeacon))
            await #expect(throws: BeaconProfileError.self) { try await profile.authenticate(Self.newCode) }
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(beacon.outputLines.filter { $0 == "challenge" }.count == 1)
            #expect(beacon.outputLines.filter { $0 == "unlock refused" }.count == 1)
            #expect(!beacon.outputLines.contains { $0.hasPrefix("write") || $0 == "lock code changed" })
            await central.host.close()
        }
    }

    @Test("a beacon left unlocked: settings written, but no new lock code encrypted with an unchecked one")
    func alreadyUnlocked() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start("eddystone_peripheral.py", on: rootCanal, address: Self.address, ["--unlocked"])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await EddystoneGATTProfile.open(on: connection)
            do {
                _ = try await BeaconProvisioning.run(profile, password: Self.newCode, target: Self.target, newPassword: Self.factoryCode)
                Issue.record("a new lock code was sent under a code the beacon never checked")
            } catch let error as BeaconProfileError {
                guard case .invalidPassword(let why) = error.kind else {
                    Issue.record("\(error)")
                    return
                }
                #expect(why.contains("never checked"))
            }
            #expect(try await profile.read().settings == Self.target)
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(!beacon.outputLines.contains { $0 == "challenge" || $0 == "lock code changed" })
            await central.host.close()
        }
    }

    @Test("an iBeacon identity is the service's limitation: refused before the lock is touched; factory reset only when asked")
    func limitationAndReset() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start("eddystone_peripheral.py", on: rootCanal, address: Self.address, [])
            defer { beacon.signal(SIGKILL) }
            let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
            let profile = try await EddystoneGATTProfile.open(on: connection)
            let identity = BeaconSettings(uuid: ProximityUUID(high: 1, low: 2), major: 1, minor: 2)
            do {
                _ = try await BeaconProvisioning.run(profile, password: Self.factoryCode, target: identity)
                Issue.record("an iBeacon identity was accepted by the eddystone-gatt profile")
            } catch let error as BeaconProfileError {
                guard case .unsupported(.uuid, let why) = error.kind else {
                    Issue.record("\(error)")
                    return
                }
                #expect(why.contains("no iBeacon identity"))
            }
            #expect(!beacon.outputLines.contains("challenge"))

            #expect(try await profile.authenticate(Self.factoryCode) == .accepted)
            try await profile.factoryReset()
            _ = try await beacon.waitForLine("the reset") { $0 == "factory reset" }
            try await connection.disconnect()
            await central.host.close()
        }
    }
}
