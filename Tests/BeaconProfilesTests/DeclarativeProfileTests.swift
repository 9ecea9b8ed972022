import BeaconCore
import LECentral
import Testing

@testable import BeaconProfiles

/// The declarative engine through a scripted GATT server holding the test table: a beacon
/// provisioned, one already right, a wrong password refused in each of the three ways, a
/// beacon without the table's service.
@Suite("declarative profile against a scripted GATT server")
struct DeclarativeProfileTests {
    static let fff0 = AttributeUUID(0xFFF0)

    static func definition(refusal: PasswordSpec.Refusal = .readBack) throws -> ProfileDefinition {
        var definition = try ProfileDefinitionReader.read(try ProfileFixture.resource("test-table.yaml").bytes, file: "test-table.yaml").get()
        definition.password?.refusal = refusal
        return definition
    }

    static let target = BeaconSettings(
        uuid: try? ProximityUUID(parsing: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E1"), major: 0x0102, minor: 0x0304, measuredPower: -59,
        txPower: -4, advertisingInterval: 100)

    /// The test table's beacon: factory values (major 1, minor 1, −58 dBm at 1 m, 950 ms in 0.625 ms units, level 7), password "123456".
    static func beacon(refusal: ScriptedGATTServer.Refusal = .stateByte, holding settings: [UInt16: [UInt8]] = [:]) -> ScriptedGATTServer {
        func characteristic(_ short: UInt16, _ value: [UInt8]) -> ScriptedGATTServer.Characteristic {
            .init(uuid: AttributeUUID(short), value: settings[short] ?? value)
        }
        return ScriptedGATTServer(
            services: [
                .init(uuid: AttributeUUID(0x180A), characteristics: [characteristic(0x2A24, Array("TB-1".utf8)), characteristic(0x2A26, Array("2.1".utf8) + [0])]),
                .init(
                    uuid: fff0,
                    characteristics: [
                        characteristic(0xFFF1, Array(repeating: 0, count: 16)), characteristic(0xFFF2, [0x00, 0x01]), characteristic(0xFFF3, [0x01, 0x00]),
                        characteristic(0xFFF4, [0xC6]), characteristic(0xFFF5, [0xF0, 0x05]), characteristic(0xFFF6, [7]),
                        characteristic(0xFFF7, []), characteristic(0xFFF8, [0]), characteristic(0xFFF9, [0]),
                    ]),
                .init(uuid: AttributeUUID(0x180F), characteristics: [characteristic(0x2A19, [87])]),
            ],
            password: .init(characteristic: AttributeUUID(0xFFF7), expected: Array("123456".utf8), refusal: refusal, state: AttributeUUID(0xFFF9)))
    }

    static func open(_ beacon: ScriptedGATTServer, _ definition: ProfileDefinition) async throws -> DeclarativeProfile {
        try await DeclarativeProfile.open(definition, gatt: GATTClient(att: ATTClient(bearer: beacon)))
    }

    @Test("a factory beacon: every differing value written in its encoding, the commit after them, read back, the new password last")
    func provisions() async throws {
        let beacon = Self.beacon()
        let profile = try await Self.open(beacon, try Self.definition())
        let outcome = try await BeaconProvisioning.run(profile, password: BeaconPassword("123456"), target: Self.target, newPassword: BeaconPassword("654321"))
        guard case .provisioned(let report) = outcome else {
            Issue.record("not provisioned: \(outcome)")
            return
        }
        #expect(report.before.settings == BeaconSettings(uuid: ProximityUUID(high: 0, low: 0), major: 1, minor: 1, measuredPower: -58, txPower: 4, advertisingInterval: 950))
        #expect(report.before.model == "TB-1" && report.before.firmware == "2.1" && report.before.batteryPercent == 87)
        #expect(report.written == [.uuid, .major, .minor, .measuredPower, .txPower, .advertisingInterval])
        #expect(report.after.settings == Self.target)
        #expect(report.passwordChanged)
        #expect(beacon.value(of: AttributeUUID(0xFFF2)) == [0x01, 0x02])  // big-endian
        #expect(beacon.value(of: AttributeUUID(0xFFF3)) == [0x04, 0x03])  // little-endian
        #expect(beacon.value(of: AttributeUUID(0xFFF5)) == [0xA0, 0x00])  // 160 × 0.625 ms
        #expect(beacon.value(of: AttributeUUID(0xFFF6)) == [5])  // −4 dBm is level 5
        let order = beacon.writes.map { $0.0.shortValue ?? 0 }
        #expect(order == [0xFFF7, 0xFFF1, 0xFFF2, 0xFFF3, 0xFFF4, 0xFFF6, 0xFFF5, 0xFFF8, 0xFFF7])
        #expect(beacon.writes.last?.1 == Array("654321".utf8))
    }

    @Test("a beacon already holding the target: the password, then reads only")
    func alreadyCorrect() async throws {
        let uuid = try #require(Self.target.uuid)
        let beacon = Self.beacon(holding: [0xFFF1: uuid.bytes, 0xFFF2: [1, 2], 0xFFF3: [4, 3], 0xFFF4: [0xC5], 0xFFF5: [0xA0, 0], 0xFFF6: [5]])
        let profile = try await Self.open(beacon, try Self.definition())
        let outcome = try await BeaconProvisioning.run(profile, password: BeaconPassword("123456"), target: Self.target)
        guard case .provisioned(let report) = outcome else {
            Issue.record("not provisioned: \(outcome)")
            return
        }
        #expect(report.written.isEmpty && !report.passwordChanged)
        #expect(beacon.writes.map(\.0) == [AttributeUUID(0xFFF7)])
    }

    @Test(
        "a wrong password is refused with nothing written, however the beacon says no",
        arguments: [
            (PasswordSpec.Refusal.readBack, ScriptedGATTServer.Refusal.stateByte), (.attError, .attError), (.disconnect, .hangUp),
        ])
    func wrongPassword(refusal: PasswordSpec.Refusal, beaconRefusal: ScriptedGATTServer.Refusal) async throws {
        let beacon = Self.beacon(refusal: beaconRefusal)
        let profile = try await Self.open(beacon, try Self.definition(refusal: refusal))
        let outcome = try await BeaconProvisioning.run(profile, password: BeaconPassword("000000"), target: Self.target)
        #expect(outcome == .refused(.refusedByBeacon))
        #expect(beacon.writes.map(\.0) == [AttributeUUID(0xFFF7)])
    }

    @Test("a value the table cannot hold is refused before anything is written")
    func unencodable() async throws {
        let beacon = Self.beacon()
        let profile = try await Self.open(beacon, try Self.definition())
        var target = Self.target
        target.txPower = -10
        do {
            _ = try await BeaconProvisioning.run(profile, password: BeaconPassword("123456"), target: target)
            Issue.record("−10 dBm was written as a level")
        } catch {
            #expect(error.kind == .invalidValue(.txPower, "-10 dBm is not one of the beacon's levels: -30, -20, -16, -12, -8, -4, 0, 4 dBm"))
        }
        #expect(beacon.writes.map(\.0) == [AttributeUUID(0xFFF7)])
    }

    @Test("a beacon without the table's service is not this profile's")
    func otherBeacon() async throws {
        let beacon = ScriptedGATTServer(services: [.init(uuid: AttributeUUID(0x180A), characteristics: [.init(uuid: AttributeUUID(0x2A24), value: [])])])
        do {
            _ = try await Self.open(beacon, try Self.definition())
            Issue.record("opened without its service")
        } catch let error as BeaconProfileError {
            guard case .notThisProfile(let what) = error.kind else {
                Issue.record("\(error)")
                return
            }
            #expect(what == "no service 0xFFF0, which the test-table profile configures through")
        }
    }

    @Test("a new password the table cannot carry is refused before the old one is tried")
    func badNewPassword() async throws {
        let beacon = Self.beacon()
        let profile = try await Self.open(beacon, try Self.definition())
        do {
            _ = try await BeaconProvisioning.run(profile, password: BeaconPassword("123456"), target: Self.target, newPassword: BeaconPassword("short"))
            Issue.record("a 5-character password was accepted for a 6-character table")
        } catch {
            #expect(error.kind == .invalidPassword("the password must be 6 characters long (it is 5)"))
        }
        #expect(beacon.writes.isEmpty)
    }

    @Test("recognition: every part given must match the advertisement")
    func recognition() {
        let spec = RecognitionSpec(advertisedService: AttributeUUID(0xFFF0), namePrefix: "TEST", manufacturerID: 0x0059)
        let name = ADStructure(type: 0x09, data: Array("TEST-7".utf8))
        let services = ADStructure(type: 0x03, data: [0x0F, 0x18, 0xF0, 0xFF])
        let company = ADStructure(type: 0xFF, data: [0x59, 0x00, 1, 2])
        #expect(spec.matches([name, services, company]))
        #expect(!spec.matches([name, services]))
        #expect(!spec.matches([ADStructure(type: 0x09, data: Array("OTHER".utf8)), services, company]))
        #expect(RecognitionSpec(advertisedService: AttributeUUID(0xFFF0)).matches([services]))
        #expect(!RecognitionSpec(advertisedService: AttributeUUID(0xFFF1)).matches([services]))
    }
}
