import BeaconCore

/// The continuous audit behind `verify --watch`: a state per manifest beacon (ok, missing,
/// wrong-power, duplicate) and per unexpected fleet identity (unexpected, gone), kept
/// current as sightings arrive and time passes, reporting only changes.
///
/// Pure: no clock and no I/O. Callers feed sightings (`observe`) and move time on
/// (`advance`); both return the changes that fell due, in time order, each at the moment it
/// happened (a beacon goes missing exactly `silence` after it was last heard, whenever the
/// caller notices). The audit's clock starts at the first time it is given; sighting times
/// are placed on it per receiver (`ReceiverClocks`).
///
/// While the input is down (`inputLost`), nothing changes by silence; once it is back
/// (`inputRestored`), every identity has a full silence from then. A restarted watch can
/// start from the states a previous one kept (`restore`).
///
/// Memory is bounded whatever the input: the manifest's beacons, at most
/// `maximumTrackedUnexpected` unexpected identities and `maximumReceivers` receiver clocks,
/// and a few addresses and receivers per identity; what is beyond is counted.
public struct ContinuousAudit: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Seconds without a reception after which a beacon is missing (an unexpected identity
        /// gone), and the window in which two devices sending one identity are a duplicate.
        public var silence: Double
        public var maximumTrackedUnexpected: Int
        /// Receivers whose clocks are told apart (beyond them, sightings in Unix time still
        /// join the shared wall clock; others are counted, not used).
        public var maximumReceivers: Int
        /// Device addresses, and receivers, remembered per identity (the least recently heard
        /// makes room).
        public var maximumAddressesPerIdentity: Int
        public var maximumReceiversPerIdentity: Int

        public static let defaultSilence = 30.0

        public init(
            silence: Double = Self.defaultSilence,
            maximumTrackedUnexpected: Int = VerificationEngine.maximumTrackedUnexpected,
            maximumReceivers: Int = 256, maximumAddressesPerIdentity: Int = 16, maximumReceiversPerIdentity: Int = 16
        ) {
            self.silence = silence
            self.maximumTrackedUnexpected = maximumTrackedUnexpected
            self.maximumReceivers = maximumReceivers
            self.maximumAddressesPerIdentity = maximumAddressesPerIdentity
            self.maximumReceiversPerIdentity = maximumReceiversPerIdentity
        }
    }

    public let plan: VerificationPlan
    public let configuration: Configuration

    /// The audit's clock: `nil` until the first time is given.
    public private(set) var now: Double?
    private var start: Double?
    private var clock: ReceiverClocks
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
    /// one moment for them all, so they take no place in `deadlines`.
    private var firstSilenceDue = Double.infinity
    /// Each heard identity's next deadline (at most one entry each, `queuedDue`): a sighting
    /// or a moment passing costs the same whatever the size of the fleet.
    private var deadlines = DeadlineQueue()
    private var counters = AuditStatistics()
    /// While the input is not delivering, silence says nothing: no state changes by it.
    public private(set) var isInputDown = false
    /// No change by silence before this moment: one full silence from the input's return.
    private var silenceJudgedFrom = -Double.infinity

    public init(plan: VerificationPlan, configuration: Configuration = Configuration()) {
        self.plan = plan
        self.configuration = configuration
        clock = ReceiverClocks(maximumReceivers: configuration.maximumReceivers)
        beacons = plan.expected.enumerated().map { AuditedIdentity(identity: $1.identity, order: $0) }
        beaconIndex = IdentityTable(plan.expected.map(\.identity))
    }

    /// The current state of each manifest beacon, in manifest order (`nil`: not yet known).
    public var beaconStates: [(beacon: ExpectedBeacon, state: AuditState?)] {
        zip(plan.expected, beacons).map { ($0, $1.state) }
    }

    /// Each manifest beacon's state and latest reception, in manifest order.
    public var beaconSummaries: [AuditBeaconSummary] {
        zip(plan.expected, beacons).map { AuditBeaconSummary(beacon: $0, state: $1.state, lastSeen: $1.lastSeen) }
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
        return statistics
    }

    // MARK: Input

    /// Takes in one reception: the changes due up to its time, then the one it causes.
    public mutating func observe(_ sighting: Sighting) -> [AuditEvent] {
        counters.sightings += 1
        guard let placed = clock.time(of: sighting, now: now) else {
            counters.untrackedReceiverSightings += 1
            return []
        }
        var events = advance(to: placed)
        // A sighting older than the clock (a source that reordered) counts at the clock's time.
        let time = now ?? placed
        let identity = sighting.identity
        if let index = beaconIndex.index(of: identity, identityAt: { beacons[$0].identity }) {
            beacons[index].record(sighting, at: time, configuration)
            if let event = reevaluateBeacon(index, at: time) { events.append(event) }
            schedule(.beacon(index))
        } else if plan.otherKnown[identity] != nil || !plan.fleetUUIDs.contains(identity.uuid) {
            counters.ignoredSightings += 1
        } else if let index = trackUnexpected(identity) {
            unexpected[index].record(sighting, at: time, configuration)
            if let event = reevaluateUnexpected(index, at: time) { events.append(event) }
            schedule(.unexpected(index))
        } else {
            counters.untrackedUnexpectedSightings += 1
        }
        return events
    }

    /// Moves the clock to `time` (a time before it changes nothing): every change due by
    /// then, each at its own time, in time order.
    public mutating func advance(to time: Double) -> [AuditEvent] {
        guard time.isFinite else { return [] }
        guard let current = now else {
            now = time
            start = time
            firstSilenceDue = time + configuration.silence
            return []
        }
        guard time > current else { return [] }
        now = time
        guard !isInputDown, firstSilenceDue <= time || deadlines.earliest <= time else { return [] }

        var due: [(order: Int, event: AuditEvent)] = []
        if firstSilenceDue <= time {
            // After the input's return, the first silence ends a full silence after it.
            let moment = max(firstSilenceDue, silenceJudgedFrom)
            firstSilenceDue = moment > time ? moment : .infinity
            if moment <= time {
                // Not heard since the start (a restored state included: it is confirmed or changed now).
                for index in beacons.indices where beacons[index].lastSeen == nil {
                    if let event = reevaluateBeacon(index, at: moment) { due.append((index, event)) }
                }
            }
        }
        while let (entryDue, slot) = deadlines.popDue(by: time) {
            let key = TrackKey(slot: slot)
            // Only the entry a track holds counts (a place an unexpected identity left may
            // have been taken since).
            guard self[key].queuedDue == entryDue else { continue }
            self[key].queuedDue = nil
            // After the input's return, expiries before `silenceJudgedFrom` are judged at it.
            while let deadline = Self.deadline(of: self[key], silence: configuration.silence).map({ max($0, silenceJudgedFrom) }),
                  deadline <= time {
                let event: AuditEvent?
                switch key {
                case .beacon(let index): event = reevaluateBeacon(index, at: deadline)
                case .unexpected(let index): event = reevaluateUnexpected(index, at: deadline)
                }
                if let event { due.append((self[key].order, event)) }
            }
            schedule(key)
        }
        // Stable: at one moment, beacons in manifest order, then unexpected ones as first heard.
        due.sort { left, right in left.event.time != right.event.time ? left.event.time < right.event.time : left.order < right.order }
        return due.map(\.event)
    }

    // MARK: Restarting

    /// Starts the manifest's beacons from the states a previous watch left (`--state`), by
    /// beacon id; ids the plan does not have are left out. A restored state is not
    /// reported again: only a change from it is. A beacon not heard again is judged at the
    /// end of the first silence like one never heard (a restored `missing` then says
    /// nothing). Before the clock starts only; returns how many beacons took a state.
    public mutating func restore(_ states: [String: AuditState]) -> Int {
        guard now == nil else { return 0 }
        var restored = 0
        for (index, beacon) in plan.expected.enumerated() {
            guard let state = states[beacon.beaconID], AuditState.beaconStates.contains(state) else { continue }
            beacons[index].state = state
            restored += 1
        }
        return restored
    }

    // MARK: Input health

    /// The input stopped delivering at `time`: what fell due before it is reported, then
    /// nothing changes by silence until it is back (`inputRestored`).
    public mutating func inputLost(at time: Double) -> [AuditEvent] {
        let events = advance(to: time)
        isInputDown = true
        return events
    }

    /// The input delivers again from `time` (or the clock, if later): every beacon and
    /// unexpected identity gets one full silence from then before silence changes it.
    public mutating func inputRestored(at time: Double) -> [AuditEvent] {
        guard isInputDown else { return advance(to: time) }
        _ = advance(to: time)
        isInputDown = false
        let from = now ?? time
        silenceJudgedFrom = max(silenceJudgedFrom, from + configuration.silence)
        return []
    }

    /// Sightings up to `time` may have been lost (a broker or a queue dropped them): silence
    /// up to then is no evidence, so nothing is judged by silence before `time` plus a full
    /// silence. Cheap: one bound for the whole audit, however often it is called.
    public mutating func sightingsMayBeMissing(at time: Double) -> [AuditEvent] {
        let events = advance(to: time)
        let from = now ?? time
        silenceJudgedFrom = max(silenceJudgedFrom, from + configuration.silence)
        return events
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
        let deadline: Double
        switch key {
        case .beacon(let index):
            guard beacons[index].queuedDue == nil, let due = Self.deadline(of: beacons[index], silence: silence).map({ max($0, judgedFrom) })
            else { return }
            beacons[index].queuedDue = due
            deadline = due
        case .unexpected(let index):
            guard unexpected[index].queuedDue == nil, let due = Self.deadline(of: unexpected[index], silence: silence).map({ max($0, judgedFrom) })
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
    private static func deadline(of track: AuditedIdentity, silence: Double) -> Double? {
        guard track.lastSeen != nil else { return nil }
        // Expiries up to the latest evaluation have been applied.
        let spent = track.evaluatedAt ?? -.infinity
        var earliest: Double?
        for address in track.addresses {
            let expiry = address.lastSeen + silence
            if expiry > spent, expiry < (earliest ?? .infinity) { earliest = expiry }
        }
        return earliest
    }

    private mutating func reevaluateBeacon(_ index: Int, at time: Double) -> AuditEvent? {
        beacons[index].evaluatedAt = time
        let state = Self.beaconState(
            beacons[index], expectation: plan.expected[index].measuredPower, start: start, silence: configuration.silence, at: time)
        guard let state, state != beacons[index].state else { return nil }
        let reason = beaconReason(beacons[index], index: index, state: state, at: time)
        let beacon = plan.expected[index]
        return Self.change(&beacons[index], of: beacon, to: state, reason: reason, at: time, silence: configuration.silence)
    }

    private mutating func reevaluateUnexpected(_ index: Int, at time: Double) -> AuditEvent? {
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
            let devices = track.recentAddresses(at: time, silence: silence).map(\.address).joined(separator: ", ")
            reason = "uses the fleet's UUID but the manifest lists no beacon \(identity)\(owner): add it to the manifest or find the device (\(devices))"
        }
        return Self.change(&unexpected[index], of: nil, to: state, reason: reason, at: time, silence: silence)
    }

    /// The beacon's state at `time`, decided without building anything: this runs at every
    /// reception, and words are only needed when the state changes (`beaconReason`).
    private static func beaconState(
        _ track: AuditedIdentity, expectation: MeasuredPowerExpectation, start: Double?, silence: Double, at time: Double
    ) -> AuditState? {
        let addresses = track.addresses
        var recentCount = 0
        var anyWrongPower = false
        for first in addresses.indices where addresses[first].lastSeen + silence > time {
            recentCount += 1
            if !expectation.accepts(addresses[first].measuredPower) { anyWrongPower = true }
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
    private func beaconReason(_ track: AuditedIdentity, index: Int, state: AuditState, at time: Double) -> String {
        let silence = configuration.silence
        let expected = plan.expected[index]
        let recent = track.recentAddresses(at: time, silence: silence)
        switch state {
        case .missing:
            guard let lastSeen = track.lastSeen else {
                return "not heard in the first \(Self.seconds(silence)) of the watch: check that it has power and is within range of a receiver"
            }
            return "not heard for \(Self.seconds(silence)) on any receiver (last at \(SightingJSONLines.timeText(lastSeen)) s): check that it has power and is within range of a receiver"
        case .duplicate:
            return "heard from \(recent.count) devices within \(Self.seconds(silence)): \(recent.map(\.address).joined(separator: ", ")); a cloned or misprogrammed beacon: find the copy and change or remove it"
        case .wrongPower:
            guard let wrong = recent.first(where: { !expected.measuredPower.accepts($0.measuredPower) }) else { return "" }
            return "\(wrong.address) advertises measured power \(wrong.measuredPower) dBm, expected \(expected.measuredPower): reprogram the beacon or correct the manifest"
        case .ok, .unexpected, .gone:
            let addresses = recent.map(\.address).joined(separator: ", ")
            return "heard from \(addresses) with measured power \(recent.first?.measuredPower ?? 0) dBm, as expected"
        }
    }

    /// `30 s`, `2.5 s`.
    private static func seconds(_ value: Double) -> String {
        SightingJSONLines.timeText(value) + " s"
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
    /// change: a cost that grows with the fleet).
    private static func change(
        _ track: inout AuditedIdentity, of beacon: ExpectedBeacon?, to state: AuditState, reason: String, at time: Double,
        silence: Double
    ) -> AuditEvent {
        let previous = track.state
        track.state = state
        let recentAddresses = track.recentAddresses(at: time, silence: silence)
        return AuditEvent(
            time: time, beaconID: beacon?.beaconID, venueID: beacon?.venueID, identity: track.identity,
            previous: previous, state: state, reason: reason,
            receivers: track.receivers.sorted { $0.receiver < $1.receiver },
            addresses: recentAddresses.map(\.address), lastSeen: track.lastSeen)
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
                .min(by: { (unexpected[$0].lastSeen ?? 0, unexpected[$0].order) < (unexpected[$1].lastSeen ?? 0, unexpected[$1].order) })
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
    var lastSeen: Double?
    /// The latest moment this track's state was computed: deadlines before it are spent.
    var evaluatedAt: Double?
    /// The deadline this track has in the audit's queue, if any.
    var queuedDue: Double?
    var addresses = CompactList<AuditedAddress>()
    var receivers = CompactList<AuditReceiverSummary>()

    init(identity: BeaconIdentity, order: Int) {
        self.identity = identity
        self.order = order
    }

    mutating func record(_ sighting: Sighting, at time: Double, _ configuration: ContinuousAudit.Configuration) {
        lastSeen = max(lastSeen ?? time, time)
        let power = sighting.advertisement.measuredPower
        // The device heard first is nearly always the one heard now.
        if !addresses.isEmpty, addresses[0].address == sighting.address {
            addresses[0].lastSeen = time
            addresses[0].measuredPower = power
        } else if let index = addresses.firstIndex(where: { $0.address == sighting.address }) {
            addresses[index].lastSeen = time
            addresses[index].measuredPower = power
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
            receivers.append(AuditReceiverSummary(receiver: sighting.receiver, latestRSSI: sighting.rssi, sightings: 1, lastSeen: time))
        }
    }

    /// The addresses heard less than `silence` before `time`, in the order first heard.
    func recentAddresses(at time: Double, silence: Double) -> [AuditedAddress] {
        addresses.filter { $0.lastSeen + silence > time }
    }
}

/// One device address sending an identity.
private struct AuditedAddress: Sendable {
    var address: String
    var isPrivate: Bool
    var firstSeen: Double
    var lastSeen: Double
    /// The measured power of its latest reception: a reprogrammed beacon is judged on what it sends now.
    var measuredPower: Int8
}
