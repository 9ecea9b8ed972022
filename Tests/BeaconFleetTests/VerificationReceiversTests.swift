import BeaconTestKit
import BeaconCore
import Testing

@testable import BeaconFleet

/// Several receivers in one pass: each keeps its own clock for the interval rule, one device
/// heard by many is still one device, and the result says who heard what.
@Suite("Verification across receivers: clocks, duplicates, coverage", .timeLimit(.minutes(1)))
struct VerificationReceiversTests {
    let door = VerificationScript.identity(minor: 1)
    let till = VerificationScript.identity(minor: 2)

    private func stream(_ sightings: [Sighting]) -> AsyncThrowingStream<Sighting, any Error> {
        AsyncThrowingStream { continuation in
            for sighting in sightings { continuation.yield(sighting) }
            continuation.finish()
        }
    }

    /// Interleaves the receivers' sightings by their times, as a merged stream would carry them.
    private func merged(_ streams: [Sighting]...) -> [Sighting] {
        streams.joined().sorted { $0.time < $1.time }
    }

    @Test("one device heard by three receivers is one device: ok, not a duplicate, and every receiver is named")
    func oneDeviceManyReceivers() throws {
        // K = every reception, so that the verdict rests on all of them.
        var feed = VerificationFeed(
            try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(requiredSightings: 19))
        feed.play(merged(
            VerificationScript.train(door, count: 10, rssi: -60, receiver: "store-a:hci0"),
            VerificationScript.train(door, from: 0.002, count: 6, rssi: -75, receiver: "store-b:hci0"),
            VerificationScript.train(door, from: 0.004, count: 3, rssi: -88, receiver: "store-c:hci1")))
        feed.advance(to: 5)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .ok)
        #expect(verdict.findings.isEmpty)
        let receivers = verdict.observation.receivers
        #expect(receivers.map(\.receiver) == ["store-a:hci0", "store-b:hci0", "store-c:hci1"])
        #expect(receivers.map(\.sightings) == [10, 6, 3])
        #expect(receivers.map(\.strongestRSSI) == [-60, -75, -88])
        #expect(receivers.map(\.meanRSSI) == [-60, -75, -88])
        let events = try #require(verdict.observation.addresses.first?.eventsByReceiver)
        #expect(events.map(\.events) == [10, 6, 3], "each receiver's events counted on its own clock")
    }

    @Test("a slow beacon stays slow when two receivers' clocks differ by less than its interval")
    func skewedClocksDoNotHideASlowBeacon() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        // Configured at 100 ms, advertising every 1.28 s; the second box's clock runs 40 ms
        // behind. Mixed on one clock, 40 ms gaps would pass for "fast enough".
        feed.play(merged(
            VerificationScript.train(door, every: 1.28, count: 4, receiver: "store-a:hci0"),
            VerificationScript.train(door, from: 0.04, every: 1.28, count: 4, receiver: "store-b:hci0")))
        feed.advance(to: 10)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .slow)
        guard case .slow(let gap, let gaps, _) = verdict.findings.first else {
            Issue.record("expected a slow finding, got \(verdict.findings)")
            return
        }
        #expect(gap == .milliseconds(1280), "measured on one receiver's clock, never 40 ms across two")
        #expect(gaps >= 2)
    }

    @Test("evidence of slowness adds up over receivers: neither alone is enough, both are")
    func slowEvidenceAddsUp() throws {
        let plan = try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)])
        // Gaps of 200 ms on a 100 ms beacon imply one lost packet each; 14 are needed
        // (VerificationPolicy.slowEvidenceLosses). Eight gaps on each receiver: 16.
        let a = VerificationScript.train(door, every: 0.2, count: 9, receiver: "store-a:hci0")
        let b = VerificationScript.train(door, from: 0.05, every: 0.2, count: 9, receiver: "store-b:hci0")

        var alone = VerificationFeed(plan, policy: VerificationPolicy(timeout: .seconds(60)))
        alone.play(a)
        alone.advance(to: 5)
        #expect(alone.decided.isEmpty, "eight gaps of 200 ms on one receiver leave the interval open")

        var together = VerificationFeed(plan, policy: VerificationPolicy(timeout: .seconds(60)))
        together.play(merged(a, b))
        together.advance(to: 5)
        #expect(together.verdict("door")?.status == .slow)
        #expect(together.verdict("door")?.decidedEarly == true)
    }

    @Test("a fast gap on any receiver proves the beacon fast enough, whatever the others lost")
    func anyReceiverProvesFastEnough() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        feed.play(merged(
            // A far receiver that lost most packets, a near one that heard two in a row.
            VerificationScript.train(door, every: 0.9, count: 4, receiver: "far:hci0"),
            VerificationScript.train(door, from: 1.0, every: 0.1, count: 2, receiver: "near:hci0")))
        feed.advance(to: 10)
        #expect(feed.verdict("door")?.status == .ok)
    }

    @Test("replay: receivers whose times count from their own start join the pass at their first sighting")
    func replayKeepsAClockPerReceiver() async throws {
        let verifier = BeaconVerifier(
            plan: try VerificationScript.plan([
                VerificationScript.beacon("door", minor: 1), VerificationScript.beacon("till", minor: 2),
            ]),
            policy: VerificationPolicy(timeout: .seconds(30)))
        // Two boxes' scans concatenated: the second's elapsed times start at 0 again, so one
        // clock for both would move back 20 s and put "till" before the pass began.
        let first = VerificationScript.train(door, from: 0, every: 0.1, count: 200, receiver: "store-a:hci0")
        let second = VerificationScript.train(till, from: 0, every: 0.1, count: 8, receiver: "store-b:hci0")
        let result = try await verifier.run(stream(first + second), timing: .replay)
        #expect(result.verdicts.map(\.status) == [.ok, .ok])
        let till = try #require(result.verdicts.last)
        #expect(till.observation.receivers.map(\.receiver) == ["store-b:hci0"])
        let firstSeen = try #require(till.observation.firstSeen)
        #expect(firstSeen == .seconds(19.9), "placed where the first box's stream had reached, not at 0")
    }

    @Test("replay: Unix times are one clock for every receiver")
    func replayWallClockIsShared() async throws {
        let verifier = BeaconVerifier(
            plan: try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]),
            policy: VerificationPolicy(requiredSightings: 6, timeout: .seconds(30)))
        let start = 1_790_000_000.0
        let sightings = merged(
            VerificationScript.train(door, from: start, count: 3, receiver: "store-a:hci0", clock: .unix),
            VerificationScript.train(door, from: start + 2, count: 3, receiver: "store-b:hci0", clock: .unix))
        let result = try await verifier.run(stream(sightings), timing: .replay)
        let receivers = try #require(result.verdicts.first?.observation.receivers)
        #expect(receivers.map(\.receiver) == ["store-a:hci0", "store-b:hci0"])
        #expect(receivers.map(\.firstSeen) == [.origin, .seconds(2)], "the second box heard it 2 s later on the shared clock")
    }

    @Test("receivers per identity are bounded; further receptions are counted")
    func receiversAreBounded() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(60)))
        let count = ReceiverTally.maximumReceivers + 5
        feed.play((0..<count).map {
            VerificationScript.sighting(door, at: Double($0) * 0.01, receiver: "box-\($0)")
        })
        let result = feed.engine.conclude(at: .seconds(60), reason: .inputEnded).result
        let observation = try #require(result.verdicts.first?.observation)
        #expect(observation.receivers.count == ReceiverTally.maximumReceivers)
        #expect(observation.untrackedReceiverSightings == 5)
        #expect(observation.sightings == count)
    }
}
