import BeaconCore
import BeaconTestKit
import Testing

@testable import BeaconFleet

/// The periodic reports of `monitor` stay bounded whatever the clock does.
@Suite("Monitor schedule")
struct MonitorScheduleTests {
    static let uuid = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)

    static func session() throws -> MonitorSession {
        let region = try #require(BeaconRegion(identifier: "store", uuid: uuid, major: 1))
        return MonitorSession(regions: [MonitoredRegion(region: region)], configuration: .init(exitPeriod: .seconds(5)), start: .origin)
    }

    static func sighting(at time: Double) -> Sighting {
        Sighting(
            advertisement: IBeaconAdvertisement(identity: BeaconIdentity(uuid: uuid, major: 1, minor: 1), measuredPower: -59),
            address: BluetoothAddress("C0:00:00:00:00:01"), addressIsRandom: true, rssi: -60, time: time, clock: .elapsed, receiver: "test")
    }

    @Test("a jump of 9e9 s with a 1 s period: a bounded number of reports, the skip said, the exit kept")
    func timeJump() throws {
        var session = try Self.session()
        var schedule = MonitorSchedule(stateEvery: .seconds(1), rangeEvery: nil)
        schedule.start(at: .origin)
        _ = session.observe(Self.sighting(at: 0))
        let reports = schedule.fire(until: .seconds(9e9), session: &session)
        #expect(reports.count <= MonitorSchedule.catchUpLimit + 2)
        let skipped = reports.compactMap { report -> Int? in
            if case .skipped(let count, _, _) = report { return count }
            return nil
        }
        #expect(skipped.count == 1)
        #expect((skipped.first ?? 0) > 8_000_000_000)
        // The exit 5 s after the last sighting is reported, at its own time, before the skip.
        let exits = reports.flatMap { report -> [RegionEvent] in
            if case .events(let events) = report { return events.filter { $0.kind == .exit } }
            return []
        }
        #expect(exits.map(\.time) == [.seconds(5)])
        // The clock moved on: the next step has only what falls due after it.
        let next = schedule.fire(until: .seconds(9e9 + 2), session: &session)
        #expect(next.count == 2)
    }

    @Test("a normal gap reports every period, in order")
    func normalGap() throws {
        var session = try Self.session()
        var schedule = MonitorSchedule(stateEvery: .seconds(1), rangeEvery: nil)
        schedule.start(at: .origin)
        let reports = schedule.fire(until: .seconds(10), session: &session)
        let times = reports.flatMap { report -> [PassTime] in
            if case .events(let events) = report { return events.filter { $0.kind == .state }.map(\.time) }
            return []
        }
        #expect(times == (1...10).map { .seconds(Double($0)) })
    }

    @Test("a cancelled task gets no flood of reports")
    func cancelled() async throws {
        let count = try await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var session = try Self.session()
            var schedule = MonitorSchedule(stateEvery: .seconds(1), rangeEvery: .seconds(1))
            schedule.start(at: .origin)
            return schedule.fire(until: .seconds(500), session: &session).count
        }.value
        #expect(count == 0)
    }

    @Test("periods below a millisecond are raised; zero or negative periods turn the report off")
    func periods() {
        let schedule = MonitorSchedule(stateEvery: .nanoseconds(1), rangeEvery: .zero)
        #expect(schedule.stateEvery == MonitorSchedule.shortestPeriod)
        #expect(schedule.rangeEvery == nil)
        #expect(MonitorSchedule(stateEvery: .seconds(-1), rangeEvery: nil).stateEvery == nil)
    }

    @Test("periods add up exactly: the thousandth report of a 0.1 s period falls at 100 s, not a rounding off it")
    func periodsAddUpExactly() throws {
        var session = try Self.session()
        var schedule = MonitorSchedule(stateEvery: .milliseconds(100), rangeEvery: nil)
        schedule.start(at: .origin)
        let reports = schedule.fire(until: .seconds(100), session: &session)
        let times = reports.flatMap { report -> [PassTime] in
            if case .events(let events) = report { return events.filter { $0.kind == .state && $0.regionIdentifier == "store" }.map(\.time) }
            return []
        }
        #expect(times.count == 1000)
        #expect(times.last == .seconds(100))
    }
}
