import BeaconCore
import BeaconProfiles
import Foundation
import HCI
import LECentral
import Testing

/// A declarative profile against an independent beacon: Bumble playing the test table
/// (Peripherals/table_peripheral.py, written from Tests/BeaconProfilesTests/Fixtures/
/// test-table.yaml, not from beaconctl's code) on RootCanal, through beaconctl's central.
/// Provisioned (the password first, the values in their encodings, the commit that applies
/// them, the read-back, the new password), already correct (nothing written), and a wrong
/// password (refused, read back from the state characteristic, nothing written).
@Suite("declarative profile on RootCanal against a Bumble beacon", .requiresRootCanal, .timeLimit(.minutes(3)))
struct DeclarativeProfileOnRootCanalTests {
    static let address = BluetoothAddress("F0:4C:0A:00:00:51") ?? .zero
    static let target = BeaconSettings(
        uuid: try? ProximityUUID(parsing: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E1"), major: 0x0102, minor: 0x0304, measuredPower: -59,
        txPower: -4, advertisingInterval: 100)

    static func definition() throws -> ProfileDefinition {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("BeaconProfilesTests/Fixtures/test-table.yaml")
        return try ProfileDefinitionReader.read([UInt8](try Data(contentsOf: path)), file: path.lastPathComponent).get()
    }

    static func open(_ rootCanal: RootCanal) async throws -> (Central, LEConnection, DeclarativeProfile) {
        let central = try await CentralOnRootCanalTests.startCentral(on: rootCanal)
        let connection = try await central.connect(to: Self.address, type: .random, timeout: CentralOnRootCanalTests.connectDeadline)
        return (central, connection, try await DeclarativeProfile.open(try Self.definition(), on: connection))
    }

    @Test("a factory beacon: values written in the table's encodings, committed, read back, the password changed")
    func provisioned() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start("table_peripheral.py", on: rootCanal, address: Self.address, [])
            defer { beacon.signal(SIGKILL) }
            let (central, connection, profile) = try await Self.open(rootCanal)
            let outcome = try await BeaconProvisioning.run(profile, password: BeaconPassword("123456"), target: Self.target, newPassword: BeaconPassword("654321"))
            guard case .provisioned(let report) = outcome else {
                Issue.record("not provisioned: \(outcome)")
                return
            }
            #expect(report.before.settings == BeaconSettings(uuid: ProximityUUID(high: 0, low: 0), major: 1, minor: 1, measuredPower: -58, txPower: 4, advertisingInterval: 950))
            #expect(report.before.model == "TB-1" && report.before.firmware == "2.1" && report.before.batteryPercent == 87)
            #expect(report.after.settings == Self.target)
            #expect(report.passwordChanged)
            _ = try await beacon.waitForLine("the new password") { $0 == "password changed" }
            for line in ["write major 0102", "write minor 0403", "write interval a000", "write tx-power 05", "write measured-power c5", "committed"] {
                #expect(beacon.outputLines.contains(line), "\(beacon.outputLines)")
            }
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            await central.host.close()
        }
    }

    @Test("a beacon already right: the password, reads, nothing written")
    func alreadyCorrect() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start(
                "table_peripheral.py", on: rootCanal, address: Self.address,
                ["--uuid", "E2C56DB5DFFB48D2B060D0F5A71096E1", "--major", "258", "--minor", "772", "--measured-power", "-59", "--interval-units", "160", "--level", "5"])
            defer { beacon.signal(SIGKILL) }
            let (central, connection, profile) = try await Self.open(rootCanal)
            guard case .provisioned(let report) = try await BeaconProvisioning.run(profile, password: BeaconPassword("123456"), target: Self.target) else {
                Issue.record("not provisioned")
                return
            }
            #expect(report.written.isEmpty && !report.passwordChanged)
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(beacon.outputLines.contains("unlocked"))
            #expect(!beacon.outputLines.contains { $0.hasPrefix("write") || $0 == "committed" })
            await central.host.close()
        }
    }

    @Test("a wrong password: refused from the state read back, nothing else written")
    func wrongPassword() async throws {
        try await withRootCanal { rootCanal in
            let beacon = try await ProfilePeripheral.start("table_peripheral.py", on: rootCanal, address: Self.address, ["--password", "abcdef"])
            defer { beacon.signal(SIGKILL) }
            let (central, connection, profile) = try await Self.open(rootCanal)
            let outcome = try await BeaconProvisioning.run(profile, password: BeaconPassword("123456"), target: Self.target)
            #expect(outcome == .refused(.refusedByBeacon))
            try await connection.disconnect()
            _ = try await beacon.waitForLine("its disconnection") { $0.hasPrefix("disconnected") }
            #expect(beacon.outputLines.filter { $0 == "password refused" }.count == 1)
            #expect(!beacon.outputLines.contains { $0.hasPrefix("write") || $0 == "committed" || $0 == "unlocked" })
            await central.host.close()
        }
    }
}
