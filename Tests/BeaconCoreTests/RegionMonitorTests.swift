import Testing
@testable import BeaconCore

@Suite("Region monitoring")
struct RegionMonitorTests {
    static let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
    static let other = ProximityUUID(high: 1, low: 1)

    static func sighting(_ major: UInt16, _ minor: UInt16, at time: Double, uuid: ProximityUUID = uuid) -> Sighting {
        Sighting(
            advertisement: IBeaconAdvertisement(identity: BeaconIdentity(uuid: uuid, major: major, minor: minor), measuredPower: -59),
            address: BluetoothAddress("C0:00:00:00:00:01"), addressIsRandom: true, rssi: -70, time: time, clock: .elapsed, receiver: "test")
    }

    static func region(_ id: String, major: UInt16? = nil, minor: UInt16? = nil, stateOnStart: Bool = false) -> MonitoredRegion {
        // Force-unwrapping is fine in tests: these literals are valid regions.
        MonitoredRegion(region: BeaconRegion(identifier: id, uuid: uuid, major: major, minor: minor)!, notifyStateOnStart: stateOnStart)
    }

    @Test func walkInAndOutGivesOneEnterAndOneExitAtTheRightTimes() {
        var monitor = RegionMonitor(regions: [Self.region("store", major: 1)], configuration: .init(exitPeriod: .seconds(10)), start: .origin)
        var events: [RegionEvent] = []
        // Out of range for 5 s, then in range 5…20 s at 1 Hz, then gone.
        events += monitor.advance(to: .seconds(5))
        for t in stride(from: 5.0, through: 20, by: 1) { events += monitor.observe(Self.sighting(1, 2, at: t)) }
        events += monitor.advance(to: .seconds(29.9))
        #expect(events.map(\.kind) == [.enter])
        events += monitor.advance(to: .seconds(30))
        #expect(events.map(\.kind) == [.enter, .exit])
        #expect(events.map(\.time) == [.seconds(5), .seconds(30)])
        #expect(events.last?.beacons == [BeaconIdentity(uuid: Self.uuid, major: 1, minor: 2)])
        #expect(monitor.state(of: "store")?.state == .outside)
    }

    @Test("an exit falls exactly one exit period after the last sighting, to the nanosecond")
    func exitComparesExactly() {
        var monitor = RegionMonitor(regions: [Self.region("store")], configuration: .init(exitPeriod: .milliseconds(300)), start: .origin)
        #expect(monitor.observe(Self.sighting(1, 1, at: 0.264)).map(\.kind) == [.enter])
        // 0.264 + 0.3 in seconds is a hair more than 0.564: on the clock it is 0.564 exactly.
        #expect(monitor.advance(to: .seconds(0.564) - .nanoseconds(1)).isEmpty)
        let exits = monitor.advance(to: .seconds(0.564))
        #expect(exits.map(\.kind) == [.exit])
        #expect(exits.map(\.time) == [.seconds(0.564)])
    }

    @Test("a sighting whose own time cannot be read is no place on the clock: left out")
    func unreadableTimeIsLeftOut() {
        var monitor = RegionMonitor(regions: [Self.region("store")], start: .origin)
        #expect(monitor.observe(Self.sighting(1, 1, at: .nan)).isEmpty)
        #expect(monitor.observe(Self.sighting(1, 1, at: .infinity)).isEmpty)
        #expect(monitor.state(of: "store")?.state == .unknown)
    }

    @Test func noFlappingAtThirtyPercentPacketLoss() {
        var monitor = RegionMonitor(regions: [Self.region("store")], configuration: .init(exitPeriod: .seconds(10)), start: .origin)
        var generator = LinearCongruential(seed: 30)
        var events: [RegionEvent] = []
        // A beacon at 10 Hz for 10 minutes; 30 % of packets lost, in bursts up to 3 s long.
        var t = 0.0
        while t < 600 {
            if generator.nextUnit() < 0.01 { t += generator.nextUnit() * 3 }  // a burst of loss
            if generator.nextUnit() >= 0.3 { events += monitor.observe(Self.sighting(1, 1, at: t)) }
            t += 0.1
        }
        #expect(events.map(\.kind) == [.enter])
    }

    @Test func wildcardsMatchAtEachLevel() {
        var monitor = RegionMonitor(
            regions: [Self.region("fleet"), Self.region("store-1", major: 1), Self.region("till", major: 1, minor: 2)],
            start: .origin)
        let atDoor = monitor.observe(Self.sighting(1, 1, at: 1))
        #expect(atDoor.map(\.regionIdentifier) == ["fleet", "store-1"])
        let atTill = monitor.observe(Self.sighting(1, 2, at: 2))
        #expect(atTill.map(\.regionIdentifier) == ["till"])
        let elsewhere = monitor.observe(Self.sighting(2, 2, at: 3))
        #expect(elsewhere.isEmpty)
        let foreign = monitor.observe(Self.sighting(1, 2, at: 4, uuid: Self.other))
        #expect(foreign.isEmpty)
    }

    @Test func overlappingRegionsExitIndependently() {
        var monitor = RegionMonitor(
            regions: [Self.region("store-1", major: 1), Self.region("store-2", major: 2)],
            configuration: .init(exitPeriod: .seconds(5)), start: .origin)
        var events = monitor.observe(Self.sighting(1, 1, at: 0))
        events += monitor.observe(Self.sighting(2, 1, at: 1))
        for t in stride(from: 2.0, through: 10, by: 1) { events += monitor.observe(Self.sighting(2, 1, at: t)) }
        events += monitor.advance(to: .seconds(20))
        #expect(events.map { "\($0.kind.rawValue) \($0.regionIdentifier) \($0.time.seconds)" }
            == ["enter store-1 0.0", "enter store-2 1.0", "exit store-1 5.0", "exit store-2 15.0"])
    }

    @Test func entryNeedsTheMinimumSightingsAndStaleOnesDoNotCount() {
        var monitor = RegionMonitor(
            regions: [Self.region("store")], configuration: .init(exitPeriod: .seconds(10), minimumSightingsForEntry: 3), start: .origin)
        #expect(monitor.observe(Self.sighting(1, 1, at: 0)).isEmpty)
        #expect(monitor.advance(to: .seconds(12)).map(\.kind).isEmpty)  // outside now, silently (no stateOnStart)
        #expect(monitor.observe(Self.sighting(1, 1, at: 30)).isEmpty)  // the sighting at 0 is stale
        #expect(monitor.observe(Self.sighting(1, 1, at: 31)).isEmpty)
        #expect(monitor.observe(Self.sighting(1, 1, at: 32)).map(\.kind) == [.enter])
    }

    @Test func stateOnStartReportsTheFirstDetermination() {
        var monitor = RegionMonitor(
            regions: [Self.region("here", major: 1, stateOnStart: true), Self.region("away", major: 9, stateOnStart: true)],
            configuration: .init(exitPeriod: .seconds(10)), start: .seconds(100))
        #expect(monitor.state(of: "here")?.state == .unknown)
        let first = monitor.observe(Self.sighting(1, 1, at: 101))
        #expect(first.map { "\($0.kind.rawValue) \($0.regionIdentifier) \($0.state.rawValue)" }
            == ["state here inside", "enter here inside"])
        let later = monitor.advance(to: .seconds(110))
        #expect(later.map { "\($0.kind.rawValue) \($0.regionIdentifier) \($0.state.rawValue) \($0.time.seconds)" }
            == ["state away outside 110.0"])
        #expect(monitor.state(of: "nowhere") == nil)
    }

    @Test func notifyFlagsSilenceEntryAndExit() {
        var quiet = Self.region("quiet")
        quiet.notifyOnEntry = false
        quiet.notifyOnExit = false
        var monitor = RegionMonitor(regions: [quiet], configuration: .init(exitPeriod: .seconds(1)), start: .origin)
        #expect(monitor.observe(Self.sighting(1, 1, at: 0)).isEmpty)
        #expect(monitor.state(of: "quiet")?.state == .inside)
        #expect(monitor.advance(to: .seconds(5)).isEmpty)
        #expect(monitor.state(of: "quiet")?.state == .outside)
    }
}

extension PassTime {
    /// A test's time written in seconds, to the nearest nanosecond as a pass places times.
    static func seconds(_ value: Double) -> PassTime {
        guard let time = PassTime(checkedSeconds: value) else { preconditionFailure("\(value) s is no pass time") }
        return time
    }
}

/// A tiny deterministic generator for the tests (Numerical Recipes' LCG constants).
struct LinearCongruential {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func nextUnit() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
}

/// A wildcard region over an air with tens of thousands of identities: bounded memory,
/// constant time per sighting, and events that say how many beacons they leave out.
@Suite("Region monitoring under many identities")
struct RegionMonitorManyIdentitiesTests {
    @Test("80 000 identities: the event lists the first 100 and counts up to 10 000, as a lower bound")
    func manyIdentities() throws {
        let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)
        let region = try #require(BeaconRegion(identifier: "all", uuid: uuid)).monitored
        var monitor = RegionMonitor(regions: [region], start: .origin)
        var entries: [RegionEvent] = []
        for index in 0..<80_000 {
            let identity = BeaconIdentity(uuid: uuid, major: UInt16(index / 65_536), minor: UInt16(index % 65_536))
            let advertisement = IBeaconAdvertisement(identity: identity, measuredPower: -59)
            let sighting = Sighting(
                advertisement: advertisement, address: BluetoothAddress("C0:00:00:00:00:01"), addressIsRandom: true,
                rssi: -60, time: Double(index) / 1000, clock: .elapsed, receiver: "test")
            entries += monitor.observe(sighting)
        }
        #expect(entries.count == 1)
        #expect(entries.first?.beacons.count == 1)
        let state = monitor.state(of: "all")
        #expect(state?.beacons.count == StayBeacons.listLimit)
        #expect(state?.beaconCount == StayBeacons.countLimit)
        #expect(state?.beaconCountIsLowerBound == true)
        #expect(state?.isBeaconListShortened == true)

        // Leaving the region reports the stay's bounded list too.
        let exits = monitor.advance(to: .seconds(80 + 31))
        #expect(exits.map(\.kind) == [.exit])
        #expect(exits.first?.beacons.count == StayBeacons.listLimit)
    }

    @Test("a stay below the limits lists every identity and is not marked shortened")
    func fewIdentities() {
        var stay = StayBeacons()
        let uuid = ProximityUUID(high: 1, low: 2)
        for minor in [UInt16(1), 2, 1, 3] { stay.insert(BeaconIdentity(uuid: uuid, major: 1, minor: minor)) }
        #expect(stay.listed.map(\.minor) == [1, 2, 3])
        #expect(stay.count == 3)
        #expect(!stay.countIsLowerBound)
    }
}

private extension BeaconRegion {
    var monitored: MonitoredRegion { MonitoredRegion(region: self) }
}
