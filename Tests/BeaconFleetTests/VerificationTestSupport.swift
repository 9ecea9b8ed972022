import BeaconCore
import HCI

@testable import BeaconFleet

/// Scripted beacons and receptions for the verification tests.
enum Script {
    static let fleetUUID = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
    static let otherUUID = ProximityUUID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10)

    static func identity(minor: UInt16, major: UInt16 = 1, uuid: ProximityUUID = fleetUUID) -> BeaconIdentity {
        BeaconIdentity(uuid: uuid, major: major, minor: minor)
    }

    static func beacon(
        _ id: String, minor: UInt16, venue: String = "shop", power: MeasuredPowerExpectation = .calibrated(-59),
        intervalMilliseconds: Int = 100, mac: String? = nil
    ) -> ExpectedBeacon {
        ExpectedBeacon(
            beaconID: id, venueID: venue, identity: identity(minor: minor), measuredPower: power,
            intervalMilliseconds: intervalMilliseconds, expectedAddress: mac.flatMap(BluetoothAddress.init))
    }

    /// Static random addresses (top bits 11) unless said otherwise.
    static let deviceA = "C0:00:00:00:00:0A"
    static let deviceB = "C0:00:00:00:00:0B"
    /// Resolvable private addresses (top bits 01): rotated by the device.
    static let privateA = "40:00:00:00:00:0A"
    static let privateB = "40:00:00:00:00:0B"

    static func sighting(
        _ identity: BeaconIdentity, power: Int8 = -59, address: String = deviceA, at time: Double,
        random: Bool = true, rssi: Int? = -70
    ) -> Sighting {
        Sighting(
            advertisement: IBeaconAdvertisement(identity: identity, measuredPower: power), address: address,
            addressIsRandom: random, rssi: rssi, time: time, receiver: "script")
    }

    /// `count` receptions, `every` seconds apart from `start`.
    static func train(
        _ identity: BeaconIdentity, power: Int8 = -59, address: String = deviceA, from start: Double = 0,
        every interval: Double = 0.1, count: Int
    ) -> [Sighting] {
        (0..<count).map { sighting(identity, power: power, address: address, at: start + Double($0) * interval) }
    }

    static func plan(_ beacons: [ExpectedBeacon], otherKnown: [BeaconIdentity: String] = [:]) throws -> VerificationPlan {
        try VerificationPlan(expected: beacons, otherKnown: otherKnown, fleetUUIDs: [fleetUUID], scope: "fleet test")
    }
}

/// Feeds sightings in time order, each at its own time, and collects what happened.
struct Feed {
    var engine: VerificationEngine
    private(set) var events: [VerificationEvent] = []

    init(_ plan: VerificationPlan, policy: VerificationPolicy = VerificationPolicy()) {
        engine = VerificationEngine(plan: plan, policy: policy)
    }

    mutating func play(_ sightings: [Sighting]) {
        for sighting in sightings.sorted(by: { $0.time < $1.time }) {
            events += engine.observe(sighting, at: sighting.time)
        }
    }

    mutating func advance(to time: Double) {
        events += engine.advance(to: time)
    }

    var decided: [BeaconVerdict] {
        events.compactMap { if case .decided(let verdict) = $0 { verdict } else { nil } }
    }

    func verdict(_ id: String) -> BeaconVerdict? {
        decided.first { $0.beacon.beaconID == id }
    }

    var result: VerificationResult? { engine.result }
}

/// SplitMix64: reproducible randomness for packet-loss scripts.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
