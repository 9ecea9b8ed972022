import BeaconCore
import BeaconPlatform
import Foundation
import HCI
import HCITransports
import Logging
import Testing

@testable import BeaconFleet

/// The scanner against the built-in virtual radio: a second controller on the same air
/// advertises an iBeacon through `HostController`, and the scanner hears it.
@Suite("Scanner on the virtual radio", .timeLimit(.minutes(1)))
struct ScannerVirtualRadioTests {
    @Test("both scanning families hear a legacy iBeacon three metres away", arguments: [ScanFamilyChoice.legacy, .extended])
    func hearsABeacon(family: ScanFamilyChoice) async throws {
        // An air of its own, so that parallel tests do not hear each other.
        let air = "scan-test-\(UUID().uuidString.prefix(8))"
        // The virtual controllers answer at once: the command timeouts are safety nets, long
        // enough that a machine busy with other tests never reaches them.
        let advertiser = HostController(
            transport: try await ControllerTransports.open(.virtual(scenario: "\(air)@0,0")), defaultTimeout: generousCommandTimeout)
        let advertisement = IBeaconAdvertisement(
            identity: BeaconIdentity(uuid: testUUID, major: 7, minor: 9), measuredPower: -59)
        try await advertiser.send(Reset())
        try await advertiser.send(LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        try await advertiser.send(try LESetAdvertisingData(data: advertisement.advertisingData))
        try await advertiser.send(LESetAdvertisingEnable(true))

        let spec = HCITransportSpec.virtual(scenario: "\(air)@3,0")
        let scannerHost = HostController(transport: try await ControllerTransports.open(spec), defaultTimeout: generousCommandTimeout)
        let scanner = BeaconScanner(
            host: scannerHost,
            configuration: ScanConfiguration(family: family, access: ControllerAccess(spec), receiver: spec.description),
            logger: Logger(label: "scan-tests") { _ in SwiftLogNoOpLogHandler() })
        let session = try await scanner.start()
        var sightings: [Sighting] = []
        for try await sighting in session.sightings {
            sightings.append(sighting)
            if sightings.count == 5 { break }
        }
        await session.stop()
        await scannerHost.close()
        await advertiser.close()

        #expect(sightings.count == 5)
        #expect(sightings.allSatisfy { $0.advertisement == advertisement && $0.receiver == spec.description })
        #expect(sightings.allSatisfy { $0.clock == .elapsed }, "the virtual radio's scan counts from its start")
        #expect(Set(sightings.map(\.address)).count == 1)
        #expect(sightings.allSatisfy { $0.rssi != nil })
    }
}
