import BeaconCore
import BeaconProfiles
import HCI
import LECentral
import Testing
import VirtualBeacons
import VirtualRadio

/// The eddystone-gatt profile over the virtual radio against ``VirtualEddystoneBeacon`` (the
/// service written from its document, independently of the profile): a central on the air
/// of `virtual:AIR,eddystone-beacons=1` unlocks with the AES challenge, writes the interval
/// and the power, reads them back and changes the lock code; a second connection finds the
/// beacon correct under the new code; wrong codes are refused until the beacon locks itself
/// out; an iBeacon identity is refused before the lock is touched; factory reset only when
/// asked.
///
/// The air runs in real time, ten times as fast as the wall clock: the central's waits are
/// on the wall clock (deadlines only: every answer comes at once).
@Suite("eddystone-gatt profile on the virtual radio against a virtual Eddystone beacon", .timeLimit(.minutes(2)))
struct EddystoneGATTProfileOnVirtualRadioTests {
    static let factoryCode = BeaconPassword(String(repeating: "0", count: 32))
    static let newCode = BeaconPassword("0123456789abcdeffedcba9876543210")
    static let wrongCode = BeaconPassword("ffeeddccbbaa99887766554433221100")
    static let target = BeaconSettings(txPower: -4, advertisingInterval: 350)
    static let address = VirtualBatteryBeacons.eddystoneAddress(1)

    /// A fresh air with one factory-fresh Eddystone beacon, and a started central on it.
    private func setUp() async throws -> (VirtualAir, Central) {
        let air = VirtualAir(
            name: "eddystone-profile-\(UInt32.random(in: 0...UInt32.max))",
            configuration: VirtualAir.Configuration(seed: 5, timeMode: .realTime(speed: 10)))
        VirtualAirRegistry.register(air)
        let spec = try VirtualControllerSpec(parsing: "\(air.name),eddystone-beacons=1")
        VirtualBatteryBeacons.ensure(kbeacons: 0, eddystones: spec.eddystoneBeacons ?? 0, on: air)
        let transport = try VirtualAirRegistry.openController(spec, transportName: "virtual:\(spec)")
        // Every answer comes at once: the timeout is a safety net only.
        let central = Central(host: HostController(transport: transport, defaultTimeout: .seconds(60)))
        try await central.start()
        return (air, central)
    }

    private func tearDown(_ air: VirtualAir, _ central: Central) async {
        await central.host.close()
        air.shutdown()
        VirtualAirRegistry.remove(named: air.name)
    }

    private func beacon(on air: VirtualAir) throws -> VirtualEddystoneBeacon {
        let id = try #require(air.peripheralIDs.first)
        return try #require(air.peripheral(id) as? VirtualEddystoneBeacon)
    }

    private func connect(_ central: Central) async throws -> (LEConnection, EddystoneGATTProfile) {
        let connection = try await central.connect(to: Self.address, type: .public, timeout: .seconds(30))
        return (connection, try await EddystoneGATTProfile.open(on: connection))
    }

    @Test("provisioned: unlocked, interval and power written and read back, the lock code changed; then already correct under the new code")
    func provisionedThenAlreadyCorrect() async throws {
        let (air, central) = try await setUp()
        do {
            let (connection, profile) = try await connect(central)
            let outcome = try await BeaconProvisioning.run(profile, password: Self.factoryCode, target: Self.target, newPassword: Self.newCode)
            guard case .provisioned(let report) = outcome else {
                Issue.record("not provisioned: \(outcome)")
                await tearDown(air, central)
                return
            }
            #expect(report.before.settings == BeaconSettings(txPower: 0, advertisingInterval: 1000))
            #expect(report.written == [.txPower, .advertisingInterval])
            #expect(report.after.settings == Self.target)
            #expect(report.passwordChanged)
            try await connection.disconnect()
            let written = try beacon(on: air)
            #expect(written.state.slots[0].interval == 350 && written.state.slots[0].radioTxPower == -4)
            #expect(written.state.lockCode == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10])
            #expect(written.lockState == 0x00)

            let (again, second) = try await connect(central)
            guard case .provisioned(let correct) = try await BeaconProvisioning.run(second, password: Self.newCode, target: Self.target) else {
                Issue.record("not found correct")
                await tearDown(air, central)
                return
            }
            #expect(correct.written.isEmpty && !correct.passwordChanged)
            try await again.disconnect()
            #expect(try beacon(on: air).factoryResets == 0)
            #expect(try beacon(on: air).failedAttempts == 0)
        } catch {
            Issue.record("\(error)")
        }
        await tearDown(air, central)
    }

    @Test("a wrong lock code: one token, refused, nothing written; three connections with it lock the beacon out, the right code refused too")
    func wrongCodeAndLockOut() async throws {
        let (air, central) = try await setUp()
        do {
            for attempt in 1...3 {
                let (connection, profile) = try await connect(central)
                let outcome = try await BeaconProvisioning.run(profile, password: Self.wrongCode, target: Self.target, newPassword: Self.newCode)
                #expect(outcome == .refused(.refusedByBeacon))
                try await connection.disconnect()
                #expect(try beacon(on: air).failedAttempts == attempt)
            }
            #expect(try beacon(on: air).isLockedOut)
            let (connection, profile) = try await connect(central)
            #expect(try await BeaconProvisioning.run(profile, password: Self.factoryCode, target: Self.target) == .refused(.refusedByBeacon))
            try await connection.disconnect()
            let locked = try beacon(on: air)
            #expect(locked.state == EddystoneBeaconState.factory(instance: Self.address.value))
            #expect(locked.challengesIssued == 4)
        } catch {
            Issue.record("\(error)")
        }
        await tearDown(air, central)
    }

    @Test("an iBeacon identity is refused before the lock is touched; factory reset only when asked, the lock code kept")
    func identityRefusedAndReset() async throws {
        let (air, central) = try await setUp()
        do {
            let (connection, profile) = try await connect(central)
            let identity = BeaconSettings(uuid: ProximityUUID(high: 1, low: 2), major: 1, minor: 2)
            do {
                _ = try await BeaconProvisioning.run(profile, password: Self.factoryCode, target: identity)
                Issue.record("an iBeacon identity was accepted by the eddystone-gatt profile")
            } catch {
                guard case .unsupported(.uuid, let why) = error.kind else {
                    Issue.record("\(error)")
                    await tearDown(air, central)
                    return
                }
                #expect(why.contains("no iBeacon identity"))
            }
            #expect(try beacon(on: air).challengesIssued == 0)

            #expect(try await profile.authenticate(Self.factoryCode) == .accepted)
            #expect(try beacon(on: air).factoryResets == 0)
            try await profile.factoryReset()
            #expect(try beacon(on: air).factoryResets == 1)
            try await connection.disconnect()
            #expect(try beacon(on: air).state.lockCode == EddystoneBeaconState.factoryLockCode)
        } catch {
            Issue.record("\(error)")
        }
        await tearDown(air, central)
    }
}
