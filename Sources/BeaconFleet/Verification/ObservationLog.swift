import BeaconCore
import HCI

/// The running record of one identity's receptions, per device address. Cheap to update
/// (constant work per sighting); `snapshot` turns it into the public `BeaconObservation`.
///
/// A fleet's pass holds one per beacon, every one open at once while the first receptions
/// come in; nearly every beacon is one device heard by one receiver. So the first device
/// (`firstTrack`), its first receiver's events and the first receiver's tally are kept
/// inline, and only a second of any of them allocates (a dictionary or a small array).
struct ObservationLog: Sendable {
    let identity: BeaconIdentity
    private(set) var sightings = 0
    /// Verification time of the K-th reception, once there was one.
    private(set) var requiredSightingsReachedAt: PassTime?
    /// The first address heard; the others, rare, in `otherTracks`.
    private var firstTrack: AddressTrack?
    private var otherTracks: [BluetoothAddress?: AddressTrack] = [:]
    /// Who heard it: one entry per receiver, at most `maximumReceivers`.
    private var receivers = ReceiverTally()

    init(identity: BeaconIdentity) {
        self.identity = identity
    }

    var isEmpty: Bool { sightings == 0 }

    /// Adds one reception heard at verification time `time`. The sighting's own `time`
    /// (the source's clock, closest to the air) measures gaps between advertising events.
    /// Returns the gap to the previous advertising event its receiver heard from the same
    /// address, when the reception is a new event after one.
    @discardableResult
    mutating func record(_ sighting: Sighting, at time: PassTime, requiredSightings: Int, sameEventWindow: Duration) -> Duration? {
        sightings += 1
        if sightings == requiredSightings { requiredSightingsReachedAt = time }
        receivers.record(sighting, at: time)
        let address = sighting.address
        // In place: a track copied out would copy its storage at every reception.
        if firstTrack == nil {
            firstTrack = AddressTrack(address: address, isRandom: sighting.addressIsRandom, firstSeen: time)
        }
        if firstTrack?.address == address {
            return firstTrack?.record(sighting, at: time, sameEventWindow: sameEventWindow)
        }
        return otherTracks[address, default: AddressTrack(address: address, isRandom: sighting.addressIsRandom, firstSeen: time)]
            .record(sighting, at: time, sameEventWindow: sameEventWindow)
    }

    /// Every address's track, the first heard first.
    private var tracks: [AddressTrack] {
        (firstTrack.map { [$0] } ?? []) + otherTracks.values
    }

    /// The track whose interval decides "slow": the pinned address when it was heard, else
    /// the address heard most (the earliest heard on a tie).
    func principalTrack(pinned: BluetoothAddress?) -> AddressTrack? {
        if let pinned {
            if let firstTrack, firstTrack.address == pinned { return firstTrack }
            if let track = otherTracks[pinned] { return track }
        }
        guard !otherTracks.isEmpty else { return firstTrack }
        return tracks.max { lhs, rhs in
            lhs.sightings != rhs.sightings ? lhs.sightings < rhs.sightings : lhs.firstSeen > rhs.firstSeen
        }
    }

    func snapshot() -> BeaconObservation {
        let tracks = self.tracks
        let addresses = tracks.map(\.observation).sorted(by: Self.mostHeardFirst)
        var powers: [Int8: Int] = [:]
        for track in tracks {
            for (value, count) in track.powers.counts { powers[value, default: 0] += count }
        }
        return BeaconObservation(
            identity: identity, sightings: sightings, addresses: addresses,
            measuredPowers: MeasuredPowerCount.sorted(powers),
            firstSeen: addresses.map(\.firstSeen).min(), lastSeen: addresses.map(\.lastSeen).max(),
            receivers: receivers.observations, untrackedReceiverSightings: receivers.untrackedSightings)
    }

    private static func mostHeardFirst(_ lhs: AddressObservation, _ rhs: AddressObservation) -> Bool {
        if lhs.sightings != rhs.sightings { return lhs.sightings > rhs.sightings }
        if lhs.firstSeen != rhs.firstSeen { return lhs.firstSeen < rhs.firstSeen }
        return lhs.address < rhs.address
    }
}

/// Receptions of one identity from one device address.
struct AddressTrack: Sendable {
    let address: BluetoothAddress?
    let isRandom: Bool
    let firstSeen: PassTime
    private(set) var lastSeen: PassTime
    private(set) var sightings = 0
    private(set) var powers = PowerTally()
    private(set) var strongestRSSI: Int?
    /// Advertising events per receiver, each measured on that receiver's own clock: two
    /// receivers' clocks may differ by more than an interval (or count from different
    /// moments), so a gap between one's reception and another's measures nothing.
    private var firstReceiverEvents: ReceiverEventTrack?
    private var otherReceiverEvents: [ReceiverEventTrack] = []
    /// Where the previous sighting's receiver is in `otherReceiverEvents`, when it was not the first.
    private var lastOtherIndex = 0

    /// Receivers whose events are told apart per address; further ones only add receptions.
    static let maximumReceivers = 32

    init(address: BluetoothAddress?, isRandom: Bool, firstSeen: PassTime) {
        self.address = address
        self.isRandom = isRandom
        self.firstSeen = firstSeen
        self.lastSeen = firstSeen
    }

    /// Returns the gap to the previous event of the sighting's receiver, when it is a new one.
    mutating func record(_ sighting: Sighting, at time: PassTime, sameEventWindow: Duration) -> Duration? {
        sightings += 1
        lastSeen = max(lastSeen, time)
        // A gateway that publishes no measured power gives a placeholder: not the beacon's.
        if sighting.evidence.contains(.measuredPower) { powers.add(sighting.advertisement.measuredPower) }
        if let rssi = sighting.rssi { strongestRSSI = max(strongestRSSI ?? rssi, rssi) }

        // A throttling gateway's gaps are its cadence, not the beacon's interval: its
        // receptions count, but time no advertising events.
        // A time that cannot be read (`ReceiverTime`) times no event either.
        guard sighting.evidence.contains(.everyAdvertisement), let own = ReceiverTime(of: sighting)?.sinceOrigin else { return nil }
        if firstReceiverEvents == nil {
            firstReceiverEvents = ReceiverEventTrack(receiver: sighting.receiver, firstEventTime: own)
        } else if firstReceiverEvents?.receiver == sighting.receiver {
            return firstReceiverEvents?.record(own, sameEventWindow: sameEventWindow)
        } else if lastOtherIndex < otherReceiverEvents.count, otherReceiverEvents[lastOtherIndex].receiver == sighting.receiver {
            return otherReceiverEvents[lastOtherIndex].record(own, sameEventWindow: sameEventWindow)
        } else if let index = otherReceiverEvents.firstIndex(where: { $0.receiver == sighting.receiver }) {
            lastOtherIndex = index
            return otherReceiverEvents[index].record(own, sameEventWindow: sameEventWindow)
        } else if 1 + otherReceiverEvents.count < Self.maximumReceivers {
            lastOtherIndex = otherReceiverEvents.count
            otherReceiverEvents.append(ReceiverEventTrack(receiver: sighting.receiver, firstEventTime: own))
        }
        return nil
    }

    var isPrivate: Bool { Self.isPrivate(address, isRandom: isRandom) }

    /// Random and not static (top bits `11`): an address the device rotates.
    static func isPrivate(_ address: BluetoothAddress?, isRandom: Bool) -> Bool {
        guard isRandom, let address else { return false }
        return address.value >> 46 != 0b11
    }

    var observation: AddressObservation {
        AddressObservation(
            address: BluetoothAddress.text(address), isRandom: isRandom, isPrivate: isPrivate, sightings: sightings,
            measuredPowers: MeasuredPowerCount.sorted(powers.counts), firstSeen: firstSeen, lastSeen: lastSeen,
            eventsByReceiver: (firstReceiverEvents.map { [$0.observation] } ?? []) + otherReceiverEvents.map(\.observation),
            strongestRSSI: strongestRSSI)
    }
}

/// Receptions per measured-power value. A device sends one value (until reprogrammed): it
/// is kept inline, and only a second value makes a dictionary, so a large fleet's pass does
/// not hold a dictionary per device.
struct PowerTally: Sendable {
    private var first: Int8 = 0
    private var firstCount = 0
    private var others: [Int8: Int] = [:]

    mutating func add(_ value: Int8) {
        if firstCount == 0 {
            first = value
            firstCount = 1
        } else if value == first {
            firstCount += 1
        } else {
            others[value, default: 0] += 1
        }
    }

    /// Every value heard with its count.
    var counts: [Int8: Int] {
        var counts = others
        if firstCount > 0 { counts[first, default: 0] += firstCount }
        return counts
    }
}

/// The advertising events one receiver heard from one address, on that receiver's clock
/// (each time its `ReceiverTime.sinceOrigin`: one receiver, one clock).
struct ReceiverEventTrack: Sendable {
    let receiver: String
    /// Source time of the first advertising event counted.
    private let firstEventTime: Duration
    /// Source time of the last advertising event counted.
    private var lastEventTime: Duration
    private(set) var events = 1
    private(set) var shortestGap: Duration?

    init(receiver: String, firstEventTime: Duration) {
        self.receiver = receiver
        self.firstEventTime = firstEventTime
        self.lastEventTime = firstEventTime
    }

    /// Returns the gap to the previous event when `time` starts a new one.
    mutating func record(_ time: Duration, sameEventWindow: Duration) -> Duration? {
        // On `attoseconds` (Int128, inlined; `Duration`'s operators are runtime calls): this
        // runs at every reception.
        let gap = time.attoseconds - lastEventTime.attoseconds
        // Earlier than the last event (a source that reordered) or within the same event:
        // no new gap. The event keeps the time of its first reception.
        guard gap >= sameEventWindow.attoseconds else { return nil }
        events += 1
        if shortestGap.map({ gap < $0.attoseconds }) ?? true { shortestGap = Duration(attoseconds: gap) }
        lastEventTime = time
        return Duration(attoseconds: gap)
    }

    var observation: ReceiverEvents {
        ReceiverEvents(receiver: receiver, events: events, shortestGap: shortestGap, span: lastEventTime - firstEventTime)
    }
}

/// Who heard an identity, and how strongly: one entry per receiver, in order of first
/// reception, at most `maximumReceivers` (further receivers' receptions are counted).
struct ReceiverTally: Sendable {
    /// One receiver's receptions, with the RSSI sum its mean comes from.
    private struct Entry: Sendable {
        var observation: ReceiverObservation
        var rssiSum = 0

        mutating func add(_ sighting: Sighting, at time: PassTime) {
            observation.sightings += 1
            observation.lastSeen = max(observation.lastSeen, time)
            if let rssi = sighting.rssi {
                observation.strongestRSSI = max(observation.strongestRSSI ?? rssi, rssi)
                observation.rssiSamples += 1
                // Clamped to a byte's range (every reader already keeps it there): a sum of
                // such values cannot overflow in any count a process can receive.
                rssiSum += min(max(rssi, -128), 127)
            }
        }

        var final: ReceiverObservation {
            var entry = observation
            if entry.rssiSamples > 0 { entry.meanRSSI = Double(rssiSum) / Double(entry.rssiSamples) }
            return entry
        }
    }

    /// The first receiver inline (most identities have one), the others in order after it.
    private var first: Entry?
    private var others: [Entry] = []
    private var lastOtherIndex = 0
    private(set) var untrackedSightings = 0

    static let maximumReceivers = 64

    mutating func record(_ sighting: Sighting, at time: PassTime) {
        if first == nil {
            first = Entry(observation: ReceiverObservation(receiver: sighting.receiver, firstSeen: time))
            first?.add(sighting, at: time)
        } else if first?.observation.receiver == sighting.receiver {
            first?.add(sighting, at: time)
        } else if lastOtherIndex < others.count, others[lastOtherIndex].observation.receiver == sighting.receiver {
            others[lastOtherIndex].add(sighting, at: time)
        } else if let found = others.firstIndex(where: { $0.observation.receiver == sighting.receiver }) {
            lastOtherIndex = found
            others[found].add(sighting, at: time)
        } else if 1 + others.count < Self.maximumReceivers {
            lastOtherIndex = others.count
            others.append(Entry(observation: ReceiverObservation(receiver: sighting.receiver, firstSeen: time)))
            others[lastOtherIndex].add(sighting, at: time)
        } else {
            untrackedSightings += 1
        }
    }

    var observations: [ReceiverObservation] {
        (first.map { [$0.final] } ?? []) + others.map(\.final)
    }
}

extension MeasuredPowerCount {
    /// Most receptions first; the stronger value first on a tie, so output is stable.
    static func sorted(_ counts: [Int8: Int]) -> [MeasuredPowerCount] {
        counts.map { MeasuredPowerCount(value: $0.key, sightings: $0.value) }
            .sorted { $0.sightings != $1.sightings ? $0.sightings > $1.sightings : $0.value > $1.value }
    }
}
