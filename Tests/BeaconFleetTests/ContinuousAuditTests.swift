import BeaconCore
import BeaconFleet
import BeaconTestKit
import Testing

@Suite("continuous audit (verify --watch)")
struct ContinuousAuditTests {
    typealias Script = VerificationScript

    static let door = Script.beacon("door", minor: 1)
    static let till = Script.beacon("till", minor: 2)

    /// A sighting of `identity` heard by `receiver` at `time` on that receiver's clock.
    static func heard(
        _ identity: BeaconIdentity, at time: Double, by receiver: String = "hci1", address: String = Script.deviceA,
        power: Int8 = -59, rssi: Int? = -70, clock: SightingClock = .elapsed
    ) -> Sighting {
        var sighting = Script.sighting(identity, power: power, address: address, at: time, rssi: rssi, clock: clock)
        sighting.receiver = receiver
        return sighting
    }

    /// Every second from `start` to `end` (inclusive).
    static func everySecond(
        _ identity: BeaconIdentity, from start: Int, through end: Int, by receiver: String = "hci1",
        address: String = Script.deviceA, power: Int8 = -59
    ) -> [Sighting] {
        (start...end).map { heard(identity, at: Double($0), by: receiver, address: address, power: power) }
    }

    static func audit(_ beacons: [ExpectedBeacon] = [door], silence: Duration = .seconds(10), configure: (inout ContinuousAudit.Configuration) -> Void = { _ in }) throws -> AuditFeed {
        var configuration = ContinuousAudit.Configuration(silence: silence)
        configure(&configuration)
        return AuditFeed(plan: try Script.plan(beacons), configuration: configuration)
    }

    /// Feeds the sightings in the order given, then advances to `end`; returns every event.
    static func play(_ audit: inout AuditFeed, _ sightings: [Sighting], until end: Double? = nil) -> [AuditEvent] {
        var events: [AuditEvent] = []
        for sighting in sightings { events += audit.observe(sighting) }
        if let end { events += audit.advance(to: end) }
        return events
    }

    static func changes(_ events: [AuditEvent]) -> [String] {
        events.map { "\(SightingJSONLines.timeText($0.time)) \($0.beaconID ?? $0.identity.description) \($0.previous?.rawValue ?? "-")→\($0.state.rawValue)" }
    }

    // MARK: States

    @Test("the first state is an event; staying in it is not; a beacon that stops is missing exactly silence after it was last heard")
    func stopsAndComesBack() throws {
        var audit = try Self.audit()
        let events = Self.play(
            &audit, Self.everySecond(Self.door.identity, from: 0, through: 5) + Self.everySecond(Self.door.identity, from: 40, through: 41),
            until: 60)
        #expect(Self.changes(events) == ["0 door -→ok", "15 door ok→missing", "40 door missing→ok", "51 door ok→missing"])
        let missing = events[1]
        #expect(missing.reason.contains("not heard for 10 s on any receiver (last at 5 s)"))
        #expect(missing.receivers == [AuditReceiverSummary(receiver: "hci1", latestRSSI: -70, sightings: 6, lastSeen: 5)])
        #expect(missing.addresses.isEmpty)
        #expect(events[0].addresses == [Script.deviceA])
    }

    @Test("missing exactly at last seen + silence, even where that sum minus last seen falls an ulp short of the silence", arguments: [1.1, 7.7])
    func silenceEdgeToTheBit(lastSeen: Double) throws {
        // The premise: subtracting gives 2.9999999999999996 (1.1) or 2.999999999999999 (7.7),
        // so a watch that compared `time - lastSeen >= silence` in seconds would not judge at its
        // own deadline; the audit's times are whole nanoseconds (`PassTime`), compared exactly.
        #expect((lastSeen + 3) - lastSeen < 3)
        var audit = try Self.audit(silence: .seconds(3))
        #expect(Self.changes(Self.play(&audit, [Self.heard(Self.door.identity, at: lastSeen)])) == ["\(SightingJSONLines.timeText(lastSeen)) door -→ok"])
        // One nanosecond short (the clock's step: an ulp below the deadline is the same instant).
        #expect(audit.advance(to: lastSeen + 3 - 1e-9).isEmpty, "not before its silence has passed")
        let events = audit.advance(to: lastSeen + 3)
        #expect(events.map(\.state) == [.missing])
        #expect(events.first?.time == lastSeen + 3)
        #expect(events.first?.lastSeen == lastSeen)
    }

    @Test("a beacon never heard is missing once silence has passed since the watch started, not before")
    func neverHeard() throws {
        var audit = try Self.audit([Self.door, Self.till])
        var events = Self.play(&audit, Self.everySecond(Self.door.identity, from: 100, through: 105))
        #expect(Self.changes(events) == ["100 door -→ok"])
        events = audit.advance(to: 109.5)
        #expect(events.isEmpty)
        #expect(audit.beaconStates.map(\.state) == [.ok, nil])
        #expect(audit.statistics.unknownBeacons == 1)
        events = audit.advance(to: 200)
        #expect(Self.changes(events) == ["110 till -→missing", "115 door ok→missing"])
        #expect(events[0].reason.hasPrefix("not heard in the first 10 s of the watch"))
    }

    @Test("a live watch starts at its clock: with nothing heard, every beacon is missing at silence")
    func liveStartSilent() throws {
        var audit = try Self.audit([Self.door, Self.till])
        #expect(audit.advance(to: 0).isEmpty)
        #expect(Self.changes(audit.advance(to: 10.4)) == ["10 door -→missing", "10 till -→missing"])
        #expect(audit.advance(to: 11).isEmpty)
    }

    @Test("wrong measured power, then reprogrammed: the latest value of a device counts")
    func wrongPower() throws {
        var audit = try Self.audit()
        let events = Self.play(
            &audit,
            Self.everySecond(Self.door.identity, from: 0, through: 2, power: -40) + Self.everySecond(Self.door.identity, from: 3, through: 4))
        #expect(Self.changes(events) == ["0 door -→wrong-power", "3 door wrong-power→ok"])
        #expect(events[0].reason.contains("C0:00:00:00:00:0A advertises measured power -40 dBm, expected -59 dBm"))
    }

    @Test("auto measured power accepts any plausible value, refuses -3 dBm")
    func plausiblePower() throws {
        var audit = try Self.audit([Script.beacon("door", minor: 1, power: .plausible(-100...(-30)))])
        #expect(Self.changes(Self.play(&audit, [Self.heard(Self.door.identity, at: 0, power: -61)])) == ["0 door -→ok"])
        #expect(Self.changes(Self.play(&audit, [Self.heard(Self.door.identity, at: 1, power: -3)])) == ["1 door ok→wrong-power"])
    }

    // MARK: Duplicates

    @Test("a clone at a second address is a duplicate until it has been silent for the window")
    func clone() throws {
        var audit = try Self.audit()
        let original = Self.everySecond(Self.door.identity, from: 0, through: 30)
        let clone = Self.everySecond(Self.door.identity, from: 5, through: 8, address: Script.deviceB)
        let events = Self.play(&audit, (original + clone).sorted { $0.time < $1.time }, until: 30)
        #expect(Self.changes(events) == ["0 door -→ok", "5 door ok→duplicate", "18 door duplicate→ok"])
        #expect(events[1].addresses == [Script.deviceA, Script.deviceB])
        #expect(events[1].reason.contains("heard from 2 devices within 10 s"))
    }

    @Test("one address heard by three receivers is one device, not a duplicate")
    func oneAddressManyReceivers() throws {
        var audit = try Self.audit()
        let sightings = (0...20).flatMap { second in
            ["hci0", "hci1", "pi-kitchen"].map { Self.heard(Self.door.identity, at: Double(second), by: $0, rssi: -60 - second) }
        }
        let events = Self.play(&audit, sightings, until: 25)
        #expect(Self.changes(events) == ["0 door -→ok"])
        #expect(events[0].receivers.map(\.receiver) == ["hci0"])
        let missing = audit.advance(to: 31)
        #expect(Self.changes(missing) == ["30 door ok→missing"])
        #expect(missing[0].receivers.map(\.receiver) == ["hci0", "hci1", "pi-kitchen"])
        #expect(missing[0].receivers.map(\.latestRSSI) == [-80, -80, -80])
        #expect(missing[0].receivers.map(\.sightings) == [21, 21, 21])
    }

    @Test("a private address that rotates is one device; two private addresses heard together are two")
    func privateRotation() throws {
        var audit = try Self.audit()
        let rotated = Self.everySecond(Self.door.identity, from: 0, through: 3, address: Script.privateA)
            + Self.everySecond(Self.door.identity, from: 4, through: 6, address: Script.privateB)
        #expect(Self.changes(Self.play(&audit, rotated)) == ["0 door -→ok"])
        // The first address again, while the second is on the air: two devices.
        #expect(Self.changes(Self.play(&audit, [Self.heard(Self.door.identity, at: 7, address: Script.privateA)])) == ["7 door ok→duplicate"])
    }

    // MARK: Unexpected identities

    @Test("an unexpected fleet identity appears and is gone after silence; other UUIDs and other manifest beacons are ignored")
    func unexpected() throws {
        let stranger = Script.identity(minor: 99)
        let foreign = Script.identity(minor: 1, uuid: Script.otherUUID)
        let elsewhere = Script.identity(minor: 5, major: 2)
        var audit = AuditFeed(
            plan: try Script.plan([Self.door], otherKnown: [elsewhere: "back-room"]),
            configuration: .init(silence: .seconds(10)))
        let sightings = Self.everySecond(Self.door.identity, from: 0, through: 35)
            + Self.everySecond(stranger, from: 2, through: 4, address: Script.deviceB)
            + Self.everySecond(foreign, from: 1, through: 3) + Self.everySecond(elsewhere, from: 1, through: 3)
            + Self.everySecond(stranger, from: 30, through: 30, address: Script.deviceB)
        let events = Self.play(&audit, sightings.sorted { $0.time < $1.time })
        #expect(Self.changes(events) == [
            "0 door -→ok", "2 \(stranger) -→unexpected", "14 \(stranger) unexpected→gone", "30 \(stranger) gone→unexpected",
        ])
        #expect(events[1].beaconID == nil)
        #expect(events[1].reason.contains("major 1 is venue shop's"))
        let statistics = audit.statistics
        #expect(statistics.ignoredSightings == 6)
        #expect(statistics.unexpectedNow == 1)
        #expect(!statistics.allOK)
        #expect(statistics.sightings == sightings.count)
    }

    // MARK: Clocks

    @Test("receivers with their own clocks: silence is judged on each receiver's clock, not across them")
    func perReceiverClocks() throws {
        var audit = try Self.audit()
        // hci1's clock reads about 5000 when hci2's reads 0: interleaved as they arrive.
        var sightings: [Sighting] = []
        for second in 0...20 {
            sightings.append(Self.heard(Self.door.identity, at: 5000 + Double(second), by: "hci1"))
            if second >= 12 { sightings.append(Self.heard(Self.till.identity, at: Double(second - 12), by: "hci2")) }
        }
        audit = try Self.audit([Self.door, Self.till])
        let events = Self.play(&audit, sightings)
        // till, first heard by hci2 at its 0 (the watch's 5012), is not missing; neither is door.
        #expect(Self.changes(events) == ["5000 door -→ok", "5010 till -→missing", "5012 till missing→ok"])
        // door stops on hci1; hci2 goes on: door is missing 10 s after its last reception.
        var more: [AuditEvent] = []
        for second in 9...25 { more += audit.observe(Self.heard(Self.till.identity, at: Double(second), by: "hci2")) }
        #expect(Self.changes(more) == ["5030 door ok→missing"])
    }

    @Test("Unix wall-clock times are one time base shared by every receiver")
    func wallClock() throws {
        var audit = try Self.audit([Self.door, Self.till])
        let base = 1_700_000_000.0
        var sightings = (0...5).map { Self.heard(Self.door.identity, at: base + Double($0), by: "hci1", clock: .unix) }
        // A second receiver joining late, on the same wall clock: its times are not shifted.
        sightings += (20...21).map { Self.heard(Self.till.identity, at: base + Double($0), by: "hci2", clock: .unix) }
        let events = Self.play(&audit, sightings)
        #expect(Self.changes(events) == ["1700000000 door -→ok", "1700000010 till -→missing", "1700000015 door ok→missing", "1700000020 till missing→ok"])
    }

    @Test("a sighting older than the clock counts at the clock's time")
    func reordered() throws {
        var audit = try Self.audit()
        _ = Self.play(&audit, [Self.heard(Self.door.identity, at: 10)])
        _ = audit.advance(to: 15)
        #expect(Self.changes(Self.play(&audit, [Self.heard(Self.door.identity, at: 3)], until: 24)).isEmpty)
        #expect(Self.changes(audit.advance(to: 26)) == ["25 door ok→missing"])
    }

    // MARK: Input health

    @Test("while the input is down nothing goes missing; once back, every beacon has a full silence from then")
    func inputDown() throws {
        var audit = try Self.audit([Self.door, Self.till])
        var events = Self.play(&audit, [Self.heard(Self.till.identity, at: 0)] + Self.everySecond(Self.door.identity, from: 0, through: 5))
        // What fell due before the loss is still reported: till's silence ended at 10.
        events += audit.inputLost(at: 12)
        #expect(Self.changes(events) == ["0 till -→ok", "0 door -→ok", "10 till ok→missing"])
        #expect(audit.isInputDown)
        #expect(audit.advance(to: 60).isEmpty)
        #expect(audit.inputRestored(at: 60).isEmpty)
        #expect(!audit.isInputDown)
        // Heard again after the return: not missing at its own silence's end either.
        #expect(Self.changes(Self.play(&audit, [Self.heard(Self.till.identity, at: 65)])) == ["65 till missing→ok"])
        #expect(audit.advance(to: 69.9).isEmpty)
        #expect(Self.changes(audit.advance(to: 80)) == ["70 door ok→missing", "75 till ok→missing"])
    }

    @Test("a watch blind from its start: beacons never heard are missing a silence after the input first delivers; unexpected identities are not gone while it is down")
    func blindStart() throws {
        let stranger = Script.identity(minor: 99)
        var audit = try Self.audit([Self.door, Self.till])
        _ = audit.advance(to: 0)
        _ = audit.inputLost(at: 0)
        // The receiver's first sighting ties its clock to the audit's, which stands at 0.
        #expect(Self.changes(Self.play(&audit, [Self.heard(stranger, at: 1, address: Script.deviceB)])) == ["0 \(stranger) -→unexpected"])
        #expect(audit.advance(to: 30).isEmpty)
        _ = audit.inputRestored(at: 30)
        #expect(audit.advance(to: 39.9).isEmpty)
        #expect(Self.changes(audit.advance(to: 40)) == ["40 door -→missing", "40 till -→missing", "40 \(stranger) unexpected→gone"])
        // A restore without a loss changes nothing.
        #expect(audit.inputRestored(at: 41).isEmpty)
        #expect(audit.advance(to: 100).isEmpty)
    }

    // MARK: Restarting

    @Test("restored states are not reported again; a change from them is, and a restored beacon not heard is judged at the first silence")
    func restoredStates() throws {
        let back = Script.beacon("back", minor: 3)
        var audit = try Self.audit([Self.door, Self.till, back])
        #expect(audit.restore(["door": .ok, "till": .ok, "back": .missing, "elsewhere": .ok]) == 3)
        #expect(audit.beaconStates.map(\.state) == [.ok, .ok, .missing])
        // door heard ok: nothing to say; till heard with the wrong power: a change from ok.
        let events = Self.play(&audit, [Self.heard(Self.door.identity, at: 0), Self.heard(Self.till.identity, at: 0, power: -40)])
        #expect(Self.changes(events) == ["0 till ok→wrong-power"])
        // back, missing before and not heard, stays missing without a word; door and till go
        // missing from their states at their silence.
        #expect(Self.changes(audit.advance(to: 20)) == ["10 door ok→missing", "10 till wrong-power→missing"])
        // Once the clock runs, a restore changes nothing.
        #expect(audit.restore(["door": .ok]) == 0)
    }

    // MARK: Fleet scale

    @Test("a fleet's deadlines falling due in one step: every change at its own moment, in time order, manifest order at one moment")
    func fleetDeadlinesInOneStep() throws {
        // 300 beacons, each heard every second up to a second of its own; beacon 7 has a clone
        // for a while; then the clock jumps far ahead at once.
        let beacons = (1...300).map { Script.beacon("b\($0)", minor: UInt16($0)) }
        var audit = try Self.audit(beacons)
        func lastSecond(_ minor: Int) -> Int { (minor * 7) % 40 }
        var sightings: [Sighting] = []
        for second in 0...40 {
            for minor in 1...300 where second <= lastSecond(minor) {
                sightings.append(Self.heard(Script.identity(minor: UInt16(minor)), at: Double(second)))
            }
            if (2...4).contains(second) { sightings.append(Self.heard(Script.identity(minor: 7), at: Double(second), address: Script.deviceB)) }
        }
        var events = Self.play(&audit, sightings)
        events += audit.advance(to: 1000)
        var expected: [(time: Int, order: Int, text: String)] = []
        for minor in 1...300 {
            let last = lastSecond(minor)
            expected.append((0, minor, "0 b\(minor) -→ok"))
            if minor == 7 {
                // Heard with its clone from 2 to 4: a duplicate until the clone's silence ends.
                expected.append((2, minor, "2 b7 ok→duplicate"))
                if last + 10 > 14 { expected.append((14, minor, "14 b7 duplicate→ok")) }
            }
            expected.append((last + 10, minor, "\(last + 10) b\(minor) \(minor == 7 && last + 10 <= 14 ? "duplicate" : "ok")→missing"))
        }
        // The audit reports as time goes: changes caused by a sighting at its reception, the
        // rest in the order they fell due.
        let sorted = expected.sorted { $0.time != $1.time ? $0.time < $1.time : $0.order < $1.order }.map(\.text)
        #expect(Set(Self.changes(events)) == Set(sorted))
        #expect(Self.changes(events).count == sorted.count)
        // Every moment's changes come in time order, and at one moment in manifest order.
        let keys = events.map { ($0.time, Int($0.identity.minor)) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) })
        #expect(audit.statistics.beaconStates[.missing] == 300)
    }

    // MARK: Bounded memory

    @Test("unexpected identities beyond the limit are counted, not tracked; gone ones make room")
    func boundedUnexpected() throws {
        var audit = try Self.audit { $0.maximumTrackedUnexpected = 3 }
        let strangers = (100..<110).map { Self.heard(Script.identity(minor: UInt16($0)), at: 0) }
        let events = Self.play(&audit, strangers)
        #expect(events.count == 3)
        #expect(audit.statistics.untrackedUnexpectedSightings == 7)
        #expect(audit.statistics.unexpectedNow == 3)
        // Once they are gone, new identities take their places.
        _ = audit.advance(to: 20)
        #expect(audit.statistics.unexpectedGone == 3)
        let later = Self.play(&audit, [Self.heard(Script.identity(minor: 200), at: 21)])
        #expect(Self.changes(later) == ["21 \(Script.identity(minor: 200)) -→unexpected"])
        #expect(audit.statistics.unexpectedGone == 2)
    }

    @Test("receivers with clocks of their own beyond the limit are counted, not used; addresses and receivers per beacon are capped")
    func boundedReceiversAndAddresses() throws {
        var audit = try Self.audit {
            $0.maximumReceivers = 2
            $0.maximumAddressesPerIdentity = 4
            $0.maximumReceiversPerIdentity = 2
        }
        var sightings = (0..<5).map { Self.heard(Self.door.identity, at: 1, by: "r\($0)") }
        sightings += (16..<66).map { Self.heard(Self.door.identity, at: 1, by: "r0", address: "C0:00:00:00:01:" + String($0, radix: 16, uppercase: true)) }
        let events = Self.play(&audit, sightings)
        #expect(audit.statistics.untrackedReceiverSightings == 3)
        #expect(Self.changes(events) == ["1 door -→ok", "1 door ok→duplicate"])
        let last = try #require(audit.advance(to: 100).last)
        #expect(last.receivers.count == 2)
        // Wall-clock receivers share one base: any number of them is placed.
        var wall = try Self.audit { $0.maximumReceivers = 1 }
        _ = Self.play(&wall, (0..<20).map { Self.heard(Self.door.identity, at: 1_790_000_001, by: "w\($0)", clock: .unix) })
        #expect(wall.statistics.untrackedReceiverSightings == 0)
    }

    @Test("statistics count states; allOK only when every beacon is ok and nothing unexpected is on the air")
    func statistics() throws {
        var audit = try Self.audit([Self.door, Self.till])
        _ = Self.play(&audit, [Self.heard(Self.door.identity, at: 0), Self.heard(Self.till.identity, at: 0, power: -10)])
        var statistics = audit.statistics
        #expect(statistics.beaconStates == [.ok: 1, .wrongPower: 1, .missing: 0, .duplicate: 0, .unmonitored: 0])
        #expect(!statistics.allOK)
        _ = Self.play(&audit, [Self.heard(Self.till.identity, at: 1)])
        statistics = audit.statistics
        #expect(statistics.allOK)
    }
}
