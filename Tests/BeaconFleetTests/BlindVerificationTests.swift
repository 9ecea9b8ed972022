import BeaconCore
import BeaconTestKit
import Synchronization
import Testing

@testable import BeaconFleet

/// A one-shot pass over an input that says when it is not delivering (a broker): time it is
/// blind is kept off the beacons' clock, and a pass that cannot see judges nothing by silence.
struct BlindVerificationTests {
    typealias Script = VerificationScript

    static let door = Script.identity(minor: 1)
    static let hall = Script.identity(minor: 2)

    static func reduction(
        startsBlind: Bool = true, timeout: Duration = .seconds(10),
        onUpdate: @escaping @Sendable (VerificationProgress, [VerificationEvent]) -> Void = { _, _ in }
    ) throws -> VerificationReduction {
        let plan = try Script.plan([Script.beacon("door", minor: 1), Script.beacon("hall", minor: 2)])
        return VerificationReduction(
            engine: VerificationEngine(plan: plan, policy: VerificationPolicy(timeout: timeout)), onUpdate: onUpdate,
            reportsEverySighting: true, listening: ListeningClock(startsBlind: startsBlind))
    }

    static func at(_ seconds: Double) -> PassTime { PassTime(checkedSeconds: seconds)! }

    /// Feeds `sightings` placed at their own times, then ticks every 0.1 s to `until`.
    static func feed(_ reduction: inout VerificationReduction, _ sightings: [Sighting], ticksFrom start: Double, until end: Double) {
        for sighting in sightings {
            _ = reduction.take(.sighting(PlacedSighting(sighting: sighting, time: at(sighting.time), clock: at(sighting.time))))
        }
        var time = start
        while time <= end + 1e-9, !reduction.engine.isFinished {
            _ = reduction.take(.tick(at(time)))
            time += 0.1
        }
    }

    @Test("the listening clock stands still while blind and counts the blind time, spell by spell")
    func listeningClock() {
        var clock = ListeningClock(startsBlind: true)
        #expect(clock.isBlind && !clock.everDelivered)
        #expect(clock.listening(at: Self.at(3)) == .origin)
        clock.take(.lost(reason: "broker:1883: connection refused"), at: Self.at(2))
        clock.take(.restored, at: Self.at(3))
        #expect(!clock.isBlind && clock.everDelivered)
        #expect(clock.listening(at: Self.at(5)) == Self.at(2))
        clock.take(.lost(reason: "broker:1883: connection lost"), at: Self.at(6))
        #expect(clock.listening(at: Self.at(9)) == Self.at(3))
        #expect(clock.blindness(by: Self.at(9)) == .seconds(6))
        #expect(!clock.blindLimitReached(.seconds(7), by: Self.at(9)))
        #expect(clock.blindLimitReached(.seconds(7), by: Self.at(10)))
        #expect(clock.report(at: Self.at(10)) == InputBlindness(seconds: 7, atEnd: true, neverDelivered: false, lastReason: "broker:1883: connection lost"))
        clock.take(.incomplete(reason: "3 messages lost"), at: Self.at(10))
        #expect(!clock.isBlind && clock.listening(at: Self.at(11)) == Self.at(4))
        #expect(ListeningClock(startsBlind: false).report(at: Self.at(5)) == nil)
    }

    @Test("connecting time is not counted: a beacon is missing only after the full timeout of delivery")
    func connectingNotCounted() throws {
        var reduction = try Self.reduction()
        _ = reduction.take(.health(.restored, at: Self.at(4)))
        Self.feed(&reduction, Script.train(Self.door, from: 4, every: 0.1, count: 20), ticksFrom: 4, until: 13.8)
        #expect(!reduction.engine.isFinished, "9.8 s of delivery is not the 10 s timeout")
        Self.feed(&reduction, [], ticksFrom: 14, until: 14.1)
        let result = reduction.conclude(PassOutcome(end: .reducerDone, clock: Self.at(14.1)))
        #expect(result.endReason == .timeout)
        #expect(result.verdicts.map(\.status) == [.ok, .missing])
        #expect(result.blindness == InputBlindness(seconds: 4, atEnd: false, neverDelivered: false, lastReason: nil))
        #expect(result.warnings.contains { $0.contains("did not deliver for 4.0 s; that time was not counted against the beacons") })
        #expect(!result.failedOnlyForBlindness)
    }

    @Test("an input lost mid-pass for as long as the timeout ends the pass: open beacons unmonitored, decided ones stand")
    func lostMidPass() throws {
        var reduction = try Self.reduction()
        _ = reduction.take(.health(.restored, at: Self.at(0)))
        Self.feed(&reduction, Script.train(Self.door, from: 0, every: 0.1, count: 20), ticksFrom: 0, until: 2)
        _ = reduction.take(.health(.lost(reason: "broker:1883: connection lost"), at: Self.at(2.05)))
        Self.feed(&reduction, [], ticksFrom: 2.1, until: 11.9)
        #expect(!reduction.engine.isFinished, "blind for less than the timeout: still waiting")
        Self.feed(&reduction, [], ticksFrom: 12.1, until: 12.2)
        #expect(reduction.engine.isFinished)
        let result = reduction.conclude(PassOutcome(end: .reducerDone, clock: Self.at(12.1)))
        #expect(result.endReason == .inputLost)
        #expect(result.verdicts.map(\.status) == [.ok, .unmonitored])
        #expect(result.verdicts[1].decidedEarly == false)
        #expect(result.failedOnlyForBlindness)
        let blindness = try #require(result.blindness)
        #expect(blindness.atEnd && !blindness.neverDelivered && blindness.lastReason == "broker:1883: connection lost")
        #expect(result.warnings.contains { $0.contains("1 beacon could not be judged") })
        #expect(result.verdicts[1].explanation(in: result).contains("not judged"))
    }

    @Test("what was heard before the loss still proves a finding: a wrong power stands, it is not made unmonitored")
    func findingsStand() throws {
        var reduction = try Self.reduction()
        _ = reduction.take(.health(.restored, at: Self.at(0)))
        Self.feed(&reduction, Script.train(Self.hall, power: -3, from: 0, every: 0.1, count: 2), ticksFrom: 0, until: 0.2)
        _ = reduction.take(.health(.lost(reason: "lost"), at: Self.at(0.3)))
        Self.feed(&reduction, [], ticksFrom: 0.4, until: 10.4)
        let result = reduction.conclude(PassOutcome(end: .reducerDone, clock: Self.at(10.4)))
        #expect(result.endReason == .inputLost)
        #expect(result.verdicts.map(\.status) == [.unmonitored, .wrongPower])
        #expect(!result.failedOnlyForBlindness, "a wrong power is the beacon's failure")
    }

    @Test("never delivering ends blind at the timeout; stopped while blind judges nothing")
    func neverDelivered() throws {
        var reduction = try Self.reduction()
        _ = reduction.take(.health(.lost(reason: "broker:1883: connection refused"), at: Self.at(0.5)))
        Self.feed(&reduction, [], ticksFrom: 0, until: 10)
        let result = reduction.conclude(PassOutcome(end: .reducerDone, clock: Self.at(10)))
        #expect(result.endReason == .inputLost)
        #expect(result.blindness == InputBlindness(seconds: 10, atEnd: true, neverDelivered: true, lastReason: "broker:1883: connection refused"))
        #expect(result.verdicts.allSatisfy { $0.status == .unmonitored })

        var stopped = try Self.reduction()
        Self.feed(&stopped, [], ticksFrom: 0, until: 3)
        let interrupted = stopped.conclude(PassOutcome(end: .interrupted, clock: Self.at(3)))
        #expect(interrupted.endReason == .interrupted)
        #expect(interrupted.verdicts.allSatisfy { $0.status == .unmonitored })
        #expect(interrupted.failedOnlyForBlindness)
        #expect(interrupted.warnings.contains { $0.contains("the input delivered nothing before the pass ended: 2 beacons could not be judged") })
    }

    @Test("an input with no health (a scan, a pipe) is never blind: a stop judges on what was heard, as before")
    func noHealth() throws {
        var reduction = try Self.reduction(startsBlind: false)
        Self.feed(&reduction, [], ticksFrom: 0, until: 3)
        let result = reduction.conclude(PassOutcome(end: .interrupted, clock: Self.at(3)))
        #expect(result.verdicts.map(\.status) == [.missing, .missing])
        #expect(result.blindness == nil)
    }

    @Test("the input's loss and return are told once each, however many failures it reports meanwhile")
    func toldOnce() throws {
        let told = Mutex<[VerificationEvent]>([])
        var reduction = try Self.reduction { _, events in
            told.withLock { $0 += events.filter { if case .inputLost = $0 { true } else { $0 == .inputRestored } } }
        }
        _ = reduction.take(.health(.restored, at: Self.at(1)))
        _ = reduction.take(.health(.lost(reason: "a: connection lost"), at: Self.at(2)))
        _ = reduction.take(.health(.lost(reason: "a: connection refused"), at: Self.at(3)))
        _ = reduction.take(.health(.incomplete(reason: "2 messages lost"), at: Self.at(4)))
        _ = reduction.take(.health(.incomplete(reason: "1 message lost"), at: Self.at(5)))
        #expect(told.withLock { $0 } == [.inputRestored, .inputLost(reason: "a: connection lost"), .inputRestored])
    }
}
