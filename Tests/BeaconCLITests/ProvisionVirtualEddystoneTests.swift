import BeaconCore
import Foundation
import Testing
import VirtualBeacons
import VirtualRadio

@testable import BeaconCLI

/// `provision --hardware` end to end against the virtual Eddystone configuration beacons of
/// `virtual:AIR,eddystone-beacons=N`: a manifest beacon is an iBeacon identity, which the
/// Eddystone Configuration GATT Service cannot carry, so the truthful outcome is
/// `unsupported`, said plainly, with the beacon's lock never touched. (The profile's unlock,
/// writes and lock code on the same beacons: EddystoneGATTProfileOnVirtualRadioTests.)
///
/// The air runs in real time (`withRealTimeTestAir`): the command's own waits are on the
/// wall clock.
@Suite("beaconctl provision --hardware against virtual Eddystone beacons", .timeLimit(.minutes(2)))
struct ProvisionVirtualEddystoneTests {
    static let manifest = ProvisionVirtualBeaconsTests.manifest
    /// The same shop with the KBeacon's address known, and a second beacon at the Eddystone
    /// beacon's address.
    static let mixedManifest = manifest + "\n" + """
                mac: "06:BE:AC:BA:00:01"
              - id: hall
                minor: 2
                mac: "06:BE:AC:BA:01:01"
        """

    private func eddystones(on air: VirtualAir) -> [VirtualEddystoneBeacon] {
        air.peripheralIDs.compactMap { air.peripheral($0) as? VirtualEddystoneBeacon }
    }

    @Test("--profile eddystone-gatt, and --profile auto recognising it: unsupported (no iBeacon identity), the lock untouched, no mac: written",
        arguments: ["eddystone-gatt", "auto"])
    func identityCannotBeCarried(profile: String) async throws {
        try await withRealTimeTestAir(named: "provision-eddystone") { air in
            let scratch = try ScratchFolder()
            let manifest = try scratch.write("shop.yaml", Self.manifest)
            let code = try scratch.write("code", String(repeating: "0", count: 32) + "\n")
            let run = await runBeaconctl([
                "provision", manifest, "--hardware", "--hci", "virtual:\(air.name),eddystone-beacons=1,battery=55", "--password-file", code,
                "--profile", profile, "--assign", "nearest", "--yes", "--discovery-seconds", "1", "--format", "json",
            ])
            #expect(run.status == 1, "\(run.output)\(run.error)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
            let door = try #require((document["beacons"] as? [[String: Any]])?.first)
            #expect(door["address"] as? String == "06:BE:AC:BA:01:01")
            #expect(door["profile"] as? String == "eddystone-gatt")
            #expect(door["status"] as? String == "unsupported")
            #expect((door["detail"] as? String)?.contains("cannot carry an iBeacon identity") == true, "\(door)")
            #expect(document["passed"] as? Bool == false)

            let beacon = try #require(eddystones(on: air).first)
            #expect(beacon.challengesIssued == 0 && beacon.failedAttempts == 0)
            #expect(beacon.state == EddystoneBeaconState.factory(instance: beacon.configuration.address.value, batteryPercent: 55))
            #expect(!(try scratch.read("shop.yaml").contains("mac:")))
        }
    }

    @Test("both kinds on one air with --profile auto: the KBeacon provisioned and verified, the Eddystone beacon unsupported")
    func mixedAir() async throws {
        try await withRealTimeTestAir(named: "provision-eddystone") { air in
            let scratch = try ScratchFolder()
            let manifest = try scratch.write("shop.yaml", Self.mixedManifest)
            let password = try scratch.write("password", KBeaconState.factoryPassword + "\n")
            let run = await runBeaconctl([
                "provision", manifest, "--hardware", "--hci", "virtual:\(air.name),battery-beacons=1,eddystone-beacons=1", "--password-file",
                password, "--discovery-seconds", "1",
            ])
            #expect(run.status == 1, "\(run.output)\(run.error)")
            let rows = run.output.split(separator: "\n").map { $0.split(separator: " ").prefix(4).map(String.init) }
            #expect(rows.contains(["door", "06:BE:AC:BA:00:01", "kbeacon", "provisioned"]), "\(run.output)")
            #expect(rows.contains(["hall", "06:BE:AC:BA:01:01", "eddystone-gatt", "unsupported"]), "\(run.output)")
            #expect(run.output.contains("cannot carry an iBeacon identity"), "\(run.output)")
            let beacon = try #require(eddystones(on: air).first)
            #expect(beacon.challengesIssued == 0)
        }
    }
}
