import BeaconTestKit
import BeaconCore
import BeaconPlatform
import FleetManifest
import HCI
import HCITransports
import Testing
import VirtualRadio

@testable import BeaconFleet

@Suite("Virtual scenarios from a fleet manifest", .timeLimit(.minutes(1)))
struct VirtualScenarioTests {
    static let manifest = """
        version: 1
        fleet: scenario-test
        uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
        defaults:
          tx_power: -4
          measured_power: auto
        venues:
          - id: shop
            major: 1
            plan: {width: 20, height: 10}
            beacons:
              - id: shop-door
                minor: 1
                position: [1, 5]
              - id: shop-till
                minor: 2
                tx_power: 0
                position: [15, 8]
              - id: shop-back
                minor: 3
                position: [19, 1]
          - id: depot
            major: 2
            plan: {width: 30, height: 30}
            beacons:
              - id: depot-gate
                minor: 1
                position: [2, 2]
        """

    func loadFleet() throws -> Fleet {
        let result = ManifestLoader.load(sources: [(name: "scenario.yaml", bytes: Array(Self.manifest.utf8))])
        try #require(result.errorCount == 0, "\(result.diagnostics)")
        return result.fleet
    }

    /// A virtual-time air registered under a name of its own, so tests never share one.
    func registeredAir(seed: UInt64 = 1, propagation: PropagationModel = PropagationModel()) -> VirtualAir {
        let air = VirtualAir(
            name: "scenario-\(UInt32.random(in: 0...UInt32.max))",
            configuration: .init(seed: seed, propagation: propagation))
        VirtualAirRegistry.register(air)
        return air
    }

    @Test("venues lie 10 km apart; places for venues, beacons and tours")
    func layout() throws {
        let air = registeredAir()
        defer { VirtualAirRegistry.remove(named: air.name) }
        let scenario = VirtualScenario(fleet: try loadFleet(), on: air)
        #expect(scenario.venueOrigins == ["shop": PlanPoint(x: 0, y: 0), "depot": PlanPoint(x: 10_020, y: 0)])
        #expect(scenario.beaconPositions["depot-gate"] == PlanPoint(x: 10_022, y: 2))
        #expect(scenario.placeNames == [
            "depot", "depot-gate", "depot/tour", "shop", "shop-back", "shop-door", "shop-till", "shop/tour",
        ])
        #expect(air.place(named: "shop")?.motion == .fixed(PlanPoint(x: 10, y: 5)))
        #expect(air.place(named: "shop-till")?.motion == .fixed(PlanPoint(x: 16, y: 8)))
        let tour = try #require(air.place(named: "shop/tour"))
        #expect(tour.motion == .walking(try Walk(waypoints: [
            PlanPoint(x: 1, y: 5), PlanPoint(x: 15, y: 8), PlanPoint(x: 19, y: 1),
        ])))
        let identity = BeaconIdentity(
            uuid: try ProximityUUID(parsing: "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"), major: 1, minor: 2)
        #expect(air.beaconPlacement(of: identity) == PlanPoint(x: 15, y: 8))
        #expect(scenario.transportSpec(place: "shop/tour") == .virtual(scenario: "\(air.name)/shop/tour"))
    }

    @Test("virtual transport specs open controllers on the right air, or say what is wrong")
    func openingTransports() async throws {
        let air = registeredAir()
        defer { VirtualAirRegistry.remove(named: air.name) }
        _ = VirtualScenario(fleet: try loadFleet(), on: air)
        let spec = try HCITransportSpec(parsing: "virtual:\(air.name)/shop-door")
        let transport = try await ControllerTransports.open(spec)
        #expect(transport.name == "virtual:\(air.name)/shop-door")
        let virtual = try #require(transport as? VirtualControllerTransport)
        #expect(virtual.air === air)
        #expect(air.position(of: virtual.controller) == PlanPoint(x: 2, y: 5))
        await transport.close()

        let unknownPlace = await #expect(throws: HCITransportError.self) {
            _ = try await ControllerTransports.open(try HCITransportSpec(parsing: "virtual:\(air.name)/cellar"))
        }
        #expect(unknownPlace?.kind == .noSuchDevice)
        #expect(unknownPlace?.message.hasPrefix("virtual:\(air.name)/cellar: the air \"\(air.name)\" has no place \"cellar\"; its places are: depot, ") == true)

        let badName = await #expect(throws: HCITransportError.self) {
            _ = try await ControllerTransports.open(try HCITransportSpec(parsing: "virtual:two words"))
        }
        #expect(badName?.kind == .invalidSpec)
        #expect(badName?.message.hasPrefix("invalid transport \"virtual:two words\": ") == true)
    }

    @Test("`virtual` and `virtual:@X,Y` share the default air in real time: one advertises, the other hears it")
    func defaultAirIsShared() async throws {
        let advertiser = try await ScenarioHost(try HCITransportSpec(parsing: "virtual"))
        let scanner = try await ScenarioHost(try HCITransportSpec(parsing: "virtual:@3,4"))
        #expect(advertiser.host.name == "virtual" && scanner.host.name == "virtual:@3,4")
        let air = try #require(VirtualAirRegistry.air(named: VirtualControllerSpec.defaultAirName))
        #expect([advertiser.host.transport, scanner.host.transport].allSatisfy { ($0 as? VirtualControllerTransport)?.air === air })
        let beacon = IBeaconAdvertisement(
            identity: BeaconIdentity(uuid: try ProximityUUID(parsing: "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"), major: 7, minor: 7),
            measuredPower: -41)
        try await advertiser.host.send(try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        try await advertiser.host.send(try LESetAdvertisingData(data: beacon.advertisingData))
        try await advertiser.host.send(LESetAdvertisingEnable(true))
        try await scanner.host.send(try LESetScanParameters(
            interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10)))
        try await scanner.host.send(LESetScanEnable(true))
        // Real time (the default air runs on the wall clock, which is what this test shows):
        // 100 ms advertising brings a few reports in about half a second, later on a loaded
        // machine; they are awaited as they arrive (the suite's time limit is the safety net).
        let heard = await scanner.awaitReports(3) { $0.data == beacon.advertisingData }
        #expect(heard.count >= 3)
        // 5 m away at 0 dBm: −41 − 20·log₁₀(5) ≈ −55 dBm, give or take the live air's 3 dB shadowing.
        #expect(heard.allSatisfy { ($0.rssi.map(Int.init) ?? 0) < -40 && ($0.rssi.map(Int.init) ?? 0) > -75 })
        await advertiser.close()
        await scanner.close()
    }

    @Test("prepare lays a fleet out only for virtual transports")
    func prepare() throws {
        let fleet = try loadFleet()
        #expect(try VirtualScenario.prepare(fleet, for: .tcpClient(host: "127.0.0.1", port: 6402)) == nil)
        let name = "prepared-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            VirtualAirRegistry.air(named: name)?.shutdown()
            VirtualAirRegistry.remove(named: name)
        }
        let scenario = try #require(try VirtualScenario.prepare(fleet, for: try HCITransportSpec(parsing: "virtual:\(name)/shop")))
        #expect(scenario.air === VirtualAirRegistry.air(named: name))
        #expect(scenario.air.placeNames.contains("shop/tour"))
    }

    /// What a host advertising the fleet's beacons does, in short: one extended set per
    /// beacon, legacy non-connectable PDUs at the manifest's TX power.
    func advertise(_ beacons: [ResolvedBeacon], on host: HostController) async throws {
        var handles: [AdvertisingHandle] = []
        for (index, beacon) in beacons.enumerated() {
            let handle = try #require(AdvertisingHandle(rawValue: UInt8(index)))
            let selected = try await host.send(LESetExtendedAdvertisingParameters(
                handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault, txPower: Int8(beacon.txPower)))
            #expect(Int(selected) == beacon.txPower)
            let advertisement = IBeaconAdvertisement(identity: beacon.identity, measuredPower: Int8(selected) - 41)
            try await host.send(try LESetExtendedAdvertisingData(handle: handle, data: advertisement.advertisingData))
            handles.append(handle)
        }
        try await host.send(try LESetExtendedAdvertisingEnable(enabling: handles))
    }

    @Test("one host advertises every beacon; a walk through the shop hears each where it stands, never the depot")
    func tourHearsEachBeaconAtItsPosition() async throws {
        let air = registeredAir()
        defer { VirtualAirRegistry.remove(named: air.name) }
        let fleet = try loadFleet()
        let scenario = VirtualScenario(fleet: fleet, on: air)
        // The advertising controller stands at the air's origin; placement moves each beacon.
        let advertiser = try await ScenarioHost(scenario.transportSpec())
        try await advertise(fleet.beacons, on: advertiser.host)
        let walker = try await ScenarioHost(scenario.transportSpec(place: "shop/tour"))
        try await walker.host.send(LESetExtendedScanParameters(le1M: try .init(
            interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10))))
        try await walker.host.send(try LESetExtendedScanEnable(true))

        // The tour: 14.3 m to the till, 8.1 m to the back, at 1 m/s; follow it second by second.
        var strongest: [[UInt8]: (rssi: Int8, second: Int)] = [:]
        for second in 0..<24 {
            air.advance(by: .seconds(1))
            for report in try await walker.reports() {
                guard let rssi = report.rssi else { continue }
                if rssi > strongest[report.data]?.rssi ?? -128 { strongest[report.data] = (rssi, second) }
            }
        }
        let shop = fleet.beacons.filter { $0.venueID == "shop" }
        let heard = Set(strongest.keys.compactMap { IBeaconAdvertisement(advertisingData: $0)?.identity })
        #expect(heard == Set(shop.map(\.identity)))
        // Without shadowing the walk passes within centimetres of each beacon: TX power
        // − 41 dB at the 10 cm the model counts as the least distance, + 20 dB.
        for beacon in shop {
            let data = IBeaconAdvertisement(identity: beacon.identity, measuredPower: Int8(beacon.txPower) - 41).advertisingData
            let peak = try #require(strongest[data])
            #expect(Int(peak.rssi) >= beacon.txPower - 22, "\(beacon.id): strongest \(peak.rssi) dBm")
        }
        // The door first, the till after about 14 s, the back last.
        let seconds = shop.compactMap { beacon in
            strongest[IBeaconAdvertisement(identity: beacon.identity, measuredPower: Int8(beacon.txPower) - 41).advertisingData]?.second
        }
        #expect(seconds.count == 3 && seconds[0] <= 1 && (13...15).contains(seconds[1]) && seconds[2] >= 21)
        await walker.close()
        await advertiser.close()
    }

    @Test("at a beacon's place, 1 m away, the mean RSSI is the measured power `auto` announces")
    func calibrationPlace() async throws {
        let air = registeredAir(seed: 9, propagation: PropagationModel(shadowingSigma: 3))
        defer { VirtualAirRegistry.remove(named: air.name) }
        let fleet = try loadFleet()
        let scenario = VirtualScenario(fleet: fleet, on: air)
        let advertiser = try await ScenarioHost(scenario.transportSpec())
        try await advertise(fleet.beacons, on: advertiser.host)
        let calibrator = try await ScenarioHost(scenario.transportSpec(place: "shop-till"))
        try await calibrator.host.send(LESetExtendedScanParameters(le1M: try .init(
            interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10))))
        try await calibrator.host.send(try LESetExtendedScanEnable(true))
        air.advance(by: .seconds(60))
        let till = try #require(fleet.beacons.first { $0.id == "shop-till" })
        let tillData = IBeaconAdvertisement(identity: till.identity, measuredPower: Int8(till.txPower) - 41).advertisingData
        let samples = try await calibrator.reports().filter { $0.data == tillData }.compactMap(\.rssi).map(Double.init)
        #expect(samples.count > 400)
        let mean = samples.reduce(0, +) / Double(samples.count)
        #expect(abs(mean - Double(till.txPower - 41)) < 0.5, "mean \(mean) dBm over \(samples.count) samples")
        await calibrator.close()
        await advertiser.close()
    }
}
