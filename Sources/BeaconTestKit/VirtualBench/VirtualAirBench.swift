import BeaconCore
import BeaconFleet
import HCI
import HCITransports
import VirtualRadio

/// A virtual-time air for simulations (the ranging benchmark) and tests (monitoring,
/// calibration): beacons advertising from fixed points (legacy advertising at 100 ms,
/// 0 dBm, measured power −41 dBm: the model's truth at 1 m) and one scanner, stepped
/// through air time with every report turned into a `Sighting` stamped with the air time
/// it arrived by. Everything goes through real HCI: host controllers, virtual controllers,
/// the simulated air.
public final class VirtualAirBench {
    public static let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)

    public let air: VirtualAir
    private var advertisers: [ScenarioHost] = []
    private var scanner: ScenarioHost?

    public init(seed: UInt64, propagation: PropagationModel) {
        air = VirtualAir(
            name: "bench-\(UInt32.random(in: 0...UInt32.max))",
            configuration: .init(seed: seed, propagation: propagation))
        VirtualAirRegistry.register(air)
    }

    public static func identity(_ major: UInt16, _ minor: UInt16) -> BeaconIdentity {
        BeaconIdentity(uuid: uuid, major: major, minor: minor)
    }

    /// A controller at `point` advertising `identity` every 100 ms.
    public func addBeacon(_ identity: BeaconIdentity, at point: PlanPoint) async throws {
        let host = try await ScenarioHost(try HCITransportSpec(parsing: "virtual:\(air.name)@\(point.x),\(point.y)"))
        let advertisement = IBeaconAdvertisement(identity: identity, measuredPower: -41)
        try await host.host.send(try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        try await host.host.send(try LESetAdvertisingData(data: advertisement.advertisingData))
        try await host.host.send(LESetAdvertisingEnable(true))
        advertisers.append(host)
    }

    /// The scanner, standing still or walking (the walk starts now), scanning continuously
    /// (interval = window = 100 ms, as `beaconctl` scans).
    public func startScanner(_ motion: Motion) async throws {
        air.definePlace("scanner", VirtualPlace(motion: motion))
        let host = try await ScenarioHost(try HCITransportSpec(parsing: "virtual:\(air.name)/scanner"))
        try await host.host.send(try LESetScanParameters(
            interval: try ScanInterval(milliseconds: 100), window: try ScanInterval(milliseconds: 100)))
        try await host.host.send(LESetScanEnable(true))
        scanner = host
    }

    /// Air seconds since the air started.
    public var now: Double { air.now.seconds }

    /// Runs the air `step` seconds further; returns what the scanner heard meanwhile, timed
    /// at the end of the step.
    public func step(_ step: Double) async throws -> [Sighting] {
        air.advance(by: .microseconds(Int64(saturating: step * 1_000_000)))
        guard let scanner else { return [] }
        let time = now
        return try await scanner.reports().compactMap { report in
            guard let advertisement = IBeaconAdvertisement(advertisingData: report.data) else { return nil }
            return Sighting(
                advertisement: advertisement, address: report.address, addressIsRandom: false,
                rssi: report.rssi.map(Int.init), time: time, clock: .elapsed, receiver: "bench")
        }
    }

    public func close() async {
        for host in advertisers { await host.close() }
        await scanner?.close()
        VirtualAirRegistry.remove(named: air.name)
    }
}
