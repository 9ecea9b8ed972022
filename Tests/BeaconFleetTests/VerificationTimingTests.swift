import BeaconTestKit
import BeaconCore
import Testing

@testable import BeaconFleet

@Suite("Verification timing: early stop, settle window, slow beacons")
struct VerificationTimingTests {
    let door = VerificationScript.identity(minor: 1)

    @Test("the pass ends as soon as every beacon is decided, not at the timeout")
    func earlyStop() throws {
        let beacons = (1...3).map { VerificationScript.beacon("b\($0)", minor: UInt16($0)) }
        var feed = VerificationFeed(try VerificationScript.plan(beacons), policy: VerificationPolicy(timeout: .seconds(30)))
        for (offset, beacon) in beacons.enumerated() {
            feed.play(VerificationScript.train(beacon.identity, address: "C0:00:00:00:00:0\(offset + 1)", from: Double(offset) * 0.7, count: 4))
        }
        // The last beacon's third reception is at 1.4 + 0.2 s; its settle window ends 0.3 s later.
        feed.advance(to: 1.899)
        #expect(feed.result == nil)
        feed.advance(to: 1.9)
        let result = try #require(feed.result)
        #expect(result.endReason == .allDecided)
        #expect(result.duration == .passSeconds(1.9))
        #expect(result.verdicts.map(\.status) == [.ok, .ok, .ok])
        #expect(feed.events.last == .finished(.allDecided))
        // Decided when the engine learns the time: at the next sighting, or a tick.
        #expect(result.verdicts.map(\.decidedAt) == [.seconds(0.7), .seconds(1.4), .seconds(1.9)])
    }

    @Test("a sighting that completes the last decision ends the pass itself")
    func earlyStopOnSighting() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(settleIntervals: 0, minimumSettle: .zero))
        feed.play(VerificationScript.train(door, count: 3))
        #expect(feed.result?.endReason == .allDecided)
        #expect(feed.result?.duration == .passSeconds(0.2))
    }

    @Test("the settle window scales with the interval")
    func settleWindowScales() {
        let policy = VerificationPolicy()
        #expect(policy.settleWindow(intervalMilliseconds: 100) == .milliseconds(300))
        #expect(policy.settleWindow(intervalMilliseconds: 20) == .milliseconds(300))
        #expect(policy.settleWindow(intervalMilliseconds: 1000) == .seconds(3))
        #expect(policy.slowThreshold(intervalMilliseconds: 100) == .milliseconds(160))
    }

    @Test("settle windows close in their own order, not in the order they opened")
    func settleWindowsByInterval() throws {
        let plan = try VerificationScript.plan([
            VerificationScript.beacon("slow-asked", minor: 1, intervalMilliseconds: 1000),
            VerificationScript.beacon("fast-asked", minor: 2),
        ])
        var feed = VerificationFeed(plan, policy: VerificationPolicy(timeout: .seconds(30)))
        // The 1 s beacon reaches K at 2.0 s (window 3 s, closes at 5.0 s); the 100 ms one
        // reaches K at 2.3 s (window 0.3 s, closes at 2.6 s).
        feed.play(
            VerificationScript.train(VerificationScript.identity(minor: 1), address: VerificationScript.deviceA, every: 1.0, count: 3)
                + VerificationScript.train(VerificationScript.identity(minor: 2), address: VerificationScript.deviceB, from: 2.1, count: 3))
        feed.advance(to: 2.6)
        #expect(feed.decided.map(\.beacon.beaconID) == ["fast-asked"])
        feed.advance(to: 4.99)
        #expect(feed.decided.count == 1)
        feed.advance(to: 5.0)
        #expect(feed.decided.map(\.beacon.beaconID) == ["fast-asked", "slow-asked"])
        #expect(feed.result?.endReason == .allDecided)
    }

    @Test("a beacon waiting for interval evidence is decided by its own next reception")
    func evidenceArrivesLater() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1), VerificationScript.beacon("till", minor: 2)]))
        feed.play([0, 0.25, 0.5].map { VerificationScript.sighting(door, at: $0) })
        feed.advance(to: 1)
        #expect(feed.decided.isEmpty, "settled, but every gap was longer than one interval")
        feed.play([VerificationScript.sighting(VerificationScript.identity(minor: 2), address: VerificationScript.deviceB, at: 1.2)])
        #expect(feed.decided.isEmpty, "another beacon's reception decides nothing for it")
        feed.play([VerificationScript.sighting(door, at: 1.3), VerificationScript.sighting(door, at: 1.4)])
        #expect(feed.verdict("door")?.status == .ok)
        #expect(feed.verdict("door")?.decidedAt == .seconds(1.4))
    }

    @Test("K receptions are not enough while the gaps leave the interval open")
    func waitsForIntervalEvidence() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        // Each gap is two intervals or more: lost packets, or a slow beacon.
        feed.play([0, 0.21, 0.52].map { VerificationScript.sighting(door, at: $0) })
        feed.advance(to: 2)
        #expect(feed.decided.isEmpty)
        feed.play([VerificationScript.sighting(door, at: 2.1), VerificationScript.sighting(door, at: 2.205)])
        feed.advance(to: 2.21)
        #expect(feed.verdict("door")?.status == .ok, "one gap of one interval proves it is not slow")
    }

    @Test("slow: far longer gaps decide before the timeout")
    func slowDecidedEarly() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        // The advertiser ignored the 100 ms asked and uses 1.28 s (as some stacks do): each
        // gap would need 11 lost packets in a row from a healthy beacon, two gaps 22 ≥ 14.
        feed.play(VerificationScript.train(door, every: 1.28, count: 3))
        feed.advance(to: 2.56 + 0.299)
        #expect(feed.decided.isEmpty, "the settle window after the third reception still runs")
        feed.advance(to: 2.56 + 0.3)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .slow)
        #expect(verdict.decidedEarly)
        guard case .slow(let gap, let gaps, let configured) = verdict.findings.first else {
            Issue.record("expected a slow finding, got \(verdict.findings)")
            return
        }
        #expect(gap == .milliseconds(1280))
        #expect(gaps == 2)
        #expect(configured == 100)
    }

    @Test("slow: gaps of two intervals need 14 of them before the timeout")
    func slowNearTheThreshold() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        feed.play(VerificationScript.train(door, every: 0.2, count: 14))
        feed.advance(to: 4)
        #expect(feed.decided.isEmpty, "13 gaps of 200 ms: 13 lost packets would explain them")
        feed.play([VerificationScript.sighting(door, at: 4.1), VerificationScript.sighting(door, at: 4.3)])
        #expect(feed.verdict("door")?.status == .slow)
    }

    @Test("lost packets implied by a gap", arguments: [
        (0.1, 100, 0), (0.11, 100, 0), (0.111, 100, 1), (0.2, 100, 1), (0.25, 100, 2), (1.28, 100, 11),
        (0.045, 20, 1), (0, 100, 0), (-1, 100, 0), (1e12, 100, 999_999_999),
    ])
    func lostPackets(gap: Double, interval: Int, lost: Int) {
        #expect(VerificationPolicy().lostPackets(inGap: .passSeconds(gap), intervalMilliseconds: interval) == lost)
    }

    @Test("slow: at the timeout, the gaps there are decide")
    func slowAtTimeout() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(1.5)))
        // Four gaps of 300 ms: 8 lost packets would explain them, short of the 14 for an early call.
        feed.play(VerificationScript.train(door, every: 0.3, count: 5))
        feed.advance(to: 1.49)
        #expect(feed.decided.isEmpty)
        feed.advance(to: 1.5)
        #expect(feed.verdict("door")?.status == .slow)
        #expect(feed.verdict("door")?.decidedEarly == false)
    }

    @Test("one advertising event heard on two channels is one event, not a short gap")
    func sameEventReceptions() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        // A 1 s beacon whose every event is heard on channel 37 and again 0.6 ms later on 38.
        let receptions = (0..<4).flatMap { event in
            [VerificationScript.sighting(door, at: Double(event)), VerificationScript.sighting(door, at: Double(event) + 0.0006)]
        }
        feed.play(receptions)
        feed.advance(to: 5)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .slow)
        // Decided at the third event (two gaps of 1 s: 18 lost packets for a healthy beacon).
        #expect(verdict.observation.addresses.first?.events == 3)
        #expect(verdict.observation.addresses.first?.shortestGap == .seconds(1))
        #expect(verdict.observation.sightings == 5)
    }

    @Test("a 100 ms beacon heard through 50 % packet loss is never called slow (200 seeded runs)")
    func packetLossIsNotSlowness() throws {
        var wronglySlow: [UInt64] = []
        var decisionTimes: [PassTime] = []
        for seed in UInt64(0)..<200 {
            var generator = SplitMix64(seed: seed)
            var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(10)))
            // Events every 100 ms plus advDelay (0–10 ms); each heard with probability 1/2.
            var time = 0.0
            var receptions: [Sighting] = []
            while time < 10 {
                if Bool.random(using: &generator) { receptions.append(VerificationScript.sighting(door, at: time)) }
                time += 0.1 + Double.random(in: 0...0.010, using: &generator)
            }
            feed.play(receptions)
            feed.advance(to: 10)
            let verdict = try #require(feed.verdict("door"))
            if verdict.status != .ok { wronglySlow.append(seed) }
            decisionTimes.append(verdict.decidedAt)
        }
        #expect(wronglySlow.isEmpty, "seeds judged slow: \(wronglySlow)")
        #expect(decisionTimes.allSatisfy { $0 < .seconds(10) }, "every run decided before the timeout")
    }

    @Test("a 250 ms beacon configured at 100 ms is slow even through 50 % loss")
    func slowThroughLoss() throws {
        var generator = SplitMix64(seed: 7)
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(30)))
        var time = 0.0
        var receptions: [Sighting] = []
        while time < 30 {
            if Bool.random(using: &generator) { receptions.append(VerificationScript.sighting(door, at: time)) }
            time += 0.25 + Double.random(in: 0...0.010, using: &generator)
        }
        feed.play(receptions)
        feed.advance(to: 30)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .slow)
        #expect(verdict.decidedEarly)
    }

    @Test("a settle window closes at its exact nanosecond, not a rounding before or after")
    func settleWindowClosesExactly() throws {
        var engine = VerificationEngine(plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        for time in [0.064, 0.164, 0.264] {
            _ = engine.observe(VerificationScript.sighting(door, at: time), at: .seconds(time))
        }
        // The third reception at 0.264 s opens a 300 ms window: it closes at 0.564 s exactly,
        // although 0.264 + 0.3 in seconds is a hair more.
        #expect(engine.advance(to: .seconds(0.564) - .nanoseconds(1)).isEmpty)
        let events = engine.advance(to: .seconds(0.564))
        guard case .decided(let verdict)? = events.first else {
            Issue.record("expected a verdict at 0.564 s, got \(events)")
            return
        }
        #expect(verdict.decidedAt == .seconds(0.564))
    }

    @Test("a reception one same-event window after the last is a new event, measured exactly")
    func sameEventWindowComparesExactly() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        // 0.011 − 0.001 in seconds is 0.01 and a hair less; on the receiver's clock it is 10 ms.
        feed.play([VerificationScript.sighting(door, at: 0.001), VerificationScript.sighting(door, at: 0.011)])
        let result = feed.engine.conclude(at: .seconds(2), reason: .inputEnded).result
        let address = try #require(result.verdicts.first?.observation.addresses.first)
        #expect(address.events == 2)
        #expect(address.shortestGap == .milliseconds(10))
    }

    @Test("progress counts decided beacons while the pass runs")
    func progress() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1), VerificationScript.beacon("till", minor: 2)]))
        feed.play(VerificationScript.train(door, count: 3))
        feed.advance(to: 0.6)
        let progress = feed.engine.progress
        #expect(progress.decided == 1)
        #expect(progress.expected == 2)
        #expect(progress.sightings == 3)
        #expect(progress.elapsed == .passSeconds(0.6))
    }
}
