import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import Testing

@testable import BeaconFleet

/// The pass's typed time: instants on a pass's clock and on a receiver's, in whole
/// nanoseconds, read from outside seconds with checks, compared exactly.
@Suite("PassTime and ReceiverTime: checked, exact, ordered", .timeLimit(.minutes(1)))
struct PassTimeTests {
    @Test("seconds that cannot be a time are refused, never trapped on", arguments: [
        Double.nan, -Double.nan, .infinity, -.infinity, 1e300, -1e300, 1e13, -1e13, .greatestFiniteMagnitude,
    ])
    func refused(_ seconds: Double) {
        #expect(PassTime(checkedSeconds: seconds) == nil)
        #expect(ReceiverTime(checkedSeconds: seconds, clock: .unix) == nil)
        #expect(Duration(checkedSeconds: seconds, within: PassTime.acceptedSeconds) == nil)
    }

    @Test("every time a sighting may carry is a pass time, at both ends")
    func acceptedTimesFit() throws {
        for seconds in [Sighting.acceptedTimes.lowerBound, Sighting.acceptedTimes.upperBound, PassTime.acceptedSeconds.upperBound] {
            let time = try #require(PassTime(checkedSeconds: seconds))
            #expect(time.seconds == seconds)
        }
    }

    @Test("seconds are given back exactly: a recording's times, Unix times, negative and tiny ones", arguments: [
        0, 0.1, 1.5, 12.345678, 100.000001, 1e-9, -5.5, -0.25, 8_388_608.123456, 1_764_000_000.123456, 2e9 + 0.5, 9e9, -1e10,
    ])
    func roundTrip(_ seconds: Double) throws {
        #expect(try #require(PassTime(checkedSeconds: seconds)).seconds == seconds)
        #expect(try #require(ReceiverTime(checkedSeconds: seconds, clock: .elapsed)).seconds == seconds)
    }

    @Test("to the nearest nanosecond, carrying into the next second")
    func nanosecondRounding() throws {
        #expect(try #require(PassTime(checkedSeconds: 1.0000000004)).sinceOrigin == .seconds(1))
        #expect(try #require(PassTime(checkedSeconds: 1.9999999996)).sinceOrigin == .seconds(2))
        #expect(try #require(PassTime(checkedSeconds: -1.5)).sinceOrigin == .zero - .milliseconds(1500))
        #expect(try #require(PassTime(checkedSeconds: 1_764_000_000.25)).sinceOrigin == .seconds(1_764_000_000) + .milliseconds(250))
    }

    @Test("instants order and subtract exactly, where seconds as doubles do not")
    func exactOrderAndDifference() throws {
        let early = try #require(PassTime(checkedSeconds: 0.1))
        let late = try #require(PassTime(checkedSeconds: 0.3))
        // 0.3 - 0.1 is 0.19999999999999998 as doubles: as durations, 200 ms exactly.
        #expect(0.3 - 0.1 != 0.2)
        #expect(late - early == .milliseconds(200))
        #expect(early + .milliseconds(200) == late)
        #expect(late - .milliseconds(200) == early)
        let nanosecondLater = PassTime(sinceOrigin: .seconds(1_764_000_000) + .nanoseconds(1))
        #expect(PassTime(sinceOrigin: .seconds(1_764_000_000)) < nanosecondLater)
        #expect([late, .origin, early].sorted() == [.origin, early, late])
    }

    @Test("a receiver's time keeps its clock")
    func receiverTimeKeepsItsClock() throws {
        let sighting = VerificationScript.sighting(VerificationScript.identity(minor: 1), at: 42.5, receiver: "box", clock: .unix)
        let own = try #require(ReceiverTime(of: sighting))
        #expect(own.clock == .unix)
        #expect(own.sinceOrigin == .milliseconds(42_500))
    }

    @Test("a sighting whose own time cannot be read is not placed, and its receiver does not join on it")
    func unreadableSightingNotPlaced() throws {
        let door = VerificationScript.identity(minor: 1)
        var timeline = SightingTimeline(maximumReceivers: 4)
        timeline.advance(to: PassTime(sinceOrigin: .seconds(10)))
        for seconds in [Double.nan, .infinity, 1e300] {
            #expect(timeline.place(VerificationScript.sighting(door, at: seconds, receiver: "odd")) == nil)
        }
        #expect(timeline.receivers == 0)
        #expect(timeline.now == PassTime(sinceOrigin: .seconds(10)))
        // Its next readable sighting joins where the clock stands.
        #expect(timeline.place(VerificationScript.sighting(door, at: 3, receiver: "odd"))?.time == PassTime(sinceOrigin: .seconds(10)))
        #expect(timeline.receivers == 1)
    }

    @Test("a replayed sighting is monitored at its placed time, and keeps its receiver's own time and clock")
    func monitoredAtPlacedTime() {
        let door = VerificationScript.identity(minor: 1)
        // A valid region literal: a minor with its major.
        let region = MonitoredRegion(region: BeaconRegion(identifier: "door", uuid: VerificationScript.fleetUUID, major: 1, minor: 1)!)
        var session = MonitorSession(regions: [region], configuration: .init(exitPeriod: .seconds(10)), start: .seconds(100))
        let sighting = VerificationScript.sighting(door, at: 5, receiver: "b", clock: .elapsed)
        let events = session.observe(sighting, at: .seconds(101))
        #expect(events.filter { $0.kind == .enter }.map(\.time) == [.seconds(101)])
        // Silent for the exit period from its placed time, not from its own.
        #expect(session.advance(to: .seconds(110)).filter { $0.kind == .exit }.isEmpty)
        #expect(session.advance(to: .seconds(111.5)).filter { $0.kind == .exit }.map(\.regionIdentifier) == ["door"])
    }

    @Test("a live feed reaches its deadline exactly: the last tick at the deadline, a nanosecond after a whole tick")
    func exactDeadline() async throws {
        let clock = TestClock()
        let (sightings, continuation) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        let deadline = Duration.seconds(1) + .nanoseconds(1)
        let feed = LiveSightingFeed(sightings, tick: .seconds(1), queueLimit: 10, drops: DropCounter(), clock: clock, deadline: deadline)
        defer {
            feed.stop()
            continuation.finish()
        }
        var inputs = feed.inputs.makeAsyncIterator()
        var ticks: [Duration] = []
        for _ in 0..<2 {
            try await clock.sleepers(atLeast: 1)
            clock.advance(to: try #require(clock.nextDeadline))
            guard case .tick(let time)? = await inputs.next() else {
                Issue.record("expected a tick")
                return
            }
            ticks.append(time.sinceOrigin)
        }
        // Not "within a microsecond is the deadline": 1 s is not 1 s + 1 ns.
        #expect(ticks == [.seconds(1), deadline])
    }
}
