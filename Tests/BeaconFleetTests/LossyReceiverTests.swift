import BeaconCore
import BeaconTestKit
import Testing

@testable import BeaconFleet

/// A long gap is a slow beacon or lost packets. What a receiver loses of the other beacons
/// decides how much its gaps prove (`ReceiverReception`).
@Suite("Slow beacons or a receiver that loses packets")
struct LossyReceiverTests {
    static let beacons = (1...4).map { VerificationScript.beacon("b\($0)", minor: UInt16($0)) }

    /// Each beacon at 100 ms as configured, heard one advertising event in ten (every
    /// second) by a scanner that misses the rest, each beacon at its own offset.
    static func everySecond(from start: Double, count: Int) -> [Sighting] {
        beacons.enumerated().flatMap { offset, beacon in
            VerificationScript.train(
                beacon.identity, address: "C0:00:00:00:00:0\(offset + 1)", from: start + Double(offset) * 0.013,
                every: 1.0, count: count)
        }
    }

    @Test("a scanner that hears one packet in ten of every beacon: none called slow before the timeout, all ok once it hears better")
    func lossyScannerIsNotASlowFleet() throws {
        var feed = VerificationFeed(try VerificationScript.plan(Self.beacons), policy: VerificationPolicy(timeout: .seconds(30)))
        // Four gaps of a second each: 36 lost packets per beacon, beyond the 14 a receiver
        // losing half its packets would need; but this one loses nine in ten of every
        // other beacon's packets, so they prove nothing yet (about 93 would).
        feed.play(Self.everySecond(from: 0, count: 5))
        feed.advance(to: 4.5)
        #expect(feed.decided.isEmpty, "\(feed.decided.map { "\($0.beacon.beaconID): \($0.status)" })")
        // The scanner recovers: two receptions one interval apart settle each beacon.
        for (offset, beacon) in Self.beacons.enumerated() {
            let address = "C0:00:00:00:00:0\(offset + 1)"
            feed.play(VerificationScript.train(beacon.identity, address: address, from: 5 + Double(offset) * 0.013, every: 0.1, count: 2))
        }
        feed.advance(to: 6)
        let result = try #require(feed.result)
        #expect(result.verdicts.map(\.status) == [.ok, .ok, .ok, .ok])
        #expect(result.endReason == .allDecided)
    }

    @Test("a slow fleet on that scanner: slow once the gaps are too many even for its losses")
    func slowFleetNeedsMoreGaps() throws {
        var feed = VerificationFeed(try VerificationScript.plan(Self.beacons), policy: VerificationPolicy(timeout: .seconds(30)))
        // Ten gaps of nine lost packets each: 90 at 90 % loss is not yet the 14 at 50 %.
        feed.play(Self.everySecond(from: 0, count: 11))
        feed.advance(to: 10.5)
        #expect(feed.decided.isEmpty, "\(feed.decided.map { "\($0.beacon.beaconID): \($0.status)" })")
        // The eleventh: 99 are.
        feed.play(Self.everySecond(from: 11, count: 1))
        let result = try #require(feed.result)
        #expect(result.verdicts.map(\.status) == [.slow, .slow, .slow, .slow])
        #expect(result.verdicts.allSatisfy { $0.decidedEarly })
        #expect(result.verdicts.map(\.decidedAt) == [.seconds(11), .seconds(11.013), .seconds(11.026), .seconds(11.039)])
    }

    @Test("one slow beacon among beacons heard at every interval: slow after two gaps, as on any good receiver")
    func slowBeaconAmongHealthyOnes() throws {
        var feed = VerificationFeed(try VerificationScript.plan(Self.beacons), policy: VerificationPolicy(timeout: .seconds(60)))
        var sightings: [Sighting] = []
        for (offset, beacon) in Self.beacons.dropFirst().enumerated() {
            sightings += VerificationScript.train(
                beacon.identity, address: "C0:00:00:00:00:0\(offset + 2)", from: Double(offset) * 0.013, every: 0.1, count: 30)
        }
        // b1 advertises every 1.28 s instead of 100 ms: 11 lost packets a gap.
        sightings += VerificationScript.train(Self.beacons[0].identity, address: "C0:00:00:00:00:01", every: 1.28, count: 3)
        feed.play(sightings)
        feed.advance(to: 2.56 + 0.3)
        let slow = try #require(feed.verdict("b1"))
        #expect(slow.status == .slow)
        #expect(slow.decidedEarly)
    }

    @Test("a receiver's loss leaves out the beacon asked about, and needs enough of the others")
    func lossLeavesTheBeaconOut() {
        var reception = ReceiverReception()
        // Another beacon (100 ms) heard every 200 ms for 19 gaps: 38 intervals, loss 1/2.
        for _ in 0..<19 { reception.add(gap: .milliseconds(200), intervalMilliseconds: 100, receiver: "hci0") }
        // The beacon asked about: 10 gaps of 1 s.
        for _ in 0..<10 { reception.add(gap: .seconds(1), intervalMilliseconds: 100, receiver: "hci0") }
        let own = ReceiverEvents(receiver: "hci0", events: 11, shortestGap: .seconds(1), span: .seconds(10))
        let loss = reception.loss(of: own, intervalMilliseconds: 100)
        #expect(loss.map { abs($0 - 0.5) < 1e-9 } == true, "\(String(describing: loss))")
        // Other receivers are not this one's evidence; too little of the others says nothing.
        #expect(reception.loss(of: ReceiverEvents(receiver: "hci1", events: 11, shortestGap: .seconds(1), span: .seconds(10)), intervalMilliseconds: 100) == nil)
        var sparse = ReceiverReception()
        for _ in 0..<3 { sparse.add(gap: .milliseconds(500), intervalMilliseconds: 100, receiver: "hci0") }
        #expect(sparse.loss(of: ReceiverEvents(receiver: "hci0", events: 1, shortestGap: nil), intervalMilliseconds: 100) == nil)
    }

    @Test("a receiver beyond the ones whose loss is measured: its long gaps never make a beacon slow before the timeout")
    func receiverBeyondTheBound() throws {
        var reception = ReceiverReception(maximumReceivers: 1)
        for _ in 0..<30 { reception.add(gap: .milliseconds(100), intervalMilliseconds: 100, receiver: "hci0") }
        // hci9 came after the one place was taken: what it loses is unknown.
        for _ in 0..<20 { reception.add(gap: .seconds(1), intervalMilliseconds: 100, receiver: "hci9") }
        #expect(reception.isBeyondBound("hci9"))
        #expect(!reception.isBeyondBound("hci0"))
        let events = ReceiverEvents(receiver: "hci9", events: 21, shortestGap: .seconds(1), span: .seconds(20))
        let track = AddressObservation(
            address: "C0:00:00:00:00:01", isRandom: true, isPrivate: false, sightings: 21, measuredPowers: [],
            firstSeen: .origin, lastSeen: .seconds(20), eventsByReceiver: [events], strongestRSSI: -60)
        let beyond = VerdictRules.intervalEvidence(track, intervalMilliseconds: 100, policy: VerificationPolicy(timeout: .seconds(60)), reception: reception)
        guard case .suspect = beyond else {
            Issue.record("expected suspect, got \(beyond)")
            return
        }
        // The same gaps on a receiver whose loss is measured (none of the others lost): slow.
        let measured = VerdictRules.intervalEvidence(
            AddressObservation(
                address: "C0:00:00:00:00:01", isRandom: true, isPrivate: false, sightings: 21, measuredPowers: [],
                firstSeen: .origin, lastSeen: .seconds(20), eventsByReceiver: [ReceiverEvents(receiver: "hci0", events: 21, shortestGap: .seconds(1), span: .seconds(20))],
                strongestRSSI: -60),
            intervalMilliseconds: 100, policy: VerificationPolicy(timeout: .seconds(60)), reception: reception)
        guard case .slow = measured else {
            Issue.record("expected slow, got \(measured)")
            return
        }
    }
}
