import BeaconCore
import Foundation
import Testing
import VirtualBeacons
import VirtualRadio

@testable import BeaconCLI

/// `provision --hardware` end to end on the virtual radio: the command line, the central,
/// the kbeacon profile and the verification against the virtual KBeacons of
/// `virtual:AIR,battery-beacons=N`.
///
/// The air runs in real time (`withRealTimeTestAir`): the command's own waits are on the
/// wall clock.
@Suite("beaconctl provision --hardware on the virtual radio", .timeLimit(.minutes(2)))
struct ProvisionVirtualBeaconsTests {
    static let manifest = """
        version: 1
        fleet: battery-shop
        uuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B
        defaults:
          interval_ms: 200
          tx_power: -4
          measured_power: -62
        venues:
          - id: shop
            major: 7
            beacons:
              - id: door
                minor: 1
        """

    private func beacon(on air: VirtualAir) throws -> VirtualKBeacon {
        let id = try #require(air.peripheralIDs.first)
        return try #require(air.peripheral(id) as? VirtualKBeacon)
    }

    @Test("a factory-fresh beacon is provisioned and verified; its mac: is written back; a second run finds it correct")
    func provisionThenAlreadyCorrect() async throws {
        try await withRealTimeTestAir(named: "provision") { air in
            let scratch = try ScratchFolder()
            let manifest = try scratch.write("shop.yaml", Self.manifest)
            let password = try scratch.write("password", KBeaconState.factoryPassword + "\n")
            let first = await runBeaconctl([
                "provision", manifest, "--hardware", "--hci", "virtual:\(air.name),battery-beacons=1", "--password-file", password,
                "--assign", "nearest", "--yes", "--discovery-seconds", "1",
            ])
            #expect(first.status == 0, "\(first.output)\(first.error)")
            let row = try #require(first.output.split(separator: "\n").first { $0.hasPrefix("door ") })
            #expect(row.split(separator: " ").prefix(4) == ["door", "06:BE:AC:BA:00:01", "kbeacon", "provisioned"], "\(row)")
            #expect(first.output.contains("passed: 1 beacon: 1 provisioned"), "\(first.output)")
            #expect(first.error.contains("provision: listening for 1 beacon on the air"))
            #expect(try scratch.read("shop.yaml").contains(#"mac: "06:BE:AC:BA:00:01""#))

            let written = try beacon(on: air).state
            let uuid = try ProximityUUID(parsing: "04F6CBA0-321A-40F4-BDE2-A613959BBF4B")
            #expect(written.identity == BeaconIdentity(uuid: uuid, major: 7, minor: 1))
            #expect(written.measuredPower == -62 && written.iBeaconSlot?.txPower == -4 && written.iBeaconSlot?.interval == 200)

            let second = await runBeaconctl([
                "provision", manifest, "--hardware", "--hci", "virtual:\(air.name),battery-beacons=1", "--password-file", password,
                "--discovery-seconds", "1", "--format", "json",
            ])
            #expect(second.status == 0, "\(second.output)\(second.error)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(second.output.utf8)) as? [String: Any])
            let beacons = try #require(document["beacons"] as? [[String: Any]])
            #expect(beacons.map { $0["status"] as? String } == ["already-correct"])
            #expect(beacons.first?["verdict"] as? String == "ok")
            #expect(air.peripheralIDs.count == 1)  // the same spec opened again added no beacon
        }
    }

    @Test("a wrong password is refused, and after three refusals the beacon is locked: the right password is refused too")
    func wrongPasswordLocksOut() async throws {
        try await withRealTimeTestAir(named: "provision") { air in
            let scratch = try ScratchFolder()
            let manifest = try scratch.write("shop.yaml", Self.manifest)
            let wrong = try scratch.write("wrong", "1234567812345678\n")
            let right = try scratch.write("right", KBeaconState.factoryPassword + "\n")
            func run(_ password: String) async -> CommandResult {
                await runBeaconctl([
                    "provision", manifest, "--hardware", "--hci", "virtual:\(air.name),battery-beacons=1", "--password-file", password,
                    "--assign", "nearest", "--yes", "--discovery-seconds", "1",
                ])
            }
            for attempt in 1...3 {
                let result = await run(wrong)
                #expect(result.status == 1, "\(result.output)\(result.error)")
                #expect(result.output.contains("refused"), "\(result.output)")
                #expect(try beacon(on: air).failedAttempts == attempt)
            }
            #expect(try beacon(on: air).isLockedOut)
            let locked = await run(right)
            #expect(locked.status == 1, "\(locked.output)\(locked.error)")
            #expect(locked.output.contains("refused"), "\(locked.output)")
            // Nothing was written, and no mac: recorded for a beacon that was not provisioned.
            #expect(try beacon(on: air).state == KBeaconState.factory())
            #expect(!(try scratch.read("shop.yaml").contains("mac:")))
            #expect(!locked.output.contains(KBeaconState.factoryPassword) && !locked.error.contains(KBeaconState.factoryPassword))
        }
    }
}
