import BeaconCore
import BeaconTestKit
import Testing

@testable import BeaconFleet

/// A time in seconds on the timeline's clock.
private func t(_ seconds: Double) -> PassTime {
    PassTime(sinceOrigin: .seconds(seconds))
}

@Suite("SightingTimeline: one clock for many receivers")
struct SightingTimelineTests {
    let door = VerificationScript.identity(minor: 1)

    func at(_ time: Double, _ receiver: String, _ clock: SightingClock = .elapsed) -> Sighting {
        VerificationScript.sighting(door, at: time, receiver: receiver, clock: clock)
    }

    @Test("the first sighting starts the clock; an elapsed-time receiver joins where the clock stands")
    func elapsedReceiversJoin() {
        var timeline = SightingTimeline(maximumReceivers: 4)
        #expect(timeline.place(at(5, "a"))?.time == t(5))
        #expect(timeline.now == t(5))
        #expect(timeline.place(at(7, "a"))?.time == t(7))
        #expect(timeline.place(at(0, "b"))?.time == t(7), "b's scan started later: it joins at the clock's time")
        #expect(timeline.place(at(1.5, "b"))?.time == t(8.5), "and keeps its own gaps")
        #expect(timeline.now == t(8.5))
    }

    @Test("receivers on Unix time share one base")
    func unixTimeIsShared() {
        var timeline = SightingTimeline(maximumReceivers: 4)
        timeline.advance(to: t(0))
        #expect(timeline.place(at(1_790_000_000, "a", .unix))?.time == t(0))
        #expect(timeline.place(at(1_790_000_003, "b", .unix))?.time == t(3), "3 s later on the same wall clock")
        #expect(timeline.unixTime(at: t(3)) == .seconds(1_790_000_003))
        #expect(timeline.time(atUnixTime: .seconds(1_790_000_010)) == t(10))
    }

    @Test("two receivers with different elapsed origins and one on Unix time, on one clock")
    func mixedClocks() {
        var timeline = SightingTimeline()
        // Box a's scan started 100 s before box b's; box c publishes Unix time.
        #expect(timeline.place(at(100, "a"))?.time == t(100))
        #expect(timeline.place(at(0.5, "b"))?.time == t(100), "b joins where the clock stands")
        #expect(timeline.place(at(1_790_000_000, "c", .unix))?.time == t(100), "so does the first on Unix time")
        #expect(timeline.place(at(102, "a"))?.time == t(102))
        #expect(timeline.place(at(2.5, "b"))?.time == t(102), "b's own 2 s gap")
        #expect(timeline.place(at(1_790_000_002, "c", .unix))?.time == t(102), "c's own 2 s gap")
        #expect(timeline.unixTime(at: t(102)) == .seconds(1_790_000_002), "the clock now knows Unix time")
        #expect(timeline.receivers == 2)
    }

    @Test("no guess from the size of a time: an elapsed time of 2e9 s stays elapsed")
    func noMagnitudeGuess() {
        var timeline = SightingTimeline()
        timeline.advance(to: t(0))
        #expect(timeline.place(at(2e9, "uptime"))?.time == t(0), "an elapsed clock joins where the clock stands")
        #expect(timeline.place(at(2e9 + 1, "uptime"))?.time == t(1))
        #expect(!timeline.knowsUnixTime, "no Unix time: none was said")
        #expect(timeline.unixTime(at: t(1)) == nil)
        // A small time that says it is Unix time is Unix time: it shares the Unix base.
        #expect(timeline.place(at(5, "epoch", .unix))?.time == t(1))
        #expect(timeline.place(at(7, "other", .unix))?.time == t(3))
    }

    @Test("a receiver keeps the base its first sighting gave it: a jump in its clock stays a jump")
    func aJumpStaysAJump() {
        var timeline = SightingTimeline(maximumReceivers: 4)
        #expect(timeline.place(at(0, "a"))?.time == t(0))
        #expect(timeline.place(at(9e9, "a"))?.time == t(9e9))
    }

    @Test("a late sighting keeps its own time but does not move the clock back")
    func lateSighting() {
        var timeline = SightingTimeline()
        #expect(timeline.place(at(10, "a"))?.advance == .started)
        #expect(timeline.place(at(12, "a"))?.advance == .moved)
        let late = timeline.place(at(11, "a"))
        #expect(late?.time == t(11) && late?.advance == .unchanged)
        #expect(timeline.now == t(12))
        #expect(timeline.advance(to: t(11)) == .unchanged)
        #expect(timeline.advance(to: t(13)) == .moved)
    }

    @Test("a live run ties a new receiver to the time its clock reads then, and only then")
    func joiningReadsTheClockOnce() {
        var timeline = SightingTimeline()
        timeline.advance(to: t(0))
        var reads = 0
        let clock = { () -> PassTime in
            reads += 1
            return t(4.25)
        }
        #expect(timeline.place(at(60, "a"), joining: clock)?.time == t(4.25))
        #expect(timeline.place(at(61, "a"), joining: clock)?.time == t(5.25))
        #expect(reads == 1)
    }

    @Test("a tie to Unix time tells the clock's times as dates; Unix-time sightings still join on arrival")
    func tie() {
        var timeline = SightingTimeline()
        timeline.advance(to: t(0))
        timeline.tieToUnixTime(offset: .seconds(1_790_000_000))
        #expect(timeline.unixTime(at: t(2)) == .seconds(1_790_000_002))
        timeline.advance(to: t(5))
        #expect(timeline.place(at(1_790_000_001, "broker", .unix))?.time == t(5), "a broker's delay is not silence")
        #expect(timeline.unixTime(at: t(5)) == .seconds(1_790_000_005), "the tie still tells dates")
    }

    @Test("beyond the limit: Unix-time sightings are still placed, elapsed-time ones cannot be")
    func beyondTheLimit() {
        var timeline = SightingTimeline(maximumReceivers: 1)
        timeline.advance(to: t(0))
        #expect(timeline.place(at(1_790_000_000, "a", .unix))?.time == t(0))
        #expect(timeline.place(at(1_790_000_002, "b", .unix))?.time == t(2))
        #expect(timeline.place(at(3, "c"))?.time == t(2), "c joins where the clock stands")
        #expect(timeline.place(at(3, "d")) == nil)
        #expect(timeline.receivers == 1)
    }
}
