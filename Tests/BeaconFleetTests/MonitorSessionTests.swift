import BeaconTestKit
import BeaconCore
import Testing
import VirtualRadio

@testable import BeaconFleet

@Suite("Monitoring regions on the virtual radio", .timeLimit(.minutes(2)))
struct MonitorSessionTests {
    /// Overlapping regions, a wildcard at each level: the whole fleet, store 1, store 1's
    /// door beacon, and the depot.
    static let regions: [MonitoredRegion] = [
        region("fleet"), region("store-1", major: 1), region("door", major: 1, minor: 1), region("depot", major: 2),
    ]

    static func region(_ identifier: String, major: UInt16? = nil, minor: UInt16? = nil) -> MonitoredRegion {
        // The literals below are valid regions (a minor only with a major).
        MonitoredRegion(region: BeaconRegion(identifier: identifier, uuid: VirtualAirBench.uuid, major: major, minor: minor)!)
    }

    /// A walk along the x axis at 2 m/s, from 100 m before the door beacon to 100 m past
    /// the last one, past three beacons; heard up to 28.2 m away (0 dBm − 41 dB at 1 m −
    /// 20·log₁₀(d) ≥ the −70 dBm sensitivity). The events, and each one's air time.
    func walk(seed: UInt64, packetLoss: Double, exitPeriod: Double = 10) async throws -> [(String, Double)] {
        let bench = VirtualAirBench(seed: seed, propagation: PropagationModel(packetLoss: packetLoss, receiverSensitivity: -70))
        try await bench.addBeacon(VirtualAirBench.identity(1, 1), at: PlanPoint(x: 0, y: 0))
        try await bench.addBeacon(VirtualAirBench.identity(1, 2), at: PlanPoint(x: 40, y: 0))
        try await bench.addBeacon(VirtualAirBench.identity(2, 1), at: PlanPoint(x: 45, y: 0))
        let start = bench.now
        try await bench.startScanner(.walking(try Walk(waypoints: [PlanPoint(x: -100, y: 0), PlanPoint(x: 200, y: 0)], speed: 2)))
        var session = MonitorSession(regions: Self.regions, configuration: .init(exitPeriod: .passSeconds(exitPeriod)), start: .origin)
        var events: [RegionEvent] = []
        while bench.now - start < 160 {
            for sighting in try await bench.step(0.1) {
                var relative = sighting
                relative.time -= start
                events += session.observe(relative)
            }
            events += session.advance(to: .seconds(bench.now - start))
        }
        await bench.close()
        return events.map { ("\($0.kind.rawValue) \($0.regionIdentifier)", $0.time.seconds) }
    }

    /// In range of the door beacon (x = 0) from x = −28.2 m: 35.9 s into the walk, until
    /// 64.1 s; of the store's second beacon (x = 40) from 55.9 s to 84.1 s; of the depot's
    /// (x = 45) from 58.4 s to 86.6 s. Exits come 10 s after the last packet.
    static let expected: [(String, Double)] = [
        ("enter fleet", 35.9), ("enter store-1", 35.9), ("enter door", 35.9), ("enter depot", 58.4),
        ("exit door", 74.1), ("exit store-1", 94.1), ("exit fleet", 96.6), ("exit depot", 96.6),
    ]

    @Test("a walk past three beacons: the exact events, at the times the geometry gives")
    func walkPastTheBeacons() async throws {
        let events = try await walk(seed: 1, packetLoss: 0)
        #expect(events.map(\.0) == Self.expected.map(\.0))
        for ((name, time), (_, expected)) in zip(events, Self.expected) {
            // The 0.1 s step, 100 ms advertising and up to 10 ms advDelay.
            #expect(abs(time - expected) <= 0.25, "\(name) at \(time) s, expected \(expected) s")
        }
    }

    @Test("30 % packet loss: the same events, no exit-then-enter flapping", arguments: [2, 3, 4] as [UInt64])
    func packetLossDoesNotFlap(seed: UInt64) async throws {
        let events = try await walk(seed: seed, packetLoss: 0.3)
        #expect(events.map(\.0) == Self.expected.map(\.0))
        for ((name, time), (_, expected)) in zip(events, Self.expected) {
            // Lost packets move the first and last sightings by a few hundred milliseconds.
            #expect(abs(time - expected) <= 1, "\(name) at \(time) s, expected \(expected) s")
        }
    }

    @Test("state reports and ranging answer for the regions the device is inside")
    func stateAndRanging() throws {
        var session = MonitorSession(
            regions: Self.regions, configuration: .init(exitPeriod: .seconds(10)),
            ranging: RangingConfiguration(minimumSamples: 1), start: .origin)
        #expect(session.stateReports(at: .origin).map(\.state) == [.unknown, .unknown, .unknown, .unknown])
        func sighting(_ major: UInt16, _ minor: UInt16, rssi: Int, at time: Double) -> Sighting {
            Sighting(
                advertisement: IBeaconAdvertisement(identity: VirtualAirBench.identity(major, minor), measuredPower: -59),
                address: BluetoothAddress("C0:00:00:00:00:0\(minor)"), addressIsRandom: true, rssi: rssi, time: time, clock: .elapsed, receiver: "test")
        }
        _ = session.observe(sighting(1, 1, rssi: -75, at: 1))
        _ = session.observe(sighting(1, 2, rssi: -60, at: 1.5))
        _ = session.advance(to: .seconds(10.5))
        let states = session.stateReports(at: .seconds(10.5))
        #expect(states.map { "\($0.regionIdentifier) \($0.state.rawValue) \($0.time.seconds)" }
            == ["fleet inside 10.5", "store-1 inside 10.5", "door inside 10.5", "depot outside 10.5"])
        #expect(states[1].beacons == [VirtualAirBench.identity(1, 1), VirtualAirBench.identity(1, 2)])
        let ranging = session.ranging(at: .seconds(2))
        try #require(ranging.map(\.regionIdentifier) == ["fleet", "store-1", "door"])
        try #require(states.count == 4)
        // Nearest first: minor 2 is 15 dB stronger.
        #expect(ranging[0].beacons.map(\.identity.minor) == [2, 1])
        #expect(ranging[2].beacons.map(\.identity.minor) == [1])
        #expect(MonitorJSONLines.encode(states[3]) == #"{"event":"state","region":"depot","state":"outside","time":10.5,"beacons":[],"receivers":[]}"#)
        #expect(MonitorJSONLines.encode(states[2]).hasSuffix(#""receivers":[{"receiver":"test","sightings":1,"strongest_rssi":-75}]}"#))
        #expect(MonitorJSONLines.encode(ranging[2]).hasPrefix(#"{"event":"range","region":"door","time":2,"beacons":[{"uuid":"89D6E936-F61F-4227-BCD2-6E94C5A6B2E3","major":1,"minor":1,"address":"C0:00:00:00:00:01","rssi":-75,"#))
        #expect(MonitorJSONLines.encode(ranging[2]).hasSuffix(#","receiver":"test"}]}"#))
    }

    @Test("several receivers: a stay names each receiver that heard it, strongest first; each ranges on its own readings")
    func severalReceivers() throws {
        var session = MonitorSession(
            regions: [Self.region("store-1", major: 1)], configuration: .init(exitPeriod: .seconds(10)),
            ranging: RangingConfiguration(minimumSamples: 1), start: .origin)
        func sighting(_ receiver: String, rssi: Int?, at time: Double) -> Sighting {
            Sighting(
                advertisement: IBeaconAdvertisement(identity: VirtualAirBench.identity(1, 1), measuredPower: -59),
                address: BluetoothAddress("C0:00:00:00:00:01"), addressIsRandom: false, rssi: rssi, time: time, clock: .elapsed, receiver: receiver)
        }
        let entry = session.observe(sighting("far-box", rssi: -90, at: 1))
        #expect(entry.first?.receivers == [StayReceiver(receiver: "far-box", sightings: 1, strongestRSSI: -90)])
        for time in stride(from: 1.5, through: 4, by: 0.5) {
            _ = session.observe(sighting("near-box", rssi: -60, at: time))
            _ = session.observe(sighting("far-box", rssi: -88, at: time))
            _ = session.observe(sighting("quiet-box", rssi: nil, at: time))
        }
        let state = try #require(session.stateReports(at: .seconds(4)).first)
        #expect(state.receivers == [
            StayReceiver(receiver: "near-box", sightings: 6, strongestRSSI: -60),
            StayReceiver(receiver: "far-box", sightings: 7, strongestRSSI: -88),
            StayReceiver(receiver: "quiet-box", sightings: 6, strongestRSSI: nil),
        ])
        #expect(MonitorJSONLines.encode(state).hasSuffix(
            #""receivers":[{"receiver":"near-box","sightings":6,"strongest_rssi":-60},{"receiver":"far-box","sightings":7,"strongest_rssi":-88},{"receiver":"quiet-box","sightings":6,"strongest_rssi":null}]}"#))
        // One device, three receivers: three ranged entries, the nearer receiver's first,
        // each filtered on its own readings (not an average of -60 and -88).
        let ranged = try #require(session.ranging(at: .seconds(4)).first).beacons
        #expect(ranged.map(\.receiver) == ["near-box", "far-box", "quiet-box"])
        #expect(ranged[0].filteredRSSI == -60)
        #expect(ranged[1].filteredRSSI.map { (-90 ... -88).contains($0) } == true)
        #expect(ranged[2].filteredRSSI == nil)

        // The exit names who heard the stay; the next stay starts with no receivers.
        let exit = session.advance(to: .seconds(20))
        #expect(exit.map(\.kind) == [.exit])
        #expect(exit.first?.receivers.map(\.receiver) == ["near-box", "far-box", "quiet-box"])
        #expect(session.stateReports(at: .seconds(20)).first?.receivers == [])
    }

    @Test("a stay lists at most StayBeacons.receiverLimit receivers, the first to hear it")
    func receiverLimit() {
        var stay = StayBeacons()
        for index in 0..<(StayBeacons.receiverLimit + 10) {
            stay.insert(Sighting(
                advertisement: IBeaconAdvertisement(identity: VirtualAirBench.identity(1, 1), measuredPower: -59),
                address: BluetoothAddress("C0:00:00:00:00:01"), addressIsRandom: false, rssi: -50 - index, time: Double(index), clock: .elapsed,
                receiver: "box-\(index)"))
        }
        #expect(stay.receiversByStrength.count == StayBeacons.receiverLimit)
        #expect(stay.receiversByStrength.first?.receiver == "box-0")
        #expect(stay.receiversByStrength.last?.receiver == "box-\(StayBeacons.receiverLimit - 1)")
        #expect(stay.count == 1)
    }
}
