import BeaconTestKit
import BeaconCore
import ClockTestKit
import Synchronization
import Testing

@testable import BeaconFleet

@Suite("BeaconVerifier: replaying and listening", .timeLimit(.minutes(1)))
struct VerifierRunTests {
    let door = VerificationScript.identity(minor: 1)
    let till = VerificationScript.identity(minor: 2)

    struct SourceFailed: Error, Equatable {}

    private func stream(_ sightings: [Sighting], failing: Bool = false) -> AsyncThrowingStream<Sighting, any Error> {
        AsyncThrowingStream { continuation in
            for sighting in sightings { continuation.yield(sighting) }
            continuation.finish(throwing: failing ? SourceFailed() : nil)
        }
    }

    @Test("replay: the capture's clock, from its first sighting")
    func replayUsesTheSightingsClock() async throws {
        let verifier = BeaconVerifier(plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy())
        // Capture times are seconds since some epoch; only differences matter.
        let sightings = VerificationScript.train(door, from: 5000, count: 8)
        let result = try await verifier.run(stream(sightings), timing: .replay)
        #expect(result.verdicts.map(\.status) == [.ok])
        #expect(result.endReason == .allDecided)
        #expect(result.duration == .milliseconds(500), "decided at the sighting 0.5 s into the capture")
    }

    @Test("replay: the end of the input judges what is open")
    func replayInputEnds() async throws {
        let verifier = BeaconVerifier(
            plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1), VerificationScript.beacon("till", minor: 2)]),
            policy: VerificationPolicy(timeout: nil))
        let updates = Mutex<[VerificationEvent]>([])
        let result = try await verifier.run(stream(VerificationScript.train(door, count: 20)), timing: .replay) { _, events in
            updates.withLock { $0 += events }
        }
        #expect(result.verdicts.map(\.status) == [.ok, .missing])
        #expect(result.endReason == .inputEnded)
        #expect(result.duration == .milliseconds(1900))
        #expect(updates.withLock { $0.last } == .finished(.inputEnded))
    }

    @Test("replay: an error from the source ends the pass with it")
    func replayError() async throws {
        let verifier = BeaconVerifier(plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy())
        await #expect(throws: SourceFailed.self) {
            _ = try await verifier.run(stream(VerificationScript.train(door, count: 2), failing: true), timing: .replay)
        }
    }

    @Test("live: decided once the settle window passes on the pass's clock, then stops")
    func liveEarlyStop() async throws {
        let verifier = BeaconVerifier(plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(20)))
        let (sightings, continuation) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        // The stream stays open: only the decision may end the pass.
        for sighting in VerificationScript.train(door, count: 3) { continuation.yield(sighting) }
        // Time passes a tick at a time, each time the pass waits for its next tick.
        let clock = TestClock()
        let result = try await clock.advancing(by: .milliseconds(10)) {
            try await verifier.run(sightings, timing: .live(tick: .milliseconds(10)), clock: clock)
        }
        continuation.finish()
        // Ended by the decision, on the pass's own clock, not by the 20 s timeout.
        #expect(result.endReason == .allDecided)
        #expect(result.verdicts.map(\.status) == [.ok])
        #expect(result.duration >= .milliseconds(300), "not before the settle window closed")
        #expect(result.duration < .seconds(20), "before the timeout")
    }

    @Test("live: each sighting is stamped once, by its receiver; the pass ties the receiver to its clock at the first")
    func liveKeepsTheReceiversTimes() async throws {
        let verifier = BeaconVerifier(plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(20)))
        let (sightings, continuation) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        // A receiver whose scan started 50 s before the pass: three receptions 0.1 s apart,
        // delivered together. Their gaps are the receiver's, not the moments they arrived.
        for sighting in VerificationScript.train(door, from: 50, count: 3) { continuation.yield(sighting) }
        let clock = TestClock()
        let result = try await clock.advancing(by: .milliseconds(10)) {
            try await verifier.run(sightings, timing: .live(tick: .milliseconds(10)), clock: clock)
        }
        continuation.finish()
        let observation = try #require(result.verdicts.first?.observation)
        let first = try #require(observation.firstSeen)
        let last = try #require(observation.lastSeen)
        #expect(last - first == .milliseconds(200), "placed by their own times: \(first)…\(last)")
        #expect(first < .seconds(1), "tied to the pass's clock where it stood, not at the receiver's 50 s")
    }

    @Test("live: the timeout comes on a silent air")
    func liveTimeout() async throws {
        let verifier = BeaconVerifier(plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(0.3)))
        let (sightings, continuation) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        defer { continuation.finish() }
        let clock = TestClock()
        let result = try await clock.advancing(by: .milliseconds(10)) {
            try await verifier.run(sightings, timing: .live(tick: .milliseconds(10)), clock: clock)
        }
        #expect(result.endReason == .timeout)
        #expect(result.verdicts.map(\.status) == [.missing])
        #expect(result.duration == .milliseconds(300))
    }

    @Test("live: cancelling the task ends the pass as interrupted, with verdicts from what was heard")
    func liveCancelled() async throws {
        let verifier = BeaconVerifier(
            plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1), VerificationScript.beacon("till", minor: 2)]),
            policy: VerificationPolicy(timeout: .seconds(60)))
        let (sightings, continuation) = AsyncThrowingStream<Sighting, any Error>.makeStream()
        for sighting in VerificationScript.train(door, count: 2) { continuation.yield(sighting) }
        let (heard, hearing) = AsyncStream<Int>.makeStream()
        // A clock that never moves: only the cancellation can end the pass.
        let clock = TestClock()
        let run = Task {
            try await verifier.run(sightings, timing: .live(tick: .milliseconds(10)), clock: clock) { progress, _ in
                hearing.yield(progress.sightings)
            }
        }
        // Cancelled once the pass has taken both sightings in, whenever that is.
        for await count in heard where count >= 2 { break }
        run.cancel()
        let result = try await run.value
        continuation.finish()
        #expect(result.endReason == .interrupted)
        #expect(result.verdicts.map(\.status) == [.weak, .missing])
    }

    @Test("live: a failing source (a controller gone) ends the pass with its error")
    func liveError() async throws {
        let verifier = BeaconVerifier(plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        await #expect(throws: SourceFailed.self) {
            _ = try await verifier.run(stream([], failing: true), timing: .live, clock: TestClock())
        }
    }
}
