import BeaconTestKit
import BeaconCore
import Testing

@testable import BeaconFleet

@Suite("Verification verdicts")
struct VerificationVerdictTests {
    let door = VerificationScript.identity(minor: 1)

    @Test("ok: K receptions, right power, then the settle window")
    func ok() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        feed.play(VerificationScript.train(door, count: 3))
        #expect(feed.decided.isEmpty, "the K-th reception opens the settle window; it does not decide")
        feed.advance(to: 0.49)
        #expect(feed.decided.isEmpty)
        feed.advance(to: 0.5)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .ok)
        #expect(verdict.findings.isEmpty)
        #expect(verdict.decidedEarly)
        #expect(verdict.decidedAt == .seconds(0.5))
        #expect(verdict.observation.sightings == 3)
        #expect(verdict.observation.addresses.map(\.address) == [VerificationScript.deviceA])
        #expect(verdict.observation.measuredPowers == [MeasuredPowerCount(value: -59, sightings: 3)])
        #expect(feed.result?.passed == true)
    }

    @Test("missing: never before the timeout")
    func missing() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(5)))
        feed.advance(to: 4.999)
        #expect(feed.decided.isEmpty)
        #expect(feed.result == nil)
        feed.advance(to: 7)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .missing)
        #expect(!verdict.decidedEarly)
        #expect(verdict.decidedAt == .seconds(5), "judged at the timeout, not at the late tick")
        let result = try #require(feed.result)
        #expect(result.endReason == .timeout)
        #expect(result.duration == .seconds(5))
        #expect(!result.passed)
    }

    @Test("weak: heard fewer than K times, nothing wrong")
    func weak() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(5)))
        feed.play(VerificationScript.train(door, count: 2))
        feed.advance(to: 4.9)
        #expect(feed.decided.isEmpty, "two receptions never decide before the timeout")
        feed.advance(to: 5)
        #expect(feed.verdict("door")?.status == .weak)
    }

    @Test("wrong-power: a calibrated value differs")
    func wrongCalibratedPower() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1, power: .calibrated(-59))]))
        feed.play(VerificationScript.train(door, power: -65, count: 3))
        feed.advance(to: 1)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .wrongPower)
        #expect(verdict.findings == [.wrongPower(expected: .calibrated(-59), heard: [.init(value: -65, sightings: 3)])])
        #expect(verdict.decidedEarly, "a wrong power is decided as early as an ok")
    }

    @Test("wrong-power: auto with the advertised value known")
    func wrongAdvertisedPower() throws {
        let plan = try VerificationScript.plan([
            VerificationScript.beacon("door", minor: 1, power: .advertised(-51)),
            VerificationScript.beacon("till", minor: 2, power: .advertised(-51)),
        ])
        var feed = VerificationFeed(plan)
        feed.play(VerificationScript.train(door, power: -51, count: 3))
        feed.play(VerificationScript.train(VerificationScript.identity(minor: 2), power: -59, address: VerificationScript.deviceB, count: 3))
        feed.advance(to: 1)
        #expect(feed.verdict("door")?.status == .ok)
        #expect(feed.verdict("till")?.status == .wrongPower)
    }

    @Test("auto without the advertised value accepts a plausible value and only that", arguments: [
        (Int8(-70), VerdictStatus.ok), (-100, .ok), (-30, .ok), (-29, .wrongPower), (-3, .wrongPower), (-101, .wrongPower),
    ])
    func plausibleAuto(power: Int8, status: VerdictStatus) throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1, power: .plausible(-100 ... -30))]))
        feed.play(VerificationScript.train(door, power: power, count: 3))
        feed.advance(to: 1)
        #expect(feed.verdict("door")?.status == status)
    }

    @Test("a single reception with another power is a finding")
    func mixedPowers() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        feed.play(VerificationScript.train(door, count: 4) + [VerificationScript.sighting(door, power: -40, at: 0.45)])
        feed.advance(to: 1)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.findings == [.wrongPower(
            expected: .calibrated(-59), heard: [.init(value: -59, sightings: 4), .init(value: -40, sightings: 1)])])
    }

    @Test("wrong-address: heard only from another address than the pinned one")
    func wrongAddress() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1, mac: VerificationScript.deviceA)]))
        feed.play(VerificationScript.train(door, address: VerificationScript.deviceB, count: 3))
        feed.advance(to: 1)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .wrongAddress)
        #expect(verdict.findings == [.wrongAddress(expected: VerificationScript.deviceA, heard: [VerificationScript.deviceB])])
    }

    @Test("the pinned address is compared whatever the case the source writes")
    func pinnedAddressCase() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1, mac: "C0:00:00:00:00:0A")]))
        feed.play(VerificationScript.train(door, address: "c0:00:00:00:00:0a", count: 3))
        feed.advance(to: 1)
        #expect(feed.verdict("door")?.status == .ok)
    }

    @Test("duplicate: two devices send the identity at once")
    func duplicate() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        feed.play(VerificationScript.train(door, address: VerificationScript.deviceA, count: 6) + VerificationScript.train(door, address: VerificationScript.deviceB, from: 0.05, count: 4))
        feed.advance(to: 1)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .duplicate)
        #expect(verdict.findings == [.duplicate(addresses: [VerificationScript.deviceA, VerificationScript.deviceB])])
        // Three receptions by 0.1 s, settled at 0.4 s: A's fifth (at 0.4) came after the verdict.
        #expect(verdict.observation.addresses.map(\.sightings) == [4, 4])
    }

    @Test("duplicate: a second device heard during the settle window is caught")
    func duplicateInSettleWindow() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        // K-th reception at 0.2 s; the settle window ends at 0.5 s.
        feed.play(VerificationScript.train(door, count: 3) + [VerificationScript.sighting(door, address: VerificationScript.deviceB, at: 0.45)])
        feed.advance(to: 0.5)
        #expect(feed.verdict("door")?.status == .duplicate)
    }

    @Test("a decided verdict is final: a device heard afterwards does not change it")
    func verdictIsFinal() throws {
        var feed = VerificationFeed(try VerificationScript.plan([
            VerificationScript.beacon("door", minor: 1), VerificationScript.beacon("till", minor: 2),
        ]))
        feed.play(VerificationScript.train(door, count: 3))
        feed.advance(to: 0.5)
        #expect(feed.verdict("door")?.status == .ok)
        feed.play([VerificationScript.sighting(door, address: VerificationScript.deviceB, at: 0.6)])
        feed.advance(to: 20)
        #expect(feed.result?.verdicts.first?.status == .ok)
        #expect(feed.result?.sightings == 4, "later receptions still count as heard")
    }

    @Test("duplicate including the pinned address reports the duplicate alone")
    func duplicateWithPinnedAddress() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1, mac: VerificationScript.deviceA)]))
        feed.play(VerificationScript.train(door, address: VerificationScript.deviceA, count: 4) + VerificationScript.train(door, address: VerificationScript.deviceB, from: 0.05, count: 4))
        feed.advance(to: 1)
        #expect(feed.verdict("door")?.findings == [.duplicate(addresses: [VerificationScript.deviceA, VerificationScript.deviceB])])
    }

    @Test("several findings: the worst is the status, all are listed")
    func severalFindings() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1, mac: "C0:00:00:00:00:0C")]))
        feed.play(VerificationScript.train(door, power: -70, address: VerificationScript.deviceA, count: 4))
        feed.play(VerificationScript.train(door, power: -70, address: VerificationScript.deviceB, from: 0.05, count: 3))
        feed.advance(to: 1)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .duplicate)
        #expect(verdict.findings.map(\.status) == [.duplicate, .wrongAddress, .wrongPower])
    }

    @Test("a private address that rotates is one device, not a duplicate")
    func rotatingPrivateAddress() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        feed.play(VerificationScript.train(door, address: VerificationScript.privateA, count: 2) + VerificationScript.train(door, address: VerificationScript.privateB, from: 0.2, count: 2))
        feed.advance(to: 1)
        let verdict = try #require(feed.verdict("door"))
        #expect(verdict.status == .ok)
        #expect(verdict.observation.addresses.count == 2)
    }

    @Test("two private addresses heard at the same time are two devices")
    func overlappingPrivateAddresses() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        feed.play(VerificationScript.train(door, address: VerificationScript.privateA, count: 4) + VerificationScript.train(door, address: VerificationScript.privateB, from: 0.15, count: 3))
        feed.advance(to: 1)
        #expect(feed.verdict("door")?.status == .duplicate)
    }

    @Test("two static addresses one after the other are still two devices")
    func sequentialStaticAddresses() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        feed.play(VerificationScript.train(door, address: VerificationScript.deviceA, count: 2) + VerificationScript.train(door, address: VerificationScript.deviceB, from: 0.2, count: 2))
        feed.advance(to: 1)
        #expect(feed.verdict("door")?.status == .duplicate)
    }

    @Test("unexpected: a fleet UUID the manifest does not list; other UUIDs are ignored")
    func unexpected() throws {
        let stranger = VerificationScript.identity(minor: 99)
        let foreign = VerificationScript.identity(minor: 1, uuid: VerificationScript.otherUUID)
        let neighbour = VerificationScript.identity(minor: 7)
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)], otherKnown: [neighbour: "neighbour-door"]))
        feed.play(
            VerificationScript.train(door, count: 3) + [VerificationScript.sighting(stranger, address: VerificationScript.deviceB, at: 0.05)]
                + VerificationScript.train(foreign, address: "00:11:22:33:44:55", count: 2)
                + [VerificationScript.sighting(neighbour, address: "C0:00:00:00:00:07", at: 0.3)])
        feed.advance(to: 1)
        #expect(feed.events.contains(.unexpected(stranger)))
        let result = try #require(feed.result)
        #expect(result.verdicts.map(\.status) == [.ok])
        #expect(result.unexpected.map(\.identity) == [stranger])
        #expect(result.unexpected.first?.observation.sightings == 1)
        #expect(result.ignoredSightings == 2)
        #expect(result.otherManifestBeacons == [OtherManifestBeacon(beaconID: "neighbour-door", identity: neighbour, sightings: 1)])
        #expect(result.count(.unexpected) == 1)
        #expect(!result.passed, "an unexpected identity fails the pass")
    }

    @Test("unexpected identities are tracked up to a bound, then their receptions counted")
    func unexpectedBound() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]), policy: VerificationPolicy(timeout: .seconds(1)))
        let limit = VerificationEngine.maximumTrackedUnexpected
        feed.play((0..<(limit + 10)).map { VerificationScript.sighting(VerificationScript.identity(minor: 1000 + UInt16($0)), at: 0.5) })
        feed.play([VerificationScript.sighting(VerificationScript.identity(minor: 1000 + UInt16(limit)), at: 0.6)])
        feed.advance(to: 1)
        let result = try #require(feed.result)
        #expect(result.unexpected.count == limit)
        #expect(result.untrackedUnexpectedSightings == 11)
        #expect(result.count(.unexpected) == limit)
        #expect(!result.passed)
    }

    @Test("the end of the input judges what is open")
    func inputEnded() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1), VerificationScript.beacon("till", minor: 2)]))
        feed.play(VerificationScript.train(door, count: 5))
        let events = feed.engine.finish(at: .seconds(0.45), reason: .inputEnded)
        #expect(events.last == .finished(.inputEnded))
        let result = try #require(feed.result)
        #expect(result.verdicts.map(\.status) == [.ok, .missing])
        #expect(result.duration == .passSeconds(0.45))
        #expect(result.endReason == .inputEnded)
    }

    @Test("time never goes back: a late sighting counts at the latest time")
    func timeNeverGoesBack() throws {
        var feed = VerificationFeed(try VerificationScript.plan([VerificationScript.beacon("door", minor: 1)]))
        feed.advance(to: 2)
        feed.play([VerificationScript.sighting(door, at: 0.1)])
        #expect(feed.engine.progress.elapsed == .seconds(2))
        #expect(feed.engine.progress.sightings == 1)
    }
}
