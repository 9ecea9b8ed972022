import BeaconCore

/// The continuous audit behind `verify --watch`: a state per manifest beacon (ok, missing,
/// wrong-power, duplicate) and per unexpected fleet identity (unexpected, gone), kept
/// current as sightings arrive and time passes, reporting only changes.
///
/// Pure: no clock and no I/O. Callers feed sightings (`observe`) and move time on
/// (`advance`); both return the changes that fell due, in time order, each at the moment it
/// happened (a beacon goes missing exactly `silence` after it was last heard, whenever the
/// caller notices). The audit's clock starts at the first time it is given; sighting times
/// are placed on it per receiver (`SightingTimeline`).
///
/// While the input is down (`inputLost`), nothing changes by silence; once it is back
/// (`inputRestored`), every identity has a full silence from then. A restarted watch can
/// start from the states a previous one kept (`restore`).
///
/// Its times are the pass's (`PassTime`), its spans `Duration`s: deadlines compare exactly. Its
/// events tell them in seconds (`PassTime.seconds`), and in Unix time once the pass said where
/// that stands (`unixTimeKnown(offset:)`), as they are written.
///
/// Receivers are followed too (`FollowedReceivers`): one is offline when its status says so
/// (`receiverStatus`) or when none of its sightings arrived for the silence period, online
/// again at its next sighting or status. The receivers that heard a beacon within the silence
/// before its latest reception are its usual receivers: a beacon whose usual receivers are
/// all offline is `unmonitored`, not `missing`, and a silent beacon is `missing` only once one
/// of them has shown it still hears (a sighting of it at or after the end of the beacon's
/// silence), so that a box that died takes its beacons to `unmonitored` without a `missing`
/// first. A receiver's change is one `AuditReceiverEvent` (`takeReceiverEvents`).
///
/// Memory is bounded whatever the input: the manifest's beacons, at most
/// `maximumTrackedUnexpected` unexpected identities and `maximumReceivers` receiver clocks,
/// and a few addresses and receivers per identity; what is beyond is counted.
public struct ContinuousAudit: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// How long without a reception a beacon is missing after (an unexpected identity
        /// gone), and the window in which two devices sending one identity are a duplicate.
        public var silence: Duration
        public var maximumTrackedUnexpected: Int
        /// Receivers on elapsed clocks whose clocks are told apart (sightings in Unix time all
        /// share one base, whatever their number); the sightings of any beyond are counted, not
        /// placed, and a beacon they alone heard last is `unmonitored`, never missing.
        public var maximumReceivers: Int
        /// Device addresses, and receivers, remembered per identity (the least recently heard
        /// makes room).
        public var maximumAddressesPerIdentity: Int
        public var maximumReceiversPerIdentity: Int
        /// Receivers whose status is followed (a chain's boxes); the reports of any beyond
        /// are counted, and their beacons judged as if no receiver were followed.
        public var maximumFollowedReceivers: Int
        /// Whether receivers are followed (offline by their status or the silence of all
        /// their sightings, their beacons then unmonitored). A watch of a broker's receivers
        /// says yes; a watch of this host's own controller, or of a file or pipe of its
        /// scans, says no: its receiver is the controller, whose failure ends the scan, and
        /// its silence is the beacons'.
        public var followsReceivers: Bool

        public static let defaultSilence = Duration.seconds(30)

        public init(
            silence: Duration = Self.defaultSilence,
            maximumTrackedUnexpected: Int = VerificationEngine.maximumTrackedUnexpected,
            maximumReceivers: Int = SightingTimeline.standardMaximumReceivers, maximumAddressesPerIdentity: Int = 16, maximumReceiversPerIdentity: Int = 16,
            maximumFollowedReceivers: Int = 65_536, followsReceivers: Bool = false
        ) {
            self.silence = silence
            self.maximumTrackedUnexpected = maximumTrackedUnexpected
            self.maximumReceivers = maximumReceivers
            self.maximumAddressesPerIdentity = maximumAddressesPerIdentity
            self.maximumReceiversPerIdentity = maximumReceiversPerIdentity
            self.maximumFollowedReceivers = maximumFollowedReceivers
            self.followsReceivers = followsReceivers
        }
    }

    public let plan: VerificationPlan
    public let configuration: Configuration

    /// The audit's clock (the pass's: `SightingPass` places every sighting on it and says
    /// where it stands): `nil` until the first time is given.
    public private(set) var now: PassTime?
    private var start: PassTime?
    /// What to add to a time on the audit's clock to tell it as Unix time, once the pass
    /// knows (`PassNotice.unixTimeKnown`).
    private var unixOffset: Duration?
    /// One per manifest beacon, in manifest order (`plan.expected[index]` is its beacon).
    private var beacons: [AuditedIdentity]
    private let beaconIndex: IdentityTable
    /// Places for unexpected identities: a gone one's place is taken by a new one.
    private var unexpected: [AuditedIdentity] = []
    private var unexpectedIndex: [BeaconIdentity: Int] = [:]
    /// Told to each unexpected identity as it is first tracked: the order events of one
    /// moment are reported in.
    private var nextUnexpectedSerial = 0
    /// The end of the first silence, when every beacon never heard goes missing at once:
    /// one moment for them all, so they take no place in `deadlines`. `nil`: none to come (the
    /// clock has not started, or it was judged).
    private var firstSilenceDue: PassTime?
    /// Each heard identity's next deadline (at most one entry each, `queuedDue`): a sighting
    /// or a moment passing costs the same whatever the size of the fleet.
    private var deadlines = DeadlineQueue<PassTime>()
    private var counters = AuditStatistics()
    /// While the input is not delivering, silence says nothing: no state changes by it.
    public private(set) var isInputDown = false
    /// No change by silence before this moment: one full silence from the input's return.
    /// `nil`: no such bound (the input never came back, nothing was lost).
    private var silenceJudgedFrom: PassTime?
    /// The receivers followed, and each one's next silence deadline (at most one entry each,
    /// `queuedDue`).
    private var receivers: FollowedReceivers
    private var receiverDeadlines = DeadlineQueue<PassTime>()
    /// Receivers offline now: while there are none, no beacon needs its receivers looked at
    /// unless its silence has passed.
    private var offlineReceivers = 0
    /// Beacons whose silence has passed while their usual receivers were online but had not
    /// shown they still hear (`awaitsReceiver`): judged at the next sighting of one of them,
    /// or when they go offline. Entries of beacons heard since are dropped as met.
    private var awaitingBeacons: [Int] = []
    /// A change that fell due as the clock moved: where it goes among those of one moment
    /// (`AuditedIdentity.order`), and its moment, which orders the changes exactly.
    private typealias DueEvent = (order: Int, time: PassTime, event: AuditEvent)
    /// Receivers' changes not yet taken (`takeReceiverEvents`).
    private var receiverEvents: [AuditReceiverEvent] = []
    /// What the audit says of its own evidence, not yet taken (`takeNotices`).
    private var notices: [AuditNotice] = []
    /// Beacons not missing before a moment, by index: their receiver's return gave them a
    /// full silence. Few and short-lived (dropped when heard): beside the tracks, not in them.
    private var notBeforeByBeacon: [Int: PassTime] = [:]
    /// When (on the audit's clock) each beacon was last heard by a receiver whose sightings
    /// could not be placed (beyond `maximumReceivers`), by index. Rare: beside the tracks,
    /// not in them, so that a reception costs no more for it.
    private var unplacedByBeacon: [Int: PassTime] = [:]
    /// A restored `unmonitored` beacon's receivers from the previous watch, by index, until
    /// it is heard (`restore`).
    private var restoredReceivers: [Int: [String]] = [:]
    /// The beacons' batteries (docs/health.md): a reducer of its own beside the tracks, fed
    /// telemetry readings, never touched by a sighting.
    var batteries: BatteryWatch
    /// Telemetry paired by identity and the manifest's addresses (`TelemetryPairing`).
    let manifestPairing: TelemetryPairing
    /// Addresses of telemetry paired by the beacon heard advertising from them (`nil`: no
    /// single beacon), looked up once per address and kept, bounded (`ContinuousAudit+Battery`).
    var heardPairing: [BluetoothAddress: Int?] = [:]
    /// Telemetry addresses no beacon was heard from, with when to look again, bounded like
    /// `heardPairing` (`ContinuousAudit+Battery`).
    var unpairedRetry: [BluetoothAddress: PassTime] = [:]

    public init(plan: VerificationPlan, configuration: Configuration = Configuration()) {
        self.plan = plan
        self.configuration = configuration
        receivers = FollowedReceivers(maximum: configuration.maximumFollowedReceivers)
        beacons = plan.expected.enumerated().map { AuditedIdentity(identity: $1.identity, order: $0) }
        beaconIndex = IdentityTable(plan.expected.map(\.identity))
        batteries = BatteryWatch(beacons: plan.expected)
        manifestPairing = TelemetryPairing(beacons: plan.expected)
    }

    /// The manifest beacon with `identity`, by index.
    func beaconIndex(of identity: BeaconIdentity) -> Int? {
        beaconIndex.index(of: identity) { beacons[$0].identity }
    }

    /// The beacons advertising their identity from `address` among those heard lately, by
    /// index: a walk of every beacon's few addresses, done once per telemetry address.
    func beaconsHeard(from address: BluetoothAddress) -> [Int] {
        beacons.indices.filter { index in beacons[index].addresses.contains { $0.address == address } }
    }

    /// The current state of each manifest beacon, in manifest order (`nil`: not yet known).
    public var beaconStates: [(beacon: ExpectedBeacon, state: AuditState?)] {
        zip(plan.expected, beacons).map { ($0, $1.state) }
    }

    /// Each manifest beacon's state and latest reception (in Unix time too, once known), in
    /// manifest order.
    public var beaconSummaries: [AuditBeaconSummary] {
        zip(plan.expected, beacons).map {
            AuditBeaconSummary(beacon: $0, state: $1.state, lastSeen: $1.lastSeen?.seconds, lastSeenUnixTime: unixSeconds(at: $1.lastSeen))
        }
    }

    /// Counters and states so far.
    public var statistics: AuditStatistics {
        var statistics = counters
        for state in AuditState.beaconStates { statistics.beaconStates[state] = 0 }
        for track in beacons {
            if let state = track.state { statistics.beaconStates[state, default: 0] += 1 } else { statistics.unknownBeacons += 1 }
        }
        statistics.unexpectedNow = unexpected.count { $0.state == .unexpected }
        statistics.unexpectedGone = unexpected.count { $0.state == .gone }
        statistics.receiversOffline = offlineReceivers
        statistics.receiversOnline = receivers.all.count { $0.state == .online }
        return statistics
    }

    /// Each followed receiver's name and status, by name.
    public var receiverStates: [(receiver: String, state: ReceiverState)] {
        receivers.all.compactMap { receiver in receiver.state.map { (receiver.name, $0) } }.sorted { $0.receiver < $1.receiver }
    }

    /// The receivers' changes since the last call, in time order.
    public mutating func takeReceiverEvents() -> [AuditReceiverEvent] {
        guard !receiverEvents.isEmpty else { return [] }
        defer { receiverEvents = [] }
        return receiverEvents
    }

    // MARK: Input

    /// Takes in one reception, placed on the audit's clock by the pass (`SightingPass`: a
    /// live watch checks each receiver's Unix clock against the arrivals, within the silence,
    /// so that one box's clock never ages the others' beacons): the changes due up to where
    /// the clock stands, then the one it causes.
    @inline(__always)
    public mutating func observe(_ placedSighting: PlacedSighting) -> [AuditEvent] {
        counters.sightings += 1
        let sighting = placedSighting.sighting
        guard let placed = placedSighting.time else { return unplaced(sighting) }
        var events = clockMoved(.moving(&now, to: placedSighting.clock))
        // A sighting older than the clock (a source that reordered) counts at the clock's time.
        let time = now ?? placed
        let identity = sighting.identity
        if let index = beaconIndex.index(of: identity, identityAt: { beacons[$0].identity }) {
            // The track knows the place of the receivers that hear it: no lookup by name.
            // Heard: no longer waiting for its receivers' word (before they are heard, which
            // would judge it missing).
            beacons[index].awaitsReceiver = false
            // Heard since: what a receiver's return or a previous watch left no longer counts.
            if !notBeforeByBeacon.isEmpty { notBeforeByBeacon[index] = nil }
            if !restoredReceivers.isEmpty { restoredReceivers[index] = nil }
            let place = configuration.followsReceivers
                ? beacons[index].receiverPlace(of: sighting.receiver) ?? receiverPlace(named: sighting.receiver, at: time) : -1
            let live = takeReceiverSighting(place, sentAt: placed, at: time, into: &events)
            beacons[index].record(sighting, receiverPlace: place, at: time, configuration)
            // A late sighting of a receiver gone offline since: its receivers have a say.
            if let event = reevaluateBeacon(index, at: time, heard: live) { events.append(event) }
            schedule(.beacon(index))
        } else if plan.otherKnown[identity] != nil || !plan.fleetUUIDs.contains(identity.uuid) {
            counters.ignoredSightings += 1
            // Still a sign that its receiver hears.
            let place = receiverPlace(named: sighting.receiver, at: time)
            _ = takeReceiverSighting(place, sentAt: placed, at: time, into: &events)
        } else if let index = trackUnexpected(identity) {
            let place = configuration.followsReceivers
                ? unexpected[index].receiverPlace(of: sighting.receiver) ?? receiverPlace(named: sighting.receiver, at: time) : -1
            _ = takeReceiverSighting(place, sentAt: placed, at: time, into: &events)
            unexpected[index].record(sighting, receiverPlace: place, at: time, configuration)
            if let event = reevaluateUnexpected(index, at: time) { events.append(event) }
            schedule(.unexpected(index))
        } else {
            counters.untrackedUnexpectedSightings += 1
            let place = receiverPlace(named: sighting.receiver, at: time)
            _ = takeReceiverSighting(place, sentAt: placed, at: time, into: &events)
        }
        return events
    }

    /// A sighting of a receiver beyond the `maximumReceivers` on elapsed clocks: its time
    /// cannot be placed, so it is counted, and the manifest beacon it names cannot be judged
    /// missing while its latest reception is one of these (it is `unmonitored`): evidence the
    /// audit dropped never becomes a verdict. Said once (`takeNotices`).
    private mutating func unplaced(_ sighting: Sighting) -> [AuditEvent] {
        counters.untrackedReceiverSightings += 1
        if counters.untrackedReceiverSightings == 1 {
            notices.append(AuditNotice(
                time: now ?? .origin, kind: .boundReached,
                reason: "receiver \(sighting.receiver) is beyond the \(configuration.maximumReceivers) receivers on their own clocks that the watch tells apart: its sightings cannot be placed in time, so the beacons only such receivers hear are unmonitored, never missing; mark the input's times as Unix time (\"clock\":\"unix\") or split the fleet over several watches"))
        }
        guard let time = now, let index = beaconIndex.index(of: sighting.identity, identityAt: { beacons[$0].identity }) else { return [] }
        unplacedByBeacon[index] = time
        guard let event = reevaluateBeacon(index, at: time) else { return [] }
        return [event]
    }

    /// A receiver's clock found to disagree with the watch's, or to agree again: said once
    /// (`takeNotices`, a `receiver-clock` event).
    public mutating func receiverClock(_ notice: ReceiverClockNotice) {
        counters.receiverClockEvents += 1
        let skewSeconds = notice.skew.instantSeconds
        let skew = NumberText.plain((abs(skewSeconds) * 10).rounded() / 10)
        let reason = notice.agrees
            ? "receiver \(notice.receiver)'s clock agrees with the watch's again (off by \(skew) s): its sightings are placed by their own times again"
            : "receiver \(notice.receiver)'s clock is \(skew) s \(skewSeconds > 0 ? "ahead of" : "behind") the watch's (more than the \(Self.seconds(configuration.silence)) silence: it stepped, or was never set): its sightings are placed on their arrival, no other receiver's beacons are judged by it; set its clock (NTP)"
        notices.append(AuditNotice(time: max(notice.at, now ?? notice.at), kind: .receiverClock, reason: reason))
    }

    /// What the audit has to say of its own evidence since the last call (a bound reached, a
    /// receiver's clock), in order.
    public mutating func takeNotices() -> [AuditNotice] {
        guard !notices.isEmpty else { return [] }
        defer { notices = [] }
        return notices
    }

    /// The watch itself did not run from `from` to `until` on its clock (a stopped process, a
    /// suspended VM, a machine swapping): nothing it would have read in that time was read
    /// when it fell due, so no beacon and no receiver is judged by a silence that includes
    /// it: each gets one full silence from `until`. Unlike `sightingsMayBeMissing`, nothing
    /// due during the stall is judged first.
    public mutating func stalled(from: PassTime, until: PassTime) {
        counters.stalls += 1
        judgeSilence(from: max(until, now ?? until))
    }

    /// The Unix time of `time` on the audit's clock (the time since the Unix epoch), once the
    /// pass said where Unix time stands (`unixTimeKnown(offset:)`).
    public func unixTime(at time: PassTime) -> Duration? {
        unixOffset.map { time.sinceOrigin + $0 }
    }

    /// `unixTime(at:)` in seconds, as events and reports write it.
    func unixSeconds(at time: PassTime?) -> Double? {
        time.flatMap(unixTime(at:))?.instantSeconds
    }

    /// Says what to add to the audit's times to get Unix time (`PassNotice.unixTimeKnown`).
    /// The first holds.
    public mutating func unixTimeKnown(offset: Duration) {
        if unixOffset == nil { unixOffset = offset }
    }

    /// Moves the clock to `time` (a time before it changes nothing): every change due by
    /// then, each at its own time, in time order.
    public mutating func advance(to time: PassTime) -> [AuditEvent] {
        clockMoved(.moving(&now, to: time))
    }

    /// No change by silence before a full silence from `time` (nor before an earlier such
    /// bound).
    private mutating func judgeSilence(from time: PassTime) {
        silenceJudgedFrom = PassTime.latest(time + configuration.silence, silenceJudgedFrom)
    }

    /// The changes due now that the clock has moved (or started) as `advance` says.
    private mutating func clockMoved(_ advance: SightingTimeline.Advance) -> [AuditEvent] {
        guard let time = now else { return [] }
        switch advance {
        case .unchanged:
            return []
        case .started:
            start = time
            firstSilenceDue = time + configuration.silence
            return []
        case .moved:
            break
        }
        guard !isInputDown,
            PassTime.isDue(firstSilenceDue, by: time) || PassTime.isDue(deadlines.soonest, by: time)
                || PassTime.isDue(receiverDeadlines.soonest, by: time)
        else { return [] }

        var due: [DueEvent] = []
        if let firstDue = firstSilenceDue, firstDue <= time {
            // After the input's return, the first silence ends a full silence after it.
            let moment = PassTime.latest(firstDue, silenceJudgedFrom)
            firstSilenceDue = moment > time ? moment : nil
            if moment <= time {
                // Not heard since the start (a restored state included: it is confirmed or changed now).
                for index in beacons.indices where beacons[index].lastSeen == nil {
                    if let event = reevaluateBeacon(index, at: moment) { due.append((index, moment, event)) }
                }
            }
        }
        while true {
            // Receivers and tracks in time order, a receiver first at one moment: a box that
            // went silent is offline before its beacons' silence is judged.
            if PassTime.isNoLater(receiverDeadlines.soonest, than: deadlines.soonest),
                let (entryDue, place) = receiverDeadlines.popDue(by: time)
            {
                receiverDeadlineFell(place, entryDue: entryDue, into: &due)
                continue
            }
            guard let (entryDue, slot) = deadlines.popDue(by: time) else { break }
            let key = TrackKey(slot: slot)
            // Only the entry a track holds counts (a place an unexpected identity left may
            // have been taken since).
            guard self[key].queuedDue == entryDue else { continue }
            self[key].queuedDue = nil
            // After the input's return, expiries before `silenceJudgedFrom` are judged at it;
            // one at or after a receiver's deadline waits for it (queued again below).
            while let deadline = Self.deadline(of: self[key], silence: configuration.silence, notBefore: notBefore(of: key))
                .map({ PassTime.latest($0, silenceJudgedFrom) }),
                  deadline <= time, receiverDeadlines.soonest.map({ deadline < $0 }) ?? true {
                let event: AuditEvent?
                switch key {
                case .beacon(let index): event = reevaluateBeacon(index, at: deadline)
                case .unexpected(let index): event = reevaluateUnexpected(index, at: deadline)
                }
                if let event { due.append((self[key].order, deadline, event)) }
            }
            schedule(key)
        }
        // Stable: at one moment, beacons in manifest order, then unexpected ones as first heard.
        due.sort { left, right in left.time != right.time ? left.time < right.time : left.order < right.order }
        return due.map(\.event)
    }

    // MARK: Restarting

    /// Starts the manifest's beacons from the states a previous watch left (`--state`), by
    /// beacon id; ids the plan does not have are left out. A restored state is not
    /// reported again: only a change from it is. A beacon not heard again is judged at the
    /// end of the first silence like one never heard (a restored `missing` then says
    /// nothing). Before the clock starts only; returns how many beacons took a state.
    ///
    /// `receivers`: the receivers of the `unmonitored` beacons, by id. Such a beacon not heard
    /// again stays `unmonitored` at the end of the first silence if they are all offline then
    /// (their retained status says so at the start), and gets a full silence when one comes back.
    public mutating func restore(_ states: [String: AuditState], receivers: [String: [String]] = [:]) -> Int {
        guard now == nil else { return 0 }
        var restored = 0
        for (index, beacon) in plan.expected.enumerated() {
            guard let state = states[beacon.beaconID], AuditState.beaconStates.contains(state) else { continue }
            beacons[index].state = state
            if state == .unmonitored, let names = receivers[beacon.beaconID] {
                // Bounded like the receivers a track remembers.
                restoredReceivers[index] = Array(names.prefix(configuration.maximumReceiversPerIdentity))
            }
            restored += 1
        }
        return restored
    }

    // MARK: Input health

    /// The input stopped delivering at `time`: what fell due before it is reported, then
    /// nothing changes by silence until it is back (`inputRestored`).
    public mutating func inputLost(at time: PassTime) -> [AuditEvent] {
        let events = advance(to: time)
        isInputDown = true
        return events
    }

    /// The input delivers again from `time` (or the clock, if later): every beacon and
    /// unexpected identity gets one full silence from then before silence changes it.
    public mutating func inputRestored(at time: PassTime) -> [AuditEvent] {
        guard isInputDown else { return advance(to: time) }
        _ = advance(to: time)
        isInputDown = false
        judgeSilence(from: now ?? time)
        return []
    }

    /// Sightings up to `time` may have been lost (a broker or a queue dropped them): silence
    /// up to then is no evidence, so nothing is judged by silence before `time` plus a full
    /// silence. Cheap: one bound for the whole audit, however often it is called.
    public mutating func sightingsMayBeMissing(at time: PassTime) -> [AuditEvent] {
        let events = advance(to: time)
        judgeSilence(from: now ?? time)
        return events
    }

    // MARK: Receivers

    /// A receiver's status as it says it (its retained status topic, its last will), at
    /// `time`: the changes due by then, then the beacons it changes (the receiver's own
    /// change is taken with `takeReceiverEvents`). A receiver first known by its status is
    /// followed from then.
    public mutating func receiverStatus(_ change: ReceiverStatusChange, at time: PassTime) -> [AuditEvent] {
        var events = advance(to: time)
        guard configuration.followsReceivers else { return events }
        let moment = now ?? time
        // The status names the receiver by its topic level.
        let place: Int
        if let known = receivers.place(ofTopicLevel: change.receiver) {
            place = known
        } else {
            place = receiverPlace(named: change.receiver, at: moment)
            guard place >= 0 else {
                counters.unfollowedReceiverReports += 1
                return events
            }
        }
        var due: [DueEvent] = []
        if change.online {
            receivers[place].lastActive = max(receivers[place].lastActive, moment)
            if receivers[place].state != .online { receiverOnline(place, cause: .status, at: moment, into: &due) }
            scheduleReceiver(place)
        } else if receivers[place].state != .offline {
            receiverOffline(place, cause: .status, at: moment, into: &due)
        }
        events += due.map(\.event)
        return events
    }

    /// The place of the receiver named `name`, followed from `time` when new (its first
    /// state is reported when it gets one); -1 when every place is taken, or receivers are
    /// not followed.
    private mutating func receiverPlace(named name: String, at time: PassTime) -> Int {
        guard configuration.followsReceivers else { return -1 }
        return receivers.place(of: name) ?? receivers.add(name, at: time) ?? -1
    }

    /// Takes a sighting of the receiver at `place` sent at `sentAt`: whether it is a sign of
    /// life (see `receiverHeard`); one of a receiver beyond the followed ones is counted.
    private mutating func takeReceiverSighting(_ place: Int, sentAt: PassTime, at time: PassTime, into events: inout [AuditEvent]) -> Bool {
        guard place >= 0 else {
            if configuration.followsReceivers { counters.unfollowedReceiverReports += 1 }
            return true
        }
        return receiverHeard(place, sentAt: sentAt, at: time, into: &events)
    }

    /// A sighting of receiver `place` at `time` (`sentAt`: its own time on the audit's clock):
    /// it hears, so it is online, and beacons that waited for its word are judged. `false`
    /// for a sighting sent before the receiver went offline and arriving late: no sign of life.
    private mutating func receiverHeard(_ place: Int, sentAt: PassTime, at time: PassTime, into events: inout [AuditEvent]) -> Bool {
        if receivers[place].state == .offline, let offline = receivers[place].offlineSince {
            // Its last sightings may reach the audit after its last will (they travel
            // different ways, and its clock may run ahead of the placing): those sent before
            // it, or arriving just after it, are late, not a return (a box that restarts says
            // `online` first, which brings it back).
            if sentAt < offline || (receivers[place].offlineByStatus && time < offline + Self.lateSightingWindow) { return false }
        }
        receivers[place].lastSeen = time
        receivers[place].lastActive = time
        if receivers[place].state != .online {
            var due: [DueEvent] = []
            receiverOnline(place, cause: .sighting, at: time, into: &due)
            events += due.map(\.event)
        }
        if receivers[place].awaited {
            receivers[place].awaited = false
            judgeAwaitingBeacons(heardBy: place, at: time, into: &events)
        }
        // Straight to the array (as `schedule` does): this runs at every reception.
        guard receivers[place].queuedDue == nil else { return true }
        scheduleReceiver(place)
        return true
    }

    /// How long after a receiver's status said offline its sightings are taken as late ones,
    /// sent before it (`receiverHeard`).
    static let lateSightingWindow = Duration.seconds(2)

    /// Queues the receiver's silence deadline unless it has one queued (a queued one is
    /// never later than the real one: sightings only push it back).
    private mutating func scheduleReceiver(_ place: Int) {
        guard receivers[place].queuedDue == nil, receivers[place].state == .online else { return }
        let due = PassTime.latest(receivers[place].lastActive + configuration.silence, silenceJudgedFrom)
        receivers[place].queuedDue = due
        receiverDeadlines.insert(place, due: due)
    }

    private mutating func receiverDeadlineFell(_ place: Int, entryDue: PassTime, into due: inout [DueEvent]) {
        guard receivers[place].queuedDue == entryDue else { return }
        receivers[place].queuedDue = nil
        guard receivers[place].state == .online else { return }
        let silentAt = PassTime.latest(receivers[place].lastActive + configuration.silence, silenceJudgedFrom)
        guard silentAt <= entryDue else {
            // Heard since it was queued: queued again at its real deadline.
            scheduleReceiver(place)
            return
        }
        receiverOffline(place, cause: .silence, at: silentAt, into: &due)
    }

    /// Receiver `place` is offline from `time`: every beacon it usually hears is judged
    /// again (those whose usual receivers are now all offline are unmonitored), then the
    /// receiver's one event names them.
    private mutating func receiverOffline(
        _ place: Int, cause: AuditReceiverEvent.Cause, at time: PassTime, into due: inout [DueEvent]
    ) {
        let previous = receivers[place].state
        receivers[place].state = .offline
        receivers[place].offlineSince = time
        receivers[place].offlineByStatus = cause == .status
        receivers[place].awaited = false
        offlineReceivers += 1
        let name = receivers[place].name
        var unmonitored: [String] = []
        // A walk of the fleet, but only when a receiver changes.
        for index in beacons.indices
        where Self.isReceiver(place, named: name, of: beacons[index], restored: restored(index), silence: configuration.silence) {
            if let event = reevaluateBeacon(index, at: time) { due.append((index, time, event)) }
            if beacons[index].state == .unmonitored { unmonitored.append(plan.expected[index].beaconID) }
        }
        let reason: String
        switch cause {
        case .silence:
            reason = "none of its sightings for \(Self.seconds(configuration.silence))"
        case .status, .sighting:
            reason = "its status says offline (its box stopped, or the broker published its last will when the connection died)"
        }
        receiverEvents.append(AuditReceiverEvent(
            time: time.seconds, receiver: name, state: .offline, previous: previous, cause: cause, reason: reason,
            beacons: unmonitored, lastSeen: receivers[place].lastSeen?.seconds, unixTime: unixSeconds(at: time)))
    }

    /// Receiver `place` is online from `time`: the unmonitored beacons it usually hears get
    /// a full silence from now before they can be missing.
    private mutating func receiverOnline(
        _ place: Int, cause: AuditReceiverEvent.Cause, at time: PassTime, into due: inout [DueEvent]
    ) {
        let previous = receivers[place].state
        receivers[place].state = .online
        if previous == .offline { offlineReceivers -= 1 }
        var monitoredAgain: [String] = []
        if previous == .offline {
            let name = receivers[place].name
            for index in beacons.indices where beacons[index].state == .unmonitored
                && Self.isReceiver(place, named: name, of: beacons[index], restored: restored(index), silence: configuration.silence) {
                notBeforeByBeacon[index] = PassTime.latest(time + configuration.silence, notBeforeByBeacon[index])
                monitoredAgain.append(plan.expected[index].beaconID)
                schedule(.beacon(index))
            }
        }
        let reason: String
        switch cause {
        case .sighting: reason = previous == nil ? "first heard" : "heard again"
        case .status: reason = "its status says online"
        case .silence: reason = ""
        }
        receiverEvents.append(AuditReceiverEvent(
            time: time.seconds, receiver: receivers[place].name, state: .online, previous: previous, cause: cause, reason: reason,
            beacons: monitoredAgain, lastSeen: receivers[place].lastSeen?.seconds, unixTime: unixSeconds(at: time)))
    }

    /// Judges the beacons that waited for a sighting of receiver `place`: it hears, so their
    /// silence is theirs: missing, at the moment their silence ended (reported now, at `time`).
    private mutating func judgeAwaitingBeacons(heardBy place: Int, at time: PassTime, into events: inout [AuditEvent]) {
        let waiting = awaitingBeacons
        awaitingBeacons = []
        for index in waiting where beacons[index].awaitsReceiver {
            guard Self.usuallyHears(beacons[index], place: place, silence: configuration.silence), let lastSeen = beacons[index].lastSeen else {
                awaitingBeacons.append(index)
                continue
            }
            beacons[index].awaitsReceiver = false
            let silenceEnded = PassTime.latest(
                PassTime.latest(lastSeen + configuration.silence, notBefore(ofBeacon: index)), silenceJudgedFrom)
            if let event = reevaluateBeacon(index, at: min(silenceEnded, time)) { events.append(event) }
        }
    }

    /// Whether receiver `place` (named `name`) is one of `track`'s usual receivers, or, for a
    /// track this watch has not heard, one the previous watch left it (`restore`).
    private static func isReceiver(_ place: Int, named name: String, of track: AuditedIdentity, restored: [String], silence: Duration) -> Bool {
        guard track.lastSeen != nil else { return restored.contains(name) }
        return usuallyHears(track, place: place, silence: silence)
    }

    /// Whether receiver `place` is one of `track`'s usual receivers: it heard the track
    /// within the silence before the track's latest reception.
    private static func usuallyHears(_ track: AuditedIdentity, place: Int, silence: Duration) -> Bool {
        guard let lastSeen = track.lastSeen else { return false }
        let from = lastSeen - silence
        return track.receivers.contains { $0.place == place && $0.lastSeen >= from }
    }

    /// What the beacon's usual receivers make of a beacon judged by its own receptions.
    private enum ReceiversWord {
        /// The state its receptions give stands.
        case stands
        case unmonitored
        /// Not judged yet: its silence has passed but none of its receivers has shown it
        /// still hears, or its receivers' return gave it a silence not yet over.
        case keepCurrent
    }

    /// The receivers' word on beacon `index` at `time`; a beacon left waiting for a sighting
    /// of a usual receiver is listed in `awaitingBeacons`, and those receivers flagged.
    private mutating func receiversWord(on index: Int, judged state: AuditState?, at time: PassTime) -> ReceiversWord {
        let word = receiversWordWithoutWaiting(on: index, judged: state)
        guard word == .keepCurrent, let lastSeen = beacons[index].lastSeen else {
            beacons[index].awaitsReceiver = false
            return word
        }
        // Its silence has passed: it waits for a sighting of a usual receiver that is online.
        let silenceEnded = PassTime.latest(
            PassTime.latest(lastSeen + configuration.silence, notBefore(ofBeacon: index)), silenceJudgedFrom)
        guard time >= silenceEnded else { return word }
        if !beacons[index].awaitsReceiver {
            beacons[index].awaitsReceiver = true
            awaitingBeacons.append(index)
            // Entries of beacons heard since are dropped here too: the list stays within the fleet.
            if awaitingBeacons.count > 2 * beacons.count { awaitingBeacons.removeAll { !beacons[$0].awaitsReceiver } }
        }
        for receiver in beacons[index].receivers where receiver.lastSeen >= lastSeen - configuration.silence && receiver.place >= 0 {
            if receivers[receiver.place].state == .online { receivers[receiver.place].awaited = true }
        }
        return word
    }

    private func receiversWordWithoutWaiting(on index: Int, judged state: AuditState?) -> ReceiversWord {
        // Receivers not followed (this host's controller, a file): a silence is the beacons'.
        guard configuration.followsReceivers else { return .stands }
        // A copy, but only when a silence ends or a receiver is offline: not per reception.
        let track = beacons[index]
        guard let lastSeen = track.lastSeen else {
            // Not heard by this watch: a restored `unmonitored` one stays so while the
            // receivers it had are all offline.
            let previous = restored(index)
            guard state == .missing, !previous.isEmpty else { return .stands }
            for name in previous {
                guard let place = receivers.place(of: name), receivers[place].state == .offline else { return .stands }
            }
            return .unmonitored
        }
        let from = lastSeen - configuration.silence
        var anyOnline = false
        var anyHeardSince = false
        var anyUsual = false
        var anyUnfollowed = false
        let silenceEnded = PassTime.latest(
            PassTime.latest(lastSeen + configuration.silence, notBefore(ofBeacon: index)), silenceJudgedFrom)
        for receiver in track.receivers where receiver.lastSeen >= from {
            anyUsual = true
            // A receiver beyond the followed ones (or not yet known by a state): whether it
            // still hears is unknown, so its silence is no evidence either way.
            guard receiver.place >= 0, let state = receivers[receiver.place].state else {
                anyUnfollowed = true
                continue
            }
            if state == .online {
                anyOnline = true
                if let heard = receivers[receiver.place].lastSeen, heard >= silenceEnded { anyHeardSince = true }
            }
        }
        guard anyUsual else { return .stands }
        // Heard lately by a receiver the watch cannot follow: what it heard stands, but its
        // silence cannot make the beacon missing unless a followed one shows it still hears.
        if !anyOnline, anyUnfollowed { return state == .missing && track.state != .missing ? .unmonitored : .stands }
        if !anyOnline {
            // A beacon already missing stays so: its receivers heard that it was gone
            // before they went offline.
            return state == .missing && track.state == .missing ? .stands : .unmonitored
        }
        guard state == .missing, track.state != .missing else { return .stands }
        if anyHeardSince { return .stands }
        return .keepCurrent
    }

    // MARK: Deadlines

    /// A track: a manifest beacon or an unexpected identity, by its place.
    private enum TrackKey: Hashable {
        case beacon(Int)
        case unexpected(Int)

        /// One integer for the queue: a beacon's index, or an unexpected place below zero.
        var slot: Int {
            switch self {
            case .beacon(let index): index
            case .unexpected(let index): -1 - index
            }
        }

        init(slot: Int) {
            self = slot >= 0 ? .beacon(slot) : .unexpected(-1 - slot)
        }
    }

    /// A track by its key. Mutating even to read: a read of the audit from a mutating
    /// method may copy it (see `change`).
    private subscript(key: TrackKey) -> AuditedIdentity {
        mutating _read {
            switch key {
            case .beacon(let index): yield beacons[index]
            case .unexpected(let index): yield unexpected[index]
            }
        }
        _modify {
            switch key {
            case .beacon(let index): yield &beacons[index]
            case .unexpected(let index): yield &unexpected[index]
            }
        }
    }

    /// Queues the track's next deadline unless it has one queued: a queued deadline is never
    /// later than the track's real one (receptions only push deadlines back), and when it
    /// falls due early the track is looked at and queued again at its real one.
    private mutating func schedule(_ key: TrackKey) {
        // Straight to the arrays: this runs at every reception (see `change` on copies).
        let silence = configuration.silence
        // One full silence after the input's return at the earliest.
        let judgedFrom = silenceJudgedFrom
        let deadline: PassTime
        switch key {
        case .beacon(let index):
            guard beacons[index].queuedDue == nil,
                  let due = Self.deadline(of: beacons[index], silence: silence, notBefore: notBefore(ofBeacon: index))
                    .map({ PassTime.latest($0, judgedFrom) })
            else { return }
            beacons[index].queuedDue = due
            deadline = due
        case .unexpected(let index):
            guard unexpected[index].queuedDue == nil,
                  let due = Self.deadline(of: unexpected[index], silence: silence, notBefore: nil).map({ PassTime.latest($0, judgedFrom) })
            else { return }
            unexpected[index].queuedDue = due
            deadline = due
        }
        deadlines.insert(key.slot, due: deadline)
    }

    // MARK: States

    /// When a heard track's state next changes if nothing is heard: the moment its most
    /// recently expiring device leaves the silence window. (Beacons never heard share
    /// `firstSilenceDue`.)
    private static func deadline(of track: AuditedIdentity, silence: Duration, notBefore: PassTime?) -> PassTime? {
        // Expiries up to the latest evaluation have been applied (none: nothing is spent).
        let spent = track.evaluatedAt
        // Never heard: none, but a restored one's receiver back (`notBefore`).
        guard track.lastSeen != nil else { return notBefore.flatMap { PassTime.isAfter($0, spent) ? $0 : nil } }
        var earliest: PassTime?
        for address in track.addresses {
            let expiry = address.lastSeen + silence
            if PassTime.isAfter(expiry, spent), earliest.map({ expiry < $0 }) ?? true { earliest = expiry }
        }
        // A receiver's return gave it a full silence from then (`notBefore`).
        if let earliest { return PassTime.latest(earliest, notBefore) }
        return notBefore.flatMap { PassTime.isAfter($0, spent) ? $0 : nil }
    }

    /// The moment before which beacon `index` cannot be missing (a receiver's return); `nil`:
    /// no such moment.
    private func notBefore(ofBeacon index: Int) -> PassTime? {
        notBeforeByBeacon.isEmpty ? nil : notBeforeByBeacon[index]
    }

    private func notBefore(of key: TrackKey) -> PassTime? {
        guard case .beacon(let index) = key else { return nil }
        return notBefore(ofBeacon: index)
    }

    /// A restored `unmonitored` beacon's receivers, while it is not heard.
    private func restored(_ index: Int) -> [String] {
        restoredReceivers.isEmpty ? [] : restoredReceivers[index] ?? []
    }

    /// `heard`: just heard, by a receiver now online (a reception's path, which needs no
    /// look at the receivers).
    private mutating func reevaluateBeacon(_ index: Int, at time: PassTime, heard: Bool = false) -> AuditEvent? {
        beacons[index].evaluatedAt = time
        var state = Self.beaconState(
            beacons[index], expectation: plan.expected[index].measuredPower, start: start, silence: configuration.silence, at: time)
        // Its latest reception came from a receiver beyond the bound: no verdict on silence.
        if state == .missing, !unplacedByBeacon.isEmpty, let unplaced = unplacedByBeacon[index], PassTime.isAfter(unplaced, beacons[index].lastSeen) {
            state = .unmonitored
        }
        // The receivers matter when the beacon's silence passed, or when one is offline.
        if !heard, state == .missing || offlineReceivers > 0 {
            switch receiversWord(on: index, judged: state, at: time) {
            case .stands: break
            case .unmonitored: state = .unmonitored
            case .keepCurrent: return nil
            }
        }
        guard let state, state != beacons[index].state else { return nil }
        let reason = beaconReason(beacons[index], index: index, state: state, at: time)
        let beacon = plan.expected[index]
        return Self.change(
            &beacons[index], of: beacon, to: state, reason: reason, at: time, silence: configuration.silence, unixOffset: unixOffset)
    }

    private mutating func reevaluateUnexpected(_ index: Int, at time: PassTime) -> AuditEvent? {
        unexpected[index].evaluatedAt = time
        let track = unexpected[index]
        let silence = configuration.silence
        let state: AuditState = track.addresses.contains { $0.lastSeen + silence > time } ? .unexpected : .gone
        guard state != track.state else { return nil }
        let reason: String
        if state == .gone {
            reason = "not heard for \(Self.seconds(configuration.silence))"
        } else {
            let identity = track.identity
            let venue = plan.venueByMajor[.init(uuid: identity.uuid, major: identity.major)]
            let owner: String = venue.map { " (major \(identity.major) is venue \($0)'s)" } ?? ""
            let devices = track.recentAddresses(at: time, silence: silence).map(\.text).joined(separator: ", ")
            reason = "uses the fleet's UUID but the manifest lists no beacon \(identity)\(owner): add it to the manifest or find the device (\(devices))"
        }
        return Self.change(&unexpected[index], of: nil, to: state, reason: reason, at: time, silence: silence, unixOffset: unixOffset)
    }

    /// The beacon's state at `time`, decided without building anything: this runs at every
    /// reception, and words are only needed when the state changes (`beaconReason`).
    private static func beaconState(
        _ track: AuditedIdentity, expectation: MeasuredPowerExpectation, start: PassTime?, silence: Duration, at time: PassTime
    ) -> AuditState? {
        let addresses = track.addresses
        var recentCount = 0
        var anyWrongPower = false
        for first in addresses.indices where addresses[first].lastSeen + silence > time {
            recentCount += 1
            if let power = addresses[first].measuredPower, !expectation.accepts(power) { anyWrongPower = true }
            for second in (first + 1)..<addresses.endIndex where addresses[second].lastSeen + silence > time {
                if areTwoDevices(addresses[first], addresses[second]) { return .duplicate }
            }
        }
        guard recentCount > 0 else {
            if track.lastSeen == nil {
                // Never heard: not known before the first silence has passed.
                guard let start, time >= start + silence else { return nil }
            }
            return .missing
        }
        return anyWrongPower ? .wrongPower : .ok
    }

    /// Why the beacon is in `state` at `time`, in words (for a change only).
    private func beaconReason(_ track: AuditedIdentity, index: Int, state: AuditState, at time: PassTime) -> String {
        let silence = configuration.silence
        let expected = plan.expected[index]
        let recent = track.recentAddresses(at: time, silence: silence)
        switch state {
        case .missing:
            guard let lastSeen = track.lastSeen else {
                return "not heard in the first \(Self.seconds(silence)) of the watch: check that it has power and is within range of a receiver"
            }
            let hearing = usualReceiverNames(track).filter { $0.state == .online }.map(\.name)
            let others = hearing.isEmpty ? "" : " while \(hearing.joined(separator: ", ")) still hear\(hearing.count == 1 ? "s" : "") others"
            return "not heard for \(Self.seconds(silence)) on any receiver (last at \(SightingJSONLines.timeText(lastSeen.seconds)) s)\(others): check that it has power and is within range of a receiver"
        case .unmonitored:
            if let unplaced = unplacedByBeacon[index], PassTime.isAfter(unplaced, track.lastSeen) {
                return "last heard (at \(SightingJSONLines.timeText(unplaced.seconds)) s) only by receivers beyond the \(configuration.maximumReceivers) on their own clocks that the watch tells apart: their sightings cannot be placed in time, so it cannot be judged"
            }
            let usual = usualReceiverNames(track)
            let names = track.lastSeen == nil ? restored(index).sorted() : usual.map(\.name)
            let last = track.lastSeen.map { " (last heard at \(SightingJSONLines.timeText($0.seconds)) s)" } ?? ""
            if usual.contains(where: { $0.state == nil }) {
                let unfollowed = usual.filter { $0.state == nil }.map(\.name)
                return "heard lately only by receivers the watch does not follow (\(unfollowed.joined(separator: ", ")), beyond the \(configuration.maximumFollowedReceivers) it follows) or that are offline\(last): whether they still hear cannot be told, so it cannot be judged"
            }
            return "every receiver that hears it is offline (\(names.joined(separator: ", ")))\(last): it cannot be judged until one is back; bring the receiver back online"
        case .duplicate:
            return "heard from \(recent.count) devices within \(Self.seconds(silence)): \(recent.map(\.text).joined(separator: ", ")); a cloned or misprogrammed beacon: find the copy and change or remove it"
        case .wrongPower:
            guard let wrong = recent.first(where: { $0.measuredPower.map { !expected.measuredPower.accepts($0) } ?? false }),
                let power = wrong.measuredPower else { return "" }
            return "\(wrong.text) advertises measured power \(power) dBm, expected \(expected.measuredPower): reprogram the beacon or correct the manifest"
        case .ok, .unexpected, .gone:
            let addresses = recent.map(\.text).joined(separator: ", ")
            guard let power = recent.lazy.compactMap(\.measuredPower).first else {
                return "heard from \(addresses); its receivers' gateway publishes no measured power, so it is not judged"
            }
            return "heard from \(addresses) with measured power \(power) dBm, as expected"
        }
    }

    /// The track's usual receivers (heard it within the silence before its latest
    /// reception), by name, with their status; for words only.
    private func usualReceiverNames(_ track: AuditedIdentity) -> [(name: String, state: ReceiverState?)] {
        guard let lastSeen = track.lastSeen else { return [] }
        return track.receivers.filter { $0.lastSeen >= lastSeen - configuration.silence }
            .map { ($0.receiver, $0.place >= 0 ? receivers[$0.place].state : nil) }
            .sorted { $0.name < $1.name }
    }

    /// `30 s`, `2.5 s`.
    private static func seconds(_ value: Duration) -> String {
        SightingJSONLines.timeText(value.instantSeconds) + " s"
    }

    /// Two addresses are two devices, except two private addresses never heard at the same
    /// time: one device that rotated its address (as the one-shot pass judges it).
    private static func areTwoDevices(_ first: AuditedAddress, _ second: AuditedAddress) -> Bool {
        if !first.isPrivate || !second.isPrivate { return true }
        return first.firstSeen <= second.lastSeen && second.firstSeen <= first.lastSeen
    }

    /// Sets the new state of `track` (manifest beacon `beacon`, or an unexpected identity) and
    /// says so. Static, like the other functions a reception runs through: a method of the
    /// audit called from a mutating one may make Swift copy the audit (every track, at each
    /// change: a cost that grows with the fleet). Its latest reception is told in Unix time too
    /// when `unixOffset` (`unixTimeKnown(offset:)`) is known.
    private static func change(
        _ track: inout AuditedIdentity, of beacon: ExpectedBeacon?, to state: AuditState, reason: String, at time: PassTime,
        silence: Duration, unixOffset: Duration?
    ) -> AuditEvent {
        let previous = track.state
        track.state = state
        let recentAddresses = track.recentAddresses(at: time, silence: silence)
        let lastSeen = track.lastSeen
        let lastSeenUnixTime = lastSeen.flatMap { lastSeen in unixOffset.map { (lastSeen.sinceOrigin + $0).instantSeconds } }
        return AuditEvent(
            time: time.seconds, beaconID: beacon?.beaconID, venueID: beacon?.venueID, identity: track.identity,
            previous: previous, state: state, reason: reason,
            receivers: track.receivers.map(\.summary).sorted { $0.receiver < $1.receiver },
            addresses: recentAddresses.map(\.text), lastSeen: lastSeen?.seconds, lastSeenUnixTime: lastSeenUnixTime)
    }

    /// The place of `identity`'s unexpected track, making one when there is room (a gone
    /// identity makes room); `nil` when every place is taken by identities still on the air.
    private mutating func trackUnexpected(_ identity: BeaconIdentity) -> Int? {
        if let index = unexpectedIndex[identity] { return index }
        let serial = nextUnexpectedSerial
        let order = beacons.count + serial
        if unexpected.count >= configuration.maximumTrackedUnexpected {
            // The least recently heard of the gone ones: a walk, but only when a new identity
            // arrives with every place taken.
            guard let gone = unexpected.indices.filter({ unexpected[$0].state == .gone })
                .min(by: { (unexpected[$0].lastSeen ?? .origin, unexpected[$0].order) < (unexpected[$1].lastSeen ?? .origin, unexpected[$1].order) })
            else { return nil }
            unexpectedIndex[unexpected[gone].identity] = nil
            // A gone identity has no deadline queued (its devices' expiries are all spent).
            unexpected[gone] = AuditedIdentity(identity: identity, order: order)
            unexpectedIndex[identity] = gone
            nextUnexpectedSerial += 1
            return gone
        }
        unexpected.append(AuditedIdentity(identity: identity, order: order))
        unexpectedIndex[identity] = unexpected.count - 1
        nextUnexpectedSerial += 1
        return unexpected.count - 1
    }
}

/// What the audit remembers of one identity.
private struct AuditedIdentity: Sendable {
    var identity: BeaconIdentity
    /// Where its events go among those of one moment: a beacon's manifest position, or for
    /// an unexpected identity, after every beacon in the order first tracked.
    var order: Int
    var state: AuditState?
    /// Its silence has passed and it waits for a sighting of a usual receiver to be judged.
    /// (Beside `state`: in the padding before `lastSeen`, no room of its own.)
    var awaitsReceiver = false
    var lastSeen: PassTime?
    /// The latest moment this track's state was computed: deadlines before it are spent.
    var evaluatedAt: PassTime?
    /// The deadline this track has in the audit's queue, if any.
    var queuedDue: PassTime?
    var addresses = CompactList<AuditedAddress>()
    var receivers = CompactList<TrackReceiver>()

    init(identity: BeaconIdentity, order: Int) {
        self.identity = identity
        self.order = order
    }

    /// The followed receiver's place of a receiver that heard this track (-1: not
    /// followed); `nil` when it has not heard it (or was forgotten).
    func receiverPlace(of receiver: String) -> Int? {
        // The receiver heard first is nearly always the one heard now.
        if let first = receivers.first, first.receiver == receiver { return first.place }
        return receivers.first { $0.receiver == receiver }?.place
    }

    mutating func record(_ sighting: Sighting, receiverPlace: Int, at time: PassTime, _ configuration: ContinuousAudit.Configuration) {
        lastSeen = max(lastSeen ?? time, time)
        // A gateway that publishes no measured power gives a placeholder: never judged, and
        // it does not hide what another receiver heard of the same device.
        let power = sighting.evidence.contains(.measuredPower) ? sighting.advertisement.measuredPower : nil
        // The device heard first is nearly always the one heard now.
        if !addresses.isEmpty, addresses[0].address == sighting.address {
            addresses[0].lastSeen = time
            if let power { addresses[0].measuredPower = power }
        } else if let index = addresses.firstIndex(where: { $0.address == sighting.address }) {
            addresses[index].lastSeen = time
            if let power { addresses[index].measuredPower = power }
        } else {
            if addresses.count >= configuration.maximumAddressesPerIdentity, let stalest = addresses.indices.min(by: { addresses[$0].lastSeen < addresses[$1].lastSeen }) {
                addresses.remove(at: stalest)
            }
            addresses.append(AuditedAddress(
                address: sighting.address, isPrivate: AddressTrack.isPrivate(sighting.address, isRandom: sighting.addressIsRandom), firstSeen: time, lastSeen: time,
                measuredPower: power))
        }
        if let index = receivers.first?.receiver == sighting.receiver ? 0 : receivers.firstIndex(where: { $0.receiver == sighting.receiver }) {
            receivers[index].latestRSSI = sighting.rssi
            receivers[index].sightings += 1
            receivers[index].lastSeen = time
        } else {
            if receivers.count >= configuration.maximumReceiversPerIdentity, let stalest = receivers.indices.min(by: { receivers[$0].lastSeen < receivers[$1].lastSeen }) {
                receivers.remove(at: stalest)
            }
            receivers.append(TrackReceiver(
                receiver: sighting.receiver, latestRSSI: sighting.rssi, sightings: 1, lastSeen: time, place: receiverPlace))
        }
    }

    /// The addresses heard less than `silence` before `time`, in the order first heard.
    func recentAddresses(at time: PassTime, silence: Duration) -> [AuditedAddress] {
        addresses.filter { $0.lastSeen + silence > time }
    }
}

/// A receiver that heard an identity (`AuditReceiverSummary`'s fields, its latest reception
/// on the audit's clock), and its place among the followed receivers (-1: not followed).
private struct TrackReceiver: Sendable {
    var receiver: String
    var latestRSSI: Int?
    var sightings: Int
    var lastSeen: PassTime
    var place: Int

    /// As events write it.
    var summary: AuditReceiverSummary {
        AuditReceiverSummary(receiver: receiver, latestRSSI: latestRSSI, sightings: sightings, lastSeen: lastSeen.seconds)
    }
}

/// One device address sending an identity.
private struct AuditedAddress: Sendable {
    var address: BluetoothAddress?
    var isPrivate: Bool
    var firstSeen: PassTime
    var lastSeen: PassTime
    /// The measured power of its latest reception that carried one: a reprogrammed beacon is
    /// judged on what it sends now. `nil` while only gateways without it heard the device.
    var measuredPower: Int8?
}

extension AuditedAddress {
    /// As events and reasons write it.
    var text: String { BluetoothAddress.text(address) }
}

/// What the audit says of its own evidence (a bound reached, a receiver's clock): the watch
/// hands it on as an `AuditInputEvent` of the same kind.
public struct AuditNotice: Hashable, Sendable {
    /// On the audit's clock.
    public var time: PassTime
    public var kind: AuditInputEvent.Kind
    public var reason: String
}

extension PassTime {
    /// The later of `time` and `bound` (`nil`: no bound).
    @inline(__always)
    fileprivate static func latest(_ time: PassTime, _ bound: PassTime?) -> PassTime {
        guard let bound else { return time }
        return Swift.max(time, bound)
    }

    /// Whether `moment` (`nil`: never) has come by `time`.
    @inline(__always)
    fileprivate static func isDue(_ moment: PassTime?, by time: PassTime) -> Bool {
        guard let moment else { return false }
        return moment <= time
    }

    /// Whether `time` comes after `moment` (`nil`: none yet, which every time comes after).
    @inline(__always)
    fileprivate static func isAfter(_ time: PassTime, _ moment: PassTime?) -> Bool {
        guard let moment else { return true }
        return time > moment
    }

    /// Whether `moment` comes no later than `other`, where `nil` is never (which comes no
    /// later than never).
    @inline(__always)
    fileprivate static func isNoLater(_ moment: PassTime?, than other: PassTime?) -> Bool {
        guard let other else { return true }
        guard let moment else { return false }
        return moment <= other
    }
}
