import BeaconCore
import BeaconFleet
import BeaconTestKit
import Testing

/// The audit never turns evidence it dropped into a verdict: receivers beyond a bound, a
/// receiver whose clock stepped, a watch that did not run for a while.
@Suite("the watch and dropped evidence")
struct DroppedEvidenceTests {
    typealias Script = VerificationScript

    /// A sighting of `identity` by `receiver` at `time` on that receiver's clock.
    static func heard(_ identity: BeaconIdentity, at time: Double, by receiver: String, clock: SightingClock = .elapsed) -> Sighting {
        Script.sighting(identity, at: time, receiver: receiver, clock: clock)
    }

    static func changes(_ events: [AuditEvent]) -> [String] {
        events.map { "\(SightingJSONLines.timeText($0.time)) \($0.beaconID ?? "?") \($0.previous?.rawValue ?? "-")→\($0.state.rawValue)" }
    }

    // MARK: Receivers beyond a bound

    /// 1 000 stores, one receiver each on its own elapsed clock (Unix times in a file that
    /// does not say so: read as elapsed), two beacons each, heard every second; ten beacons
    /// silenced after 10 s. Exactly those ten are missing.
    @Test("1 000 receivers on elapsed clocks: exactly the silenced beacons are missing, no sighting left unplaced")
    func thousandReceiversOnElapsedClocks() throws {
        let stores = 1000
        var beacons: [ExpectedBeacon] = []
        for store in 0..<stores {
            for minor in 1...2 {
                beacons.append(ExpectedBeacon(
                    beaconID: "s\(store)-\(minor)", venueID: "store-\(store)",
                    identity: Script.identity(minor: UInt16(minor), major: UInt16(store + 1)),
                    measuredPower: .calibrated(-59), intervalMilliseconds: 100))
            }
        }
        var audit = AuditFeed(plan: try Script.plan(beacons), configuration: .init(silence: .seconds(10)))
        // Stores 0, 100, …, 900: both their beacons stop after 10 s.
        let silenced = Set(stride(from: 0, to: stores, by: 100))
        let unixStart = 1_764_000_000.0
        var events: [AuditEvent] = []
        for second in 0...25 {
            for store in 0..<stores {
                guard second <= 10 || !silenced.contains(store) else { continue }
                for minor in 1...2 {
                    let identity = Script.identity(minor: UInt16(minor), major: UInt16(store + 1))
                    events += audit.observe(Self.heard(identity, at: unixStart + Double(second), by: "store-\(store)"))
                }
            }
        }
        events += audit.advance(to: audit.now! + 0.5)
        let missing = Set(events.filter { $0.state == .missing }.compactMap(\.beaconID))
        let expected = Set(silenced.flatMap { ["s\($0)-1", "s\($0)-2"] })
        #expect(missing == expected)
        #expect(audit.statistics.untrackedReceiverSightings == 0)
        #expect(audit.statistics.beaconStates[.ok] == 2 * stores - expected.count)
    }

    @Test("beyond the bound: a beacon heard last by an unplaced receiver is unmonitored, never missing, and the bound is said once")
    func beyondTheReceiverBound() throws {
        let door = Script.beacon("door", minor: 1)
        let till = Script.beacon("till", minor: 2)
        var audit = AuditFeed(plan: try Script.plan([door, till]), configuration: .init(silence: .seconds(10), maximumReceivers: 1))
        var events: [AuditEvent] = []
        // hci0 takes the one place; box-2 is beyond it and is the only one hearing the till.
        for second in 0...40 {
            events += audit.observe(Self.heard(door.identity, at: Double(second), by: "hci0"))
            events += audit.observe(Self.heard(till.identity, at: 500 + Double(second), by: "box-2"))
        }
        #expect(Self.changes(events) == ["0 door -→ok", "10 till -→unmonitored"])
        let unmonitored = try #require(events.last)
        #expect(unmonitored.reason.contains("beyond the 1 on their own clocks"))
        let notices = audit.takeNotices()
        #expect(notices.count == 1)
        #expect(notices.first?.kind == .boundReached)
        #expect(notices.first?.reason.contains("box-2") == true)
        #expect(audit.statistics.untrackedReceiverSightings == 41)
        // Heard again by a placed receiver: judged on its own evidence again.
        events = audit.observe(Self.heard(till.identity, at: 41, by: "hci0"))
        #expect(Self.changes(events) == ["41 till unmonitored→ok"])
        events = audit.advance(to: 60)
        #expect(Self.changes(events).contains("51 till ok→missing"))
        #expect(audit.takeNotices().isEmpty)
    }

    // MARK: The other bounds (docs/operations.md, "Bounds")

    @Test("receivers per beacon beyond the bound: when every box that heard it falls silent, the beacon is unmonitored, never missing")
    func receiversPerBeaconBound() throws {
        let door = Script.beacon("door", minor: 1)
        var audit = AuditFeed(
            plan: try Script.plan([door]), configuration: .init(silence: .seconds(10), maximumReceiversPerIdentity: 2, followsReceivers: true))
        var events: [AuditEvent] = []
        for second in 0...5 {
            for box in 0..<5 { events += audit.observe(Self.heard(door.identity, at: Double(second), by: "box-\(box)")) }
        }
        events += audit.advance(to: 60)
        #expect(Self.changes(events) == ["0 door -→ok", "15 door ok→unmonitored"])
        #expect(audit.statistics.receiversOffline == 5)
    }

    @Test("unexpected identities beyond the bound: counted; the manifest's beacons are judged on their own evidence alone")
    func unexpectedBoundLeavesBeaconsAlone() throws {
        let door = Script.beacon("door", minor: 1)
        var audit = AuditFeed(plan: try Script.plan([door]), configuration: .init(silence: .seconds(10), maximumTrackedUnexpected: 2))
        var events: [AuditEvent] = []
        for second in 0...30 {
            if second <= 20 { events += audit.observe(Self.heard(door.identity, at: Double(second), by: "hci0")) }
            for stranger in 100..<110 { events += audit.observe(Self.heard(Script.identity(minor: UInt16(stranger)), at: Double(second), by: "hci0")) }
        }
        let doorChanges = Self.changes(events.filter { $0.beaconID == "door" })
        #expect(doorChanges == ["0 door -→ok", "30 door ok→missing"])
        #expect(events.filter { $0.state == .unexpected }.count == 2)
        #expect(audit.statistics.untrackedUnexpectedSightings == 31 * 8)
    }

    @Test("addresses per beacon beyond the bound: one device rotating its private address stays one device, heard, never missing")
    func addressesPerBeaconBound() throws {
        let door = Script.beacon("door", minor: 1)
        var audit = AuditFeed(plan: try Script.plan([door]), configuration: .init(silence: .seconds(10), maximumAddressesPerIdentity: 4))
        var events: [AuditEvent] = []
        // A new resolvable private address every second: 30 addresses, never two at once.
        for second in 0..<30 {
            var sighting = Self.heard(door.identity, at: Double(second), by: "hci0")
            sighting.address = BluetoothAddress("40:00:00:00:01:" + (second < 16 ? "0" : "") + String(second, radix: 16, uppercase: true))
            events += audit.observe(sighting)
        }
        events += audit.advance(to: 29.5)
        #expect(Self.changes(events) == ["0 door -→ok"])
    }

    // MARK: Receivers' clocks

    /// Two boxes on Unix time hearing two beacons every half second, as a live watch reads
    /// them (`observe(_:arrival:)`), box B's clock `offset` seconds off from `stepAt` on.
    /// Returns the audit's changes, its receivers' changes and its notices.
    static func twoBoxes(
        bOffset offset: Double, from stepAt: Double, bFirst: Bool = false
    ) throws -> (changes: [String], receivers: [String], notices: [AuditNotice]) {
        let door = Script.beacon("door", minor: 1)
        let till = Script.beacon("till", minor: 2)
        var audit = AuditFeed(plan: try Script.plan([door, till]), configuration: .init(silence: .seconds(5), followsReceivers: true))
        let wall = 1_764_000_000.0
        audit.tieToUnixTime(offset: wall)
        var events: [AuditEvent] = []
        var receivers: [String] = []
        var notices: [AuditNotice] = []
        for step in 0..<60 {
            let arrival = Double(step) * 0.5
            let boxA = { (identity: BeaconIdentity) in Self.heard(identity, at: wall + arrival - 0.05, by: "box-a", clock: .unix) }
            let bTime = wall + arrival - 0.05 + (arrival >= stepAt ? offset : 0)
            let boxB = { (identity: BeaconIdentity) in Self.heard(identity, at: bTime, by: "box-b", clock: .unix) }
            let order = bFirst ? [boxB, boxA] : [boxA, boxB]
            for box in order {
                for identity in [door.identity, till.identity] { events += audit.observe(box(identity), arrival: arrival) }
            }
            events += audit.advance(to: arrival + 0.25)
            receivers += audit.takeReceiverEvents().map { "\($0.receiver) \($0.state.rawValue)" }
            notices += audit.takeNotices()
        }
        return (changes(events), receivers, notices)
    }

    @Test("a box whose clock steps an hour forward or back: one receiver-clock event, every beacon and the other box unaffected", arguments: [3600.0, -3600.0])
    func clockStepsAnHour(offset: Double) throws {
        let run = try Self.twoBoxes(bOffset: offset, from: 10)
        #expect(run.changes == ["0 door -→ok", "0 till -→ok"])
        #expect(run.receivers == ["box-a online", "box-b online"])
        #expect(run.notices.map(\.kind) == [.receiverClock])
        let notice = try #require(run.notices.first)
        #expect(notice.reason.contains("box-b"))
        #expect(notice.reason.contains(offset > 0 ? "3600 s ahead of" : "3600 s behind"))
    }

    @Test("a box at 1970 (no NTP yet), heard first: the audit's clock and the other box are unaffected, one receiver-clock event")
    func boxAt1970() throws {
        let run = try Self.twoBoxes(bOffset: -1_764_000_000 + 37, from: 0, bFirst: true)
        #expect(run.changes == ["0 door -→ok", "0 till -→ok"])
        #expect(run.receivers == ["box-b online", "box-a online"])
        #expect(run.notices.map(\.kind) == [.receiverClock])
    }

    @Test("boxes with wrong clocks beyond the bound: placed on arrival, never later, and the tables do not grow")
    func wrongClocksBeyondTheBound() {
        var timeline = SightingTimeline(maximumReceivers: 1, arrivalTolerance: .seconds(5))
        timeline.tieToUnixTime(offset: .seconds(1_764_000_000))
        let identity = Script.identity(minor: 1)
        for box in 0..<3 {
            // An hour ahead: certain, so each is placed on its arrival at once.
            let placed = timeline.place(Self.heard(identity, at: 1_764_000_000 + 3600 + Double(box), by: "box-\(box)", clock: .unix), arrival: PassTime(sinceOrigin: .seconds(box)))
            #expect(placed?.time == PassTime(sinceOrigin: .seconds(box)))
        }
        // Only the first is remembered and said; the others were placed all the same.
        #expect(timeline.takeClockNotices().map(\.receiver) == ["box-0"])
        #expect(timeline.now == PassTime(sinceOrigin: .seconds(2)))
    }

    @Test("a box whose clock stands still: said once, however often it is placed again")
    func frozenClockSaidOnce() throws {
        let door = Script.beacon("door", minor: 1)
        var audit = AuditFeed(plan: try Script.plan([door]), configuration: .init(silence: .seconds(5), followsReceivers: true))
        audit.tieToUnixTime(offset: 1_764_000_000)
        var events: [AuditEvent] = []
        for step in 0..<120 {
            let arrival = Double(step) * 0.5
            events += audit.observe(Self.heard(door.identity, at: 37, by: "box-b", clock: .unix), arrival: arrival)
            events += audit.advance(to: arrival + 0.25)
        }
        #expect(Self.changes(events) == ["0 door -→ok"])
        #expect(audit.takeNotices().count == 1)
        #expect(audit.statistics.receiverClockEvents == 1)
    }

    @Test("a box whose clock comes back: one event when it stepped, one when it agrees again")
    func clockComesBack() throws {
        let door = Script.beacon("door", minor: 1)
        var audit = AuditFeed(plan: try Script.plan([door]), configuration: .init(silence: .seconds(5), followsReceivers: true))
        let wall = 1_764_000_000.0
        audit.tieToUnixTime(offset: wall)
        var events: [AuditEvent] = []
        for second in 0..<30 {
            let arrival = Double(second)
            let skew = (10..<20).contains(second) ? 3600.0 : 0
            events += audit.observe(Self.heard(door.identity, at: wall + arrival + skew, by: "box-b", clock: .unix), arrival: arrival)
        }
        #expect(Self.changes(events) == ["0 door -→ok"])
        #expect(audit.takeNotices().map { $0.reason.contains("agrees") } == [false, true])
        #expect(audit.now == 29)
    }

    // MARK: The watch's own stalls

    @Test("a stall of twice the silence while the boxes publish: no receiver offline, no beacon leaving ok, whichever the watch reads first")
    func stalledWatch() throws {
        for tickFirst in [true, false] {
            let door = Script.beacon("door", minor: 1)
            var audit = AuditFeed(plan: try Script.plan([door]), configuration: .init(silence: .seconds(5), followsReceivers: true))
            let wall = 1_764_000_000.0
            audit.tieToUnixTime(offset: wall)
            var events: [AuditEvent] = []
            var receivers: [String] = []
            // Before the stall: a sighting every half second.
            for step in 0...10 {
                let time = Double(step) * 0.5
                events += audit.observe(Self.heard(door.identity, at: wall + time, by: "box-a", clock: .unix), arrival: time)
            }
            // Stopped from 5 s to 15 s: the box went on publishing; on resuming, the watch
            // knows the stall (`AuditWatch` sees its clock jump) before it takes anything in.
            audit.stalled(from: 5, until: 15)
            let waited = (11...30).map { Self.heard(door.identity, at: wall + Double($0) * 0.5, by: "box-a", clock: .unix) }
            if tickFirst { events += audit.advance(to: 15) }
            for sighting in waited { events += audit.observe(sighting, arrival: 15) }
            events += audit.advance(to: 15)
            // After it: the box goes on.
            for step in 31...60 {
                let time = Double(step) * 0.5
                events += audit.observe(Self.heard(door.identity, at: wall + time, by: "box-a", clock: .unix), arrival: time)
                events += audit.advance(to: time + 0.25)
            }
            receivers += audit.takeReceiverEvents().map { "\($0.receiver) \($0.state.rawValue)" }
            #expect(Self.changes(events) == ["0 door -→ok"], "tick first: \(tickFirst)")
            #expect(receivers == ["box-a online"], "tick first: \(tickFirst)")
            #expect(audit.statistics.stalls == 1)
            // What waited through the stall arrived late, not from a wrong clock.
            #expect(audit.takeNotices().isEmpty, "tick first: \(tickFirst)")
        }
    }

    @Test("a box's sightings held up by a broker for longer than the silence, then on time again: a delay, not a clock")
    func delayedBacklogIsNotAClock() throws {
        let door = Script.beacon("door", minor: 1)
        var audit = AuditFeed(plan: try Script.plan([door]), configuration: .init(silence: .seconds(5), followsReceivers: true))
        let wall = 1_764_000_000.0
        audit.tieToUnixTime(offset: wall)
        var events: [AuditEvent] = []
        for second in 0..<10 {
            events += audit.observe(Self.heard(door.identity, at: wall + Double(second), by: "box-a", clock: .unix), arrival: Double(second))
        }
        // Seconds 10 to 17 reach the watch together at 18, then the box is on time again.
        for second in 10..<18 {
            events += audit.observe(Self.heard(door.identity, at: wall + Double(second), by: "box-a", clock: .unix), arrival: 18)
        }
        for second in 18..<30 {
            events += audit.observe(Self.heard(door.identity, at: wall + Double(second), by: "box-a", clock: .unix), arrival: Double(second))
            events += audit.advance(to: Double(second) + 0.5)
        }
        #expect(Self.changes(events) == ["0 door -→ok"])
        #expect(audit.takeNotices().isEmpty)
    }

    @Test("a stall still lets a beacon that really stopped go missing, one full silence after the watch runs again")
    func stallDelaysButDoesNotHide() throws {
        let door = Script.beacon("door", minor: 1)
        var audit = AuditFeed(plan: try Script.plan([door]), configuration: .init(silence: .seconds(5)))
        var events = audit.observe(Self.heard(door.identity, at: 0, by: "hci0"), arrival: 0)
        audit.stalled(from: 1, until: 12)
        events += audit.advance(to: 30)
        #expect(Self.changes(events) == ["0 door -→ok", "17 door ok→missing"])
    }
}
