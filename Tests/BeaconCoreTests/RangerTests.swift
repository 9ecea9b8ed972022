import Testing
@testable import BeaconCore

@Suite("Beacon ranger")
struct RangerTests {
    static let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
    static let door = BeaconIdentity(uuid: uuid, major: 1, minor: 1)
    static let till = BeaconIdentity(uuid: uuid, major: 1, minor: 2)

    static func sighting(
        _ identity: BeaconIdentity, rssi: Int?, at time: Double, power: Int8 = -59,
        address: String = "C4:5B:BE:12:34:56", receiver: String = "test"
    ) -> Sighting {
        Sighting(
            advertisement: IBeaconAdvertisement(identity: identity, measuredPower: power),
            address: BluetoothAddress(address), addressIsRandom: false, rssi: rssi, time: time, clock: .elapsed, receiver: receiver)
    }

    /// `count` packets at 10 Hz from `start`.
    static func tenHertz(
        _ identity: BeaconIdentity, rssi: Int?, from start: Double = 0, count: Int, power: Int8 = -59,
        address: String = "C4:5B:BE:12:34:56", receiver: String = "test"
    ) -> [Sighting] {
        (0..<count).map {
            sighting(identity, rssi: rssi, at: start + Double($0) / 10, power: power, address: address, receiver: receiver)
        }
    }

    @Test func unknownUntilEnoughSamplesThenClassified() throws {
        var ranger = BeaconRanger()
        ranger.add(Self.sighting(Self.door, rssi: -59, at: 0))
        ranger.add(Self.sighting(Self.door, rssi: -59, at: 0.1))
        var beacon = try #require(ranger.snapshot(at: .seconds(0.1)).first)
        #expect(beacon.proximity == .unknown)
        #expect(beacon.accuracy == nil)
        #expect(beacon.filteredRSSI == -59)
        ranger.add(Self.sighting(Self.door, rssi: -59, at: 0.2))
        beacon = try #require(ranger.snapshot(at: .seconds(0.2)).first)
        // RSSI equal to the measured power: one metre, and its whole interval (0.72–2 m)
        // "near" (0.5 m ≤ d < 3 m).
        #expect(beacon.accuracy == 1)
        let interval = try #require(beacon.accuracyInterval)
        #expect(abs(interval.lowerBound - 0.72) < 1e-9 && abs(interval.upperBound - 2) < 1e-9)
        #expect(beacon.proximity == .near)
        #expect(beacon.sampleCount == 3)
        #expect(beacon.packetCount == 3)
    }

    @Test func accuracyFollowsThePathLossExponent() throws {
        var ranger = BeaconRanger(configuration: RangingConfiguration(distanceModel: PathLossModel(pathLossExponent: 3)))
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -89, count: 20))
        let beacon = try #require(ranger.snapshot(at: .seconds(1.9)).first)
        // −59 − 30·log10(d) = −89  ⇒  d = 10 m.
        #expect(abs(try #require(beacon.accuracy) - 10) < 1e-9)
        #expect(beacon.proximity == .far)
    }

    @Test func immediateBelowHalfAMetre() throws {
        var ranger = BeaconRanger()
        // −59 − 35·log10(0.19) ≈ −34 dBm: 0.19 m, interval 0.14–0.39 m, all below 0.5 m.
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -34, count: 10))
        #expect(ranger.snapshot(at: .seconds(0.9)).first?.proximity == .immediate)
    }

    @Test("the default ranges with n = 3.5 and keeps the 1 m calibration: RSSI at the measured power is 1 m")
    func defaultExponent() throws {
        var ranger = BeaconRanger()
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -59 - 35, count: 10))
        let beacon = try #require(ranger.snapshot(at: .seconds(0.9)).first)
        #expect(abs(try #require(beacon.accuracy) - 10) < 1e-9)
        #expect(beacon.proximity == .far)
    }

    @Test("a distance whose interval spans two classes is unknown, never a guess; the estimate stays")
    func intervalAcrossClassesIsUnknown() throws {
        var ranger = BeaconRanger()
        // −59 − 35·log10(2.1) ≈ −70 dBm: 2.1 m, interval 1.5–4.2 m across the 3 m near/far line.
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -70, count: 10))
        let beacon = try #require(ranger.snapshot(at: .seconds(0.9)).first)
        let accuracy = try #require(beacon.accuracy)
        let interval = try #require(beacon.accuracyInterval)
        #expect(abs(accuracy - 2.06) < 0.01)
        #expect(interval.lowerBound < 3 && interval.upperBound >= 3)
        #expect(beacon.proximity == .unknown)
        // Across 0.5 m (immediate/near) too: 0.49 m, interval 0.35–0.97 m.
        var close = BeaconRanger()
        close.add(contentsOf: Self.tenHertz(Self.door, rssi: -48, count: 10))
        #expect(close.snapshot(at: .seconds(0.9)).first?.proximity == .unknown)
    }

    @Test("the filter's spread widens the interval: readings spread wide say less than steady ones")
    func spreadWidensTheInterval() throws {
        var steady = BeaconRanger()
        steady.add(contentsOf: Self.tenHertz(Self.door, rssi: -65, count: 10))
        var spread = BeaconRanger()
        // The same middle (−65 dBm), readings ±10 dB: 4 of 10 at each extreme.
        let readings = [-75, -75, -75, -75, -65, -65, -55, -55, -55, -55]
        for (index, rssi) in readings.enumerated() {
            spread.add(Self.sighting(Self.door, rssi: rssi, at: Double(index) / 10))
        }
        let calm = try #require(steady.snapshot(at: .seconds(0.9)).first)
        let wide = try #require(spread.snapshot(at: .seconds(0.9)).first)
        #expect(calm.accuracy == wide.accuracy)
        let calmInterval = try #require(calm.accuracyInterval)
        let wideInterval = try #require(wide.accuracyInterval)
        #expect(wideInterval.lowerBound < calmInterval.lowerBound && wideInterval.upperBound > calmInterval.upperBound)
    }

    @Test func unknownWhenUnseenThenForgotten() throws {
        var ranger = BeaconRanger()
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -63, count: 10))
        #expect(ranger.snapshot(at: .seconds(5.8)).first?.proximity == .near)
        let stale = try #require(ranger.snapshot(at: .seconds(6.0)).first)
        #expect(stale.proximity == .unknown)
        #expect(stale.accuracy == nil)
        #expect(stale.lastSeen == 0.9)
        #expect(ranger.snapshot(at: .seconds(30.9)).count == 1)
        #expect(ranger.snapshot(at: .seconds(31.0)).isEmpty)
        ranger.forgetStale(at: .seconds(31))
        #expect(ranger.trackedCount == 0)
    }

    @Test func oneIdentityFromTwoAddressesIsTwoBeacons() {
        var ranger = BeaconRanger()
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -60, count: 5, address: "C4:5B:BE:00:00:01"))
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -75, count: 5, address: "C4:5B:BE:00:00:02"))
        let snapshot = ranger.snapshot(at: .seconds(0.4))
        #expect(snapshot.map(\.address?.description) == ["C4:5B:BE:00:00:01", "C4:5B:BE:00:00:02"])
        #expect(snapshot.allSatisfy { $0.identity == Self.door })
    }

    @Test("one device heard by two receivers is ranged twice, each on its own readings, never on their average")
    func oneDeviceTwoReceivers() {
        var ranger = BeaconRanger()
        for index in 0..<10 {
            ranger.add(Self.sighting(Self.door, rssi: -59, at: Double(index) / 10, receiver: "near-box"))
            ranger.add(Self.sighting(Self.door, rssi: -79, at: Double(index) / 10, receiver: "far-box"))
        }
        let snapshot = ranger.snapshot(at: .seconds(0.9))
        #expect(snapshot.map(\.receiver) == ["near-box", "far-box"])
        #expect(snapshot.map(\.filteredRSSI) == [-59, -79])
        #expect(snapshot.map(\.packetCount) == [10, 10])
        let near = snapshot.first?.accuracy ?? .nan
        let far = snapshot.last?.accuracy ?? .nan
        #expect(abs(near - 1) < 0.01)
        // −20 dB at the default n = 3.5: 10^(20/35) ≈ 3.7 m.
        #expect(abs(far - 3.73) < 0.01)
    }

    @Test func nearestFirstWithUnknownLast() {
        var ranger = BeaconRanger()
        ranger.add(contentsOf: Self.tenHertz(Self.till, rssi: -80, count: 10))
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -55, count: 10))
        let lonely = BeaconIdentity(uuid: Self.uuid, major: 1, minor: 3)
        ranger.add(Self.sighting(lonely, rssi: -40, at: 0.9))
        let order = ranger.snapshot(at: .seconds(0.9)).map(\.identity.minor)
        #expect(order == [1, 2, 3])
        #expect(ranger.snapshot(at: .seconds(0.9)).last?.proximity == .unknown)
    }

    @Test func packetRateOverTheWindow() throws {
        var ranger = BeaconRanger()
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -60, count: 11))
        // 11 packets from 0 to 1.0 s: ten intervals in one second.
        // Counted on exact times: 1.0 s from the first packet is one second, to the nanosecond.
        #expect(try #require(ranger.snapshot(at: .seconds(1.0)).first?.packetsPerSecond) == 10)
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -60, from: 1.1, count: 200))
        // Steady state: 100 packets in the 10 s window.
        let steady = try #require(ranger.snapshot(at: .seconds(20.9)).first?.packetsPerSecond)
        #expect(abs(steady - 10) < 0.2)
        var single = BeaconRanger()
        single.add(Self.sighting(Self.door, rssi: -60, at: 0))
        #expect(single.snapshot(at: .seconds(0)).first?.packetsPerSecond == nil)
    }

    @Test func implausibleMeasuredPowerGivesNoDistance() throws {
        // −3 dBm at 1 m: a misprogrammed byte that would put a −90 dBm beacon 35 km away.
        var ranger = BeaconRanger()
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -90, count: 10, power: -3))
        let beacon = try #require(ranger.snapshot(at: .seconds(0.9)).first)
        #expect(!beacon.measuredPowerIsPlausible)
        #expect(beacon.accuracy == nil)
        #expect(beacon.proximity == .unknown)
        #expect(beacon.filteredRSSI == -90)
    }

    @Test func packetsWithoutRSSICountButDoNotRange() throws {
        var ranger = BeaconRanger()
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: nil, count: 10))
        let beacon = try #require(ranger.snapshot(at: .seconds(0.9)).first)
        #expect(beacon.packetCount == 10)
        #expect(beacon.sampleCount == 0)
        #expect(beacon.rssi == nil)
        #expect(beacon.filteredRSSI == nil)
        #expect(beacon.proximity == .unknown)
    }

    @Test func aFloodOfIdentitiesIsBounded() {
        var ranger = BeaconRanger(configuration: RangingConfiguration(maximumTrackedBeacons: 50))
        for minor in 0..<200 {
            ranger.add(Self.sighting(BeaconIdentity(uuid: Self.uuid, major: 9, minor: UInt16(minor)), rssi: -70, at: Double(minor)))
        }
        #expect(ranger.trackedCount == 50)
        // The newest survive.
        #expect(ranger.beacon(.init(identity: BeaconIdentity(uuid: Self.uuid, major: 9, minor: 199), address: BluetoothAddress("C4:5B:BE:12:34:56"), receiver: "test"), at: .seconds(199)) != nil)
        #expect(ranger.beacon(.init(identity: BeaconIdentity(uuid: Self.uuid, major: 9, minor: 0), address: BluetoothAddress("C4:5B:BE:12:34:56"), receiver: "test"), at: .seconds(199)) == nil)
    }

    @Test func newestAdvertisementWinsForPower() throws {
        var ranger = BeaconRanger()
        ranger.add(Self.sighting(Self.door, rssi: -60, at: 0, power: -59))
        ranger.add(Self.sighting(Self.door, rssi: -61, at: 0.1, power: -65))
        let beacon = try #require(ranger.snapshot(at: .seconds(0.1)).first)
        #expect(beacon.measuredPower == -65)
        #expect(beacon.rssi == -61)
        #expect(beacon.firstSeen == 0 && beacon.lastSeen == 0.1)
    }

    @Test("staleness is counted on exact pass times: current up to the unseen timeout, kept up to forgetAfter, a nanosecond more is past")
    func stalenessOnExactTimes() throws {
        var ranger = BeaconRanger()
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -63, count: 10))
        // Last heard at 0.9 s; the limits hold to the nanosecond.
        let lastSeen = PassTime.seconds(0.9)
        #expect(ranger.snapshot(at: lastSeen + .seconds(5)).first?.proximity == .near)
        #expect(ranger.snapshot(at: lastSeen + .seconds(5) + .nanoseconds(1)).first?.proximity == .unknown)
        #expect(ranger.snapshot(at: lastSeen + .seconds(30)).count == 1)
        #expect(ranger.snapshot(at: lastSeen + .seconds(30) + .nanoseconds(1)).isEmpty)
        ranger.forgetStale(at: lastSeen + .seconds(30))
        #expect(ranger.trackedCount == 1)
        ranger.forgetStale(at: lastSeen + .seconds(30) + .nanoseconds(1))
        #expect(ranger.trackedCount == 0)
    }

    @Test("without forgetAfter a beacon is never forgotten (a recording ranged to its end)")
    func neverForgottenWithoutForgetAfter() throws {
        var ranger = BeaconRanger(configuration: RangingConfiguration(forgetAfter: nil))
        ranger.add(contentsOf: Self.tenHertz(Self.door, rssi: -63, count: 10))
        ranger.forgetStale(at: .seconds(1e9))
        let beacon = try #require(ranger.snapshot(at: .seconds(1e9)).first)
        #expect(beacon.proximity == .unknown)
        #expect(beacon.packetCount == 10)
    }

    @Test("a sighting whose time is no pass time is left out; one placed on the pass's clock ranges at that place")
    func sightingTimes() throws {
        var ranger = BeaconRanger()
        ranger.add(Self.sighting(Self.door, rssi: -60, at: .nan))
        ranger.add(Self.sighting(Self.door, rssi: -60, at: .infinity))
        ranger.add(Self.sighting(Self.door, rssi: -60, at: 2e12))
        #expect(ranger.trackedCount == 0)
        // Heard at 1.7e9 s on its receiver's clock, placed at 3 s on the pass's.
        ranger.add(Self.sighting(Self.door, rssi: -60, at: 1.7e9), at: .seconds(3))
        let beacon = try #require(ranger.snapshot(at: .seconds(3)).first)
        #expect(beacon.firstSeen == 3 && beacon.lastSeen == 3)
    }
}
