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
    private var beacons: [AuditedIdentity]
    private let beaconIndex: [BeaconIdentity: Int]
    private var unexpected: [AuditedIdentity] = []
    private var unexpectedIndex: [BeaconIdentity: Int] = [:]
    /// The earliest moment any state can change without a sighting.
    private var nextDeadline = Double.infinity
    private var counters = AuditStatistics()

    public init(plan: VerificationPlan, configuration: Configuration = Configuration()) {
        self.plan = plan
        self.configuration = configuration
        clock = ReceiverClocks(maximumReceivers: configuration.maximumReceivers)
        beacons = plan.expected.map { AuditedIdentity(identity: $0.identity, expected: $0) }
        beaconIndex = Dictionary(uniqueKeysWithValues: plan.expected.enumerated().map { ($0.element.identity, $0.offset) })
    }

    /// The current state of each manifest beacon, in manifest order (`nil`: not yet known).
    public var beaconStates: [(beacon: ExpectedBeacon, state: AuditState?)] {
        beacons.compactMap { track in track.expected.map { ($0, track.state) } }
    }

    /// Each manifest beacon's state and latest reception, in manifest order.
    public var beaconSummaries: [AuditBeaconSummary] {
        beacons.compactMap { track in
            track.expected.map { AuditBeaconSummary(beacon: $0, state: track.state, lastSeen: track.lastSeen) }
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
        if let index = beaconIndex[identity] {
            beacons[index].record(sighting, at: time, configuration)
            if let event = reevaluateBeacon(index, at: time) { events.append(event) }
        } else if plan.otherKnown[identity] != nil || !plan.fleetUUIDs.contains(identity.uuid) {
            counters.ignoredSightings += 1
            return events
        } else if let index = trackUnexpected(identity) {
            unexpected[index].record(sighting, at: time, configuration)
            if let event = reevaluateUnexpected(index, at: time) { events.append(event) }
        } else {
            counters.untrackedUnexpectedSightings += 1
            return events
        }
        nextDeadline = min(nextDeadline, time + configuration.silence)
        return events
    }

    /// Moves the clock to `time` (a time before it changes nothing): every change due by
    /// then, each at its own time, in time order.
    public mutating func advance(to time: Double) -> [AuditEvent] {
        guard time.isFinite else { return [] }
        guard let current = now else {
            now = time
            start = time
            nextDeadline = time + configuration.silence
            return []
        }
        guard time > current else { return [] }
        now = time
        guard nextDeadline <= time else { return [] }

        var due: [AuditEvent] = []
        var earliest = Double.infinity
        for index in beacons.indices {
            while let deadline = deadline(of: beacons[index]), deadline <= time {
                if let event = reevaluateBeacon(index, at: deadline) { due.append(event) }
                // A beacon never heard has a deadline (the end of the first silence) that stays;
                // once it is missing it has none.
                if beacons[index].lastSeen == nil { break }
            }
            earliest = min(earliest, deadline(of: beacons[index]) ?? .infinity)
        }
        for index in unexpected.indices {
            while let deadline = deadline(of: unexpected[index]), deadline <= time {
                if let event = reevaluateUnexpected(index, at: deadline) { due.append(event) }
            }
            earliest = min(earliest, deadline(of: unexpected[index]) ?? .infinity)
        }
        nextDeadline = earliest
        // Stable: at one moment, beacons in manifest order, then unexpected ones as first heard.
        let ordered = due.indices.sorted { left, right in
            due[left].time != due[right].time ? due[left].time < due[right].time : left < right
        }
        return ordered.map { due[$0] }
    }

    // MARK: States

    /// When `track`'s state next changes if nothing is heard: the moment its most recently
    /// expiring device leaves the silence window, or for a beacon never heard, the end of the
    /// first silence.
    private func deadline(of track: AuditedIdentity) -> Double? {
        let silence = configuration.silence
        if track.lastSeen == nil {
            guard track.state == nil, let start else { return nil }
            return start + silence
        }
        // Expiries up to the latest evaluation have been applied.
        let spent = track.evaluatedAt ?? -.infinity
        return track.addresses.lazy.map { $0.lastSeen + silence }.filter { $0 > spent }.min()
    }

    private mutating func reevaluateBeacon(_ index: Int, at time: Double) -> AuditEvent? {
        beacons[index].evaluatedAt = time
        guard let expected = beacons[index].expected else { return nil }
        let (state, reason) = beaconState(beacons[index], expected: expected, at: time)
        return change(&beacons[index], to: state, reason: reason, at: time)
    }

    private mutating func reevaluateUnexpected(_ index: Int, at time: Double) -> AuditEvent? {
        unexpected[index].evaluatedAt = time
        let track = unexpected[index]
        let recent = track.recentAddresses(at: time, silence: configuration.silence)
        let state: AuditState
        let reason: String
        if recent.isEmpty {
            state = .gone
            reason = "not heard for \(Self.seconds(configuration.silence))"
        } else {
            state = .unexpected
            let identity = track.identity
            let venue = plan.venueByMajor[.init(uuid: identity.uuid, major: identity.major)]
            let owner: String = venue.map { " (major \(identity.major) is venue \($0)'s)" } ?? ""
            let devices = recent.map(\.address).joined(separator: ", ")
            reason = "uses the fleet's UUID but the manifest lists no beacon \(identity)\(owner): add it to the manifest or find the device (\(devices))"
        }
        return change(&unexpected[index], to: state, reason: reason, at: time)
    }

    private func beaconState(_ track: AuditedIdentity, expected: ExpectedBeacon, at time: Double) -> (AuditState?, String) {
        let silence = configuration.silence
        let recent = track.recentAddresses(at: time, silence: silence)
        guard !recent.isEmpty else {
            guard let lastSeen = track.lastSeen else {
                guard let start, time >= start + silence else { return (nil, "") }
                return (.missing, "not heard in the first \(Self.seconds(silence)) of the watch: check that it has power and is within range of a receiver")
            }
            return (.missing, "not heard for \(Self.seconds(silence)) on any receiver (last at \(SightingJSONLines.timeText(lastSeen)) s): check that it has power and is within range of a receiver")
        }
        if Self.holdsTwoDevices(recent) {
            return (.duplicate, "heard from \(recent.count) devices within \(Self.seconds(silence)): \(recent.map(\.address).joined(separator: ", ")); a cloned or misprogrammed beacon: find the copy and change or remove it")
        }
        if let wrong = recent.first(where: { !expected.measuredPower.accepts($0.measuredPower) }) {
            return (.wrongPower, "\(wrong.address) advertises measured power \(wrong.measuredPower) dBm, expected \(expected.measuredPower): reprogram the beacon or correct the manifest")
        }
        let addresses = recent.map(\.address).joined(separator: ", ")
        return (.ok, "heard from \(addresses) with measured power \(recent[0].measuredPower) dBm, as expected")
    }

    /// `30 s`, `2.5 s`.
    private static func seconds(_ value: Double) -> String {
        SightingJSONLines.timeText(value) + " s"
    }

    /// Two addresses are two devices, except two private addresses never heard at the same
    /// time: one device that rotated its address (as the one-shot pass judges it).
    private static func holdsTwoDevices(_ addresses: [AuditedAddress]) -> Bool {
        for (offset, first) in addresses.enumerated() {
            for second in addresses.dropFirst(offset + 1) {
                if !first.isPrivate || !second.isPrivate { return true }
                if first.firstSeen <= second.lastSeen && second.firstSeen <= first.lastSeen { return true }
            }
        }
        return false
    }

    private func change(_ track: inout AuditedIdentity, to state: AuditState?, reason: String, at time: Double) -> AuditEvent? {
        guard let state, state != track.state else { return nil }
        let previous = track.state
        track.state = state
        let recentAddresses = track.recentAddresses(at: time, silence: configuration.silence)
        return AuditEvent(
            time: time, beaconID: track.expected?.beaconID, venueID: track.expected?.venueID, identity: track.identity,
            previous: previous, state: state, reason: reason,
            receivers: track.receivers.sorted { $0.receiver < $1.receiver },
            addresses: recentAddresses.map(\.address), lastSeen: track.lastSeen)
    }

    /// The index of `identity`'s unexpected track, making one when there is room (a gone
    /// identity makes room); `nil` when every place is taken by identities still on the air.
    private mutating func trackUnexpected(_ identity: BeaconIdentity) -> Int? {
        if let index = unexpectedIndex[identity] { return index }
        if unexpected.count >= configuration.maximumTrackedUnexpected {
            guard let gone = unexpected.indices.filter({ unexpected[$0].state == .gone })
                .min(by: { (unexpected[$0].lastSeen ?? 0) < (unexpected[$1].lastSeen ?? 0) })
            else { return nil }
            unexpected.remove(at: gone)
            unexpectedIndex = Dictionary(uniqueKeysWithValues: unexpected.enumerated().map { ($0.element.identity, $0.offset) })
        }
        unexpected.append(AuditedIdentity(identity: identity, expected: nil))
        unexpectedIndex[identity] = unexpected.count - 1
        return unexpected.count - 1
    }
}

/// What the audit remembers of one identity.
private struct AuditedIdentity: Sendable {
    var identity: BeaconIdentity
    var expected: ExpectedBeacon?
    var state: AuditState?
    var lastSeen: Double?
    /// The latest moment this track's state was computed: deadlines before it are spent.
    var evaluatedAt: Double?
    var addresses: [AuditedAddress] = []
    var receivers: [AuditReceiverSummary] = []

    init(identity: BeaconIdentity, expected: ExpectedBeacon?) {
        self.identity = identity
        self.expected = expected
    }

    mutating func record(_ sighting: Sighting, at time: Double, _ configuration: ContinuousAudit.Configuration) {
        lastSeen = max(lastSeen ?? time, time)
        let power = sighting.advertisement.measuredPower
        if let index = addresses.firstIndex(where: { $0.address == sighting.address }) {
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
        if let index = receivers.firstIndex(where: { $0.receiver == sighting.receiver }) {
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
