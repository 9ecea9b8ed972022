import FleetManifest
import Testing

@testable import BeaconFleet

@Suite("Choosing a manifest's beacons to advertise")
struct ManifestBeaconSelectionTests {
    static let manifest = """
        version: 1
        fleet: jays-donuts
        uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
        defaults:
          interval_ms: 200
        venues:
          - id: cupertino
            major: 1
            host: pi-cupertino
            beacons:
              - {id: cupertino-register, minor: 1, measured_power: -59}
              - {id: cupertino-door, minor: 2, tx_power: 4}
          - id: soho
            major: 2
            beacons:
              - {id: soho-register, minor: 1, host: Pi-SoHo}
              - {id: soho-door, minor: 2}
        """

    func fleet() throws -> Fleet {
        let result = ManifestLoader.load(sources: [(name: "fleet.yaml", bytes: Array(Self.manifest.utf8))])
        try #require(result.errorCount == 0, "\(result.diagnostics.map(\.rendered))")
        return result.fleet
    }

    @Test("by host: exact, any case, and a fully qualified name matches its first label")
    func byHost() throws {
        let fleet = try fleet()
        #expect(try ManifestBeaconSelection.host("pi-cupertino").beacons(in: fleet).map(\.id) == ["cupertino-register", "cupertino-door"])
        #expect(try ManifestBeaconSelection.host("pi-soho").beacons(in: fleet).map(\.id) == ["soho-register"])
        #expect(try ManifestBeaconSelection.host("PI-CUPERTINO.example.com").beacons(in: fleet).count == 2)
    }

    @Test("a host without beacons: the error lists the hosts the manifest knows")
    func unknownHost() throws {
        let fleet = try fleet()
        #expect(throws: AdvertisingError.invalidRequest(
            "no beacon of the manifest is assigned to host `kiosk-7` (its hosts are `Pi-SoHo`, `pi-cupertino`); "
                + "pass the host setting NAME, the beacon setting ID or the all setting")) {
            try ManifestBeaconSelection.host("kiosk-7").beacons(in: fleet)
        }
    }

    @Test("by id: in the order given, duplicates once; unknown ids are named")
    func byID() throws {
        let fleet = try fleet()
        #expect(try ManifestBeaconSelection.ids(["soho-door", "cupertino-door", "soho-door"]).beacons(in: fleet).map(\.id)
            == ["soho-door", "cupertino-door"])
        #expect(throws: AdvertisingError.invalidRequest(
            "no beacon `nope`, `zilch` in the manifest; the fleet export command lists the beacon ids")) {
            try ManifestBeaconSelection.ids(["nope", "soho-door", "zilch"]).beacons(in: fleet)
        }
    }

    @Test("all, and the radio settings carried into requests")
    func allAndRequests() throws {
        let beacons = try ManifestBeaconSelection.all.beacons(in: try fleet())
        #expect(beacons.count == 4)
        let requests = try beacons.map(AdvertisingRequest.init)
        #expect(requests.map(\.beaconID) == ["cupertino-register", "cupertino-door", "soho-register", "soho-door"])
        #expect(requests[0].measuredPower == .dBm(-59))
        #expect(requests[1].measuredPower == .auto)
        #expect(requests[1].txPower == 4)
        #expect(requests.allSatisfy { $0.interval.units == 320 })  // 200 ms
        #expect(requests[3].identity.description == "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3/2/2")
    }
}
