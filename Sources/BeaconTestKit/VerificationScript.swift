import BeaconCore
import BeaconFleet
import HCI

/// Scripted beacons and receptions for tests of verification passes and their reports.
public enum VerificationScript {
    public static let fleetUUID = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
    public static let otherUUID = ProximityUUID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10)

    public static func identity(minor: UInt16, major: UInt16 = 1, uuid: ProximityUUID = fleetUUID) -> BeaconIdentity {
        BeaconIdentity(uuid: uuid, major: major, minor: minor)
    }

    public static func beacon(
        _ id: String, minor: UInt16, venue: String = "shop", power: MeasuredPowerExpectation = .calibrated(-59),
        intervalMilliseconds: Int = 100, mac: String? = nil
    ) -> ExpectedBeacon {
        ExpectedBeacon(
            beaconID: id, venueID: venue, identity: identity(minor: minor), measuredPower: power,
            intervalMilliseconds: intervalMilliseconds, expectedAddress: mac.flatMap(BluetoothAddress.init))
    }

    /// Static random addresses (top bits 11) unless said otherwise.
    public static let deviceA = "C0:00:00:00:00:0A"
    public static let deviceB = "C0:00:00:00:00:0B"
    /// Resolvable private addresses (top bits 01): rotated by the device.
    public static let privateA = "40:00:00:00:00:0A"
    public static let privateB = "40:00:00:00:00:0B"

    /// One reception; `address` is written as tests read best (`AA:BB:CC:DD:EE:FF`, either
    /// case) and read as every reader does: text that is not an address gives none.
    public static func sighting(
        _ identity: BeaconIdentity, power: Int8 = -59, address: String = deviceA, at time: Double,
        random: Bool = true, rssi: Int? = -70, receiver: String = "script", clock: SightingClock = .elapsed
    ) -> Sighting {
        Sighting(
            advertisement: IBeaconAdvertisement(identity: identity, measuredPower: power), address: BluetoothAddress(address),
            addressIsRandom: random, rssi: rssi, time: time, clock: clock, receiver: receiver)
    }

    /// `count` receptions, `every` seconds apart from `start`.
    public static func train(
        _ identity: BeaconIdentity, power: Int8 = -59, address: String = deviceA, from start: Double = 0,
        every interval: Double = 0.1, count: Int, rssi: Int? = -70, receiver: String = "script", clock: SightingClock = .elapsed
    ) -> [Sighting] {
        (0..<count).map {
            sighting(identity, power: power, address: address, at: start + Double($0) * interval, rssi: rssi, receiver: receiver, clock: clock)
        }
    }

    public static func plan(_ beacons: [ExpectedBeacon], otherKnown: [BeaconIdentity: String] = [:]) throws -> VerificationPlan {
        try VerificationPlan(expected: beacons, otherKnown: otherKnown, fleetUUIDs: [fleetUUID], scope: "fleet test")
    }
}

/// Feeds sightings to a verification engine in time order, each at its own time, and
/// collects what happened.
public struct VerificationFeed {
    public var engine: VerificationEngine
    public private(set) var events: [VerificationEvent] = []

    public init(_ plan: VerificationPlan, policy: VerificationPolicy = VerificationPolicy()) {
        engine = VerificationEngine(plan: plan, policy: policy)
    }

    public mutating func play(_ sightings: [Sighting]) {
        for sighting in sightings.sorted(by: { $0.time < $1.time }) {
            events += engine.observe(sighting, at: .seconds(sighting.time))
        }
    }

    /// `time`: seconds since the start.
    public mutating func advance(to time: Double) {
        events += engine.advance(to: .seconds(time))
    }

    public var decided: [BeaconVerdict] {
        events.compactMap { if case .decided(let verdict) = $0 { verdict } else { nil } }
    }

    public func verdict(_ id: String) -> BeaconVerdict? {
        decided.first { $0.beacon.beaconID == id }
    }

    public var result: VerificationResult? { engine.result }
}
