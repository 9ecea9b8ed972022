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
        var monitor = RegionMonitor(regions: [Self.region("store", major: 1)], configuration: .init(exitPeriod: 10), start: 0)
        var events: [RegionEvent] = []
        // Out of range for 5 s, then in range 5…20 s at 1 Hz, then gone.
        events += monitor.advance(to: 5)
        for t in stride(from: 5.0, through: 20, by: 1) { events += monitor.observe(Self.sighting(1, 2, at: t)) }
        events += monitor.advance(to: 29.9)
        #expect(events.map(\.kind) == [.enter])
        events += monitor.advance(to: 30)
        #expect(events.map(\.kind) == [.enter, .exit])
        #expect(events.map(\.time) == [5, 30])
        #expect(events.last?.beacons == [BeaconIdentity(uuid: Self.uuid, major: 1, minor: 2)])
        #expect(monitor.state(of: "store")?.state == .outside)
    }

    @Test func noFlappingAtThirtyPercentPacketLoss() {
        var monitor = RegionMonitor(regions: [Self.region("store")], configuration: .init(exitPeriod: 10), start: 0)
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
            start: 0)
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
            configuration: .init(exitPeriod: 5), start: 0)
        var events = monitor.observe(Self.sighting(1, 1, at: 0))
        events += monitor.observe(Self.sighting(2, 1, at: 1))
        for t in stride(from: 2.0, through: 10, by: 1) { events += monitor.observe(Self.sighting(2, 1, at: t)) }
        events += monitor.advance(to: 20)
        #expect(events.map { "\($0.kind.rawValue) \($0.regionIdentifier) \($0.time)" }
            == ["enter store-1 0.0", "enter store-2 1.0", "exit store-1 5.0", "exit store-2 15.0"])
    }

    @Test func entryNeedsTheMinimumSightingsAndStaleOnesDoNotCount() {
        var monitor = RegionMonitor(
            regions: [Self.region("store")], configuration: .init(exitPeriod: 10, minimumSightingsForEntry: 3), start: 0)
        #expect(monitor.observe(Self.sighting(1, 1, at: 0)).isEmpty)
        #expect(monitor.advance(to: 12).map(\.kind).isEmpty)  // outside now, silently (no stateOnStart)
        #expect(monitor.observe(Self.sighting(1, 1, at: 30)).isEmpty)  // the sighting at 0 is stale
        #expect(monitor.observe(Self.sighting(1, 1, at: 31)).isEmpty)
        #expect(monitor.observe(Self.sighting(1, 1, at: 32)).map(\.kind) == [.enter])
    }

    @Test func stateOnStartReportsTheFirstDetermination() {
        var monitor = RegionMonitor(
            regions: [Self.region("here", major: 1, stateOnStart: true), Self.region("away", major: 9, stateOnStart: true)],
            configuration: .init(exitPeriod: 10), start: 100)
        #expect(monitor.state(of: "here")?.state == .unknown)
        let first = monitor.observe(Self.sighting(1, 1, at: 101))
        #expect(first.map { "\($0.kind.rawValue) \($0.regionIdentifier) \($0.state.rawValue)" }
            == ["state here inside", "enter here inside"])
        let later = monitor.advance(to: 110)
        #expect(later.map { "\($0.kind.rawValue) \($0.regionIdentifier) \($0.state.rawValue) \($0.time)" }
            == ["state away outside 110.0"])
        #expect(monitor.state(of: "nowhere") == nil)
    }

    @Test func notifyFlagsSilenceEntryAndExit() {
        var quiet = Self.region("quiet")
        quiet.notifyOnEntry = false
        quiet.notifyOnExit = false
        var monitor = RegionMonitor(regions: [quiet], configuration: .init(exitPeriod: 1), start: 0)
        #expect(monitor.observe(Self.sighting(1, 1, at: 0)).isEmpty)
        #expect(monitor.state(of: "quiet")?.state == .inside)
        #expect(monitor.advance(to: 5).isEmpty)
        #expect(monitor.state(of: "quiet")?.state == .outside)
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
        var monitor = RegionMonitor(regions: [region], start: 0)
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
        let exits = monitor.advance(to: 80 + 31)
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
