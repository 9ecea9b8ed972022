import ClockTestKit
import HCITestKit
import Synchronization
import Testing

@Suite("the test clock", .timeLimit(.minutes(1)))
struct TestClockTests {
    @Test("time stands still until advanced, by a duration or to an instant, never backwards")
    func advancing() {
        let clock = TestClock()
        let start = clock.now
        #expect(start.offset == .zero)
        clock.advance(by: .seconds(3))
        #expect(start.duration(to: clock.now) == .seconds(3))
        clock.advance(to: start.advanced(by: .milliseconds(4500)))
        #expect(clock.now.offset == .milliseconds(4500))
        clock.advance(to: start)
        #expect(clock.now.offset == .milliseconds(4500), "never backwards")
        #expect(clock.minimumResolution == .zero)
    }

    @Test("a sleeper wakes when its deadline is reached, not before")
    func sleeperWakesAtItsDeadline() async throws {
        let clock = TestClock()
        let woke = WatchedState(false)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(10))
            woke.update { $0 = true }
        }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(9999))
        #expect(clock.sleeperCount == 1, "9.999 s of 10: still asleep")
        #expect(!woke.value)
        clock.advance(by: .milliseconds(1))
        try await sleeper.value
        #expect(woke.value)
        #expect(clock.sleeperCount == 0)
    }

    @Test("a deadline already reached returns at once")
    func pastDeadline() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test("one advance wakes every sleeper it passes, earliest first; the others sleep on")
    func severalSleepers() async throws {
        let clock = TestClock()
        let order = RecordedLog<Int>()
        let tasks = [3, 1, 2, 7].map { seconds in
            Task {
                try await clock.sleep(for: .seconds(seconds))
                order.append(seconds)
            }
        }
        try await clock.sleepers(atLeast: 4)
        #expect(clock.nextDeadline?.offset == .seconds(1))
        clock.advance(by: .seconds(5))
        try await order.wait(for: "three sleepers woken") { $0.count == 3 }
        #expect(Set(order.elements) == [1, 2, 3])
        #expect(clock.sleeperCount == 1)
        clock.advance(to: TestClock.Instant(offset: .seconds(7)))
        for task in tasks { try await task.value }
        #expect(order.elements.last == 7)
    }

    @Test("cancelling a sleeper ends its sleep with CancellationError and takes it off the clock")
    func cancellationWhileAsleep() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try await clock.sleepers(atLeast: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("a task cancelled before it sleeps does not sleep")
    func cancellationBeforeSleeping() async throws {
        let clock = TestClock()
        let started = WatchedState(false)
        let gate = WatchedState(false)
        let sleeper = Task {
            started.update { $0 = true }
            _ = try? await gate.wait(for: "the gate") { $0 }
            try await clock.sleep(for: .seconds(60))
        }
        try await started.wait(for: "the task to start") { $0 }
        sleeper.cancel()
        gate.update { $0 = true }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("sleepers(atLeast:) waits for sleepers still to come, and can be cancelled")
    func waitingForSleepers() async throws {
        let clock = TestClock()
        let waited = Task { try await clock.sleepers(atLeast: 2) }
        let first = Task { try await clock.sleep(for: .seconds(1)) }
        let second = Task { try await clock.sleep(for: .seconds(2)) }
        try await waited.value
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(2))
        try await first.value
        try await second.value

        let never = Task { try await clock.sleepers(atLeast: 1) }
        never.cancel()
        await #expect(throws: CancellationError.self) { try await never.value }
    }

    @Test("used as any Clock<Duration>, as the live paths take it")
    func asAnyClock() async throws {
        let clock = TestClock()
        let any: any Clock<Duration> = clock
        let sleeper = Task { try await any.sleep(for: .milliseconds(250)) }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(250))
        try await sleeper.value
    }
}
