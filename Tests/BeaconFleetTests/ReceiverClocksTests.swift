import BeaconCore
import BeaconTestKit
import Testing

@testable import BeaconFleet

@Suite("ReceiverClocks: one clock for many receivers")
struct ReceiverClocksTests {
    let door = VerificationScript.identity(minor: 1)

    func at(_ time: Double, _ receiver: String) -> Sighting {
        VerificationScript.sighting(door, at: time, receiver: receiver)
    }

    @Test("the first sighting starts the clock; an elapsed-time receiver joins where the clock stands")
    func elapsedReceiversJoin() {
        var clocks = ReceiverClocks(maximumReceivers: 4)
        #expect(clocks.time(of: at(5, "a"), now: nil) == 5)
        #expect(clocks.time(of: at(7, "a"), now: 5) == 7)
        #expect(clocks.time(of: at(0, "b"), now: 7) == 7, "b's scan started later: it joins at the clock's time")
        #expect(clocks.time(of: at(1.5, "b"), now: 7) == 8.5, "and keeps its own gaps")
    }

    @Test("wall-clock receivers share one base")
    func wallClockIsShared() {
        var clocks = ReceiverClocks(maximumReceivers: 4)
        #expect(clocks.time(of: at(1_790_000_000, "a"), now: 0) == 0)
        #expect(clocks.time(of: at(1_790_000_003, "b"), now: 0) == 3, "3 s later on the same wall clock")
    }

    @Test("a receiver keeps the base its first sighting gave it: a jump in its clock stays a jump")
    func aJumpStaysAJump() {
        var clocks = ReceiverClocks(maximumReceivers: 4)
        #expect(clocks.time(of: at(0, "a"), now: nil) == 0)
        #expect(clocks.time(of: at(9e9, "a"), now: 0) == 9e9)
    }

    @Test("beyond the limit: wall-clock sightings are still placed, elapsed-time ones cannot be")
    func beyondTheLimit() {
        var clocks = ReceiverClocks(maximumReceivers: 1)
        #expect(clocks.time(of: at(1_790_000_000, "a"), now: 0) == 0)
        #expect(clocks.time(of: at(1_790_000_002, "b"), now: 0) == 2)
        #expect(clocks.time(of: at(3, "c"), now: 2) == nil)
        #expect(clocks.receivers == 1)
    }
}
