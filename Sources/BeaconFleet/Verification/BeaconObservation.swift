import BeaconCore

/// What was heard of one identity: the evidence a verdict rests on, as reports show it.
/// Times are places on the pass's clock (`PassTime`, its origin where the verification
/// started); gaps and spans between advertising events are `Duration`s on a receiver's clock.
///
/// A fleet's pass keeps one per beacon until its report is written, and nearly every beacon
/// is one device heard by one receiver with one measured power: that case is held inline
/// (`ObservationStorage.single`), without the five small arrays and the address text the
/// general case allocates, and the arrays are made when asked for.
public struct BeaconObservation: Hashable, Sendable {
    public var identity: BeaconIdentity
    public var sightings: Int
    public var firstSeen: PassTime?
    public var lastSeen: PassTime?
    /// Receptions by receivers beyond those told apart (`ReceiverTally.maximumReceivers`).
    public var untrackedReceiverSightings: Int
    /// Always the single form when it can hold the arrays exactly, so that two equal
    /// observations are stored alike (equality and hashing compare the storage).
    private var storage: ObservationStorage

    public init(
        identity: BeaconIdentity, sightings: Int = 0, addresses: [AddressObservation] = [],
        measuredPowers: [MeasuredPowerCount] = [], firstSeen: PassTime? = nil, lastSeen: PassTime? = nil,
        receivers: [ReceiverObservation] = [], untrackedReceiverSightings: Int = 0
    ) {
        self.identity = identity
        self.sightings = sightings
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.untrackedReceiverSightings = untrackedReceiverSightings
        storage = ObservationStorage(addresses: addresses, measuredPowers: measuredPowers, receivers: receivers)
    }

    /// Every device address the identity came from, most receptions first.
    public var addresses: [AddressObservation] {
        get { storage.addresses }
        set { storage = ObservationStorage(addresses: newValue, measuredPowers: measuredPowers, receivers: receivers) }
    }

    /// Every measured-power value carried, most receptions first.
    public var measuredPowers: [MeasuredPowerCount] {
        get { storage.measuredPowers }
        set { storage = ObservationStorage(addresses: addresses, measuredPowers: newValue, receivers: receivers) }
    }

    /// Every receiver that heard it, in order of first reception: coverage at a glance.
    public var receivers: [ReceiverObservation] {
        get { storage.receivers }
        set { storage = ObservationStorage(addresses: addresses, measuredPowers: measuredPowers, receivers: newValue) }
    }

    /// Heard, but by no receiver that reports every advertisement (only through gateways
    /// that throttle or sample): no interval can be measured from it.
    public var heardOnlyThroughGateways: Bool {
        if case .single(let single) = storage { return sightings > 0 && !single.hasEvents }
        return sightings > 0 && addresses.allSatisfy(\.eventsByReceiver.isEmpty)
    }

    /// The strongest signal received, dBm, when the receiver reported any.
    public var strongestRSSI: Int? {
        if case .single(let single) = storage { return single.strongestRSSI }
        return addresses.compactMap(\.strongestRSSI).max()
    }

    /// The receivers, the strongest on average first; those without RSSI last, the most
    /// receptions first among equals.
    public var receiversByStrength: [ReceiverObservation] {
        receivers.sorted { lhs, rhs in
            switch (lhs.meanRSSI, rhs.meanRSSI) {
            case (let left?, let right?) where left != right: return left > right
            case (.some, nil): return true
            case (nil, .some): return false
            default: return lhs.sightings != rhs.sightings ? lhs.sightings > rhs.sightings : lhs.receiver < rhs.receiver
            }
        }
    }
}

/// How a `BeaconObservation` holds its addresses, measured powers and receivers.
private enum ObservationStorage: Hashable, Sendable {
    /// One address, heard by one receiver (its events, if any, on that receiver's clock),
    /// with at most one measured-power value, the same for the identity as for the address.
    case single(SingleSource)
    case general(addresses: [AddressObservation], measuredPowers: [MeasuredPowerCount], receivers: [ReceiverObservation])

    init(addresses: [AddressObservation], measuredPowers: [MeasuredPowerCount], receivers: [ReceiverObservation]) {
        if let single = SingleSource(addresses: addresses, measuredPowers: measuredPowers, receivers: receivers) {
            self = .single(single)
        } else {
            self = .general(addresses: addresses, measuredPowers: measuredPowers, receivers: receivers)
        }
    }

    var addresses: [AddressObservation] {
        switch self {
        case .single(let single): return [single.address]
        case .general(let addresses, _, _): return addresses
        }
    }

    var measuredPowers: [MeasuredPowerCount] {
        switch self {
        case .single(let single): return single.powers
        case .general(_, let powers, _): return powers
        }
    }

    var receivers: [ReceiverObservation] {
        switch self {
        case .single(let single): return [single.receiver]
        case .general(_, _, let receivers): return receivers
        }
    }
}

/// The single form's fields: everything the three arrays would hold, inline.
private struct SingleSource: Hashable, Sendable {
    var deviceAddress: BluetoothAddress?
    var isRandom: Bool
    var isPrivate: Bool
    var addressSightings: Int
    var addressFirstSeen: PassTime
    var addressLastSeen: PassTime
    var strongestRSSI: Int?
    /// The one measured-power value and its receptions; `powerSightings` 0 when none.
    var power: Int8
    var powerSightings: Int
    /// Whether the receiver timed advertising events of the address (else it is a gateway's).
    var hasEvents: Bool
    var events: Int
    var shortestGap: Duration?
    var span: Duration
    var receiver: ReceiverObservation

    /// `nil` unless the three arrays are exactly what this form gives back.
    init?(addresses: [AddressObservation], measuredPowers: [MeasuredPowerCount], receivers: [ReceiverObservation]) {
        guard addresses.count == 1, receivers.count == 1, measuredPowers.count <= 1 else { return nil }
        let address = addresses[0]
        let receiver = receivers[0]
        guard address.measuredPowers == measuredPowers, address.eventsByReceiver.count <= 1 else { return nil }
        let device = address.address.isEmpty ? nil : BluetoothAddress(address.address)
        guard BluetoothAddress.text(device) == address.address else { return nil }
        let events = address.eventsByReceiver.first
        if let events, events.receiver != receiver.receiver { return nil }
        deviceAddress = device
        isRandom = address.isRandom
        isPrivate = address.isPrivate
        addressSightings = address.sightings
        addressFirstSeen = address.firstSeen
        addressLastSeen = address.lastSeen
        strongestRSSI = address.strongestRSSI
        power = measuredPowers.first?.value ?? 0
        powerSightings = measuredPowers.first?.sightings ?? 0
        hasEvents = events != nil
        self.events = events?.events ?? 0
        shortestGap = events?.shortestGap
        span = events?.span ?? .zero
        self.receiver = receiver
        // A count of 0 is what "no value" is stored as: such a list is not this form's.
        guard measuredPowers.allSatisfy({ $0.sightings != 0 }) else { return nil }
    }

    var powers: [MeasuredPowerCount] {
        powerSightings == 0 ? [] : [MeasuredPowerCount(value: power, sightings: powerSightings)]
    }

    var address: AddressObservation {
        AddressObservation(
            address: BluetoothAddress.text(deviceAddress), isRandom: isRandom, isPrivate: isPrivate, sightings: addressSightings,
            measuredPowers: powers, firstSeen: addressFirstSeen, lastSeen: addressLastSeen,
            eventsByReceiver: hasEvents
                ? [ReceiverEvents(receiver: receiver.receiver, events: events, shortestGap: shortestGap, span: span)] : [],
            strongestRSSI: strongestRSSI)
    }
}

/// What was heard from one device address sending an identity.
public struct AddressObservation: Hashable, Sendable {
    /// `AA:BB:CC:DD:EE:FF`, upper case.
    public var address: String
    public var isRandom: Bool
    /// A random address whose two top bits are not `11`: a resolvable or non-resolvable
    /// private address, which a device changes every few minutes (Core v5.4 Vol 6 Part B
    /// 1.3.2.2). Static random and public addresses do not change while the device runs.
    public var isPrivate: Bool
    public var sightings: Int
    public var measuredPowers: [MeasuredPowerCount]
    public var firstSeen: PassTime
    public var lastSeen: PassTime
    /// The advertising events each receiver heard, each on its own clock (receptions of one
    /// event on several channels count once), in order of first reception.
    public var eventsByReceiver: [ReceiverEvents]
    public var strongestRSSI: Int?

    public init(
        address: String, isRandom: Bool, isPrivate: Bool, sightings: Int, measuredPowers: [MeasuredPowerCount],
        firstSeen: PassTime, lastSeen: PassTime, eventsByReceiver: [ReceiverEvents], strongestRSSI: Int?
    ) {
        self.address = address
        self.isRandom = isRandom
        self.isPrivate = isPrivate
        self.sightings = sightings
        self.measuredPowers = measuredPowers
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.eventsByReceiver = eventsByReceiver
        self.strongestRSSI = strongestRSSI
    }

    /// Distinct advertising events heard by the receiver that heard the most (a lower bound:
    /// receivers' clocks cannot tell which of their events were the same).
    public var events: Int { eventsByReceiver.map(\.events).max() ?? 0 }

    /// The shortest gap between two advertising events any receiver heard: the best
    /// estimate of the advertising interval, since lost packets only lengthen gaps. `nil`
    /// below two events on one receiver.
    public var shortestGap: Duration? { eventsByReceiver.compactMap(\.shortestGap).min() }

    /// Gaps measured between events, each between two of one receiver's events.
    public var gaps: Int { eventsByReceiver.reduce(0) { $0 + $1.gaps } }

    /// Whether both addresses were heard during the same stretch of time: two devices at
    /// once, rather than one device that changed its address.
    func overlaps(_ other: AddressObservation) -> Bool {
        max(firstSeen, other.firstSeen) <= min(lastSeen, other.lastSeen)
    }
}

/// One measured-power value and how many receptions carried it.
public struct MeasuredPowerCount: Hashable, Sendable {
    public var value: Int8
    public var sightings: Int

    public init(value: Int8, sightings: Int) {
        self.value = value
        self.sightings = sightings
    }
}

/// The advertising events one receiver heard from one address, timed on its own clock.
public struct ReceiverEvents: Hashable, Sendable {
    public var receiver: String
    public var events: Int
    /// The shortest gap between two of them; `nil` below two.
    public var shortestGap: Duration?
    /// From the first of them to the last (the sum of their gaps).
    public var span: Duration

    public init(receiver: String, events: Int, shortestGap: Duration?, span: Duration = .zero) {
        self.receiver = receiver
        self.events = events
        self.shortestGap = shortestGap
        self.span = span
    }

    public var gaps: Int { max(0, events - 1) }
}

/// What one receiver heard of an identity: how often and how strongly.
public struct ReceiverObservation: Hashable, Sendable {
    /// The receiver's name as its sightings carry it (`HOST:CONTROLLER`, a file name).
    public var receiver: String
    public var sightings: Int
    /// Places on the pass's clock.
    public var firstSeen: PassTime
    public var lastSeen: PassTime
    public var strongestRSSI: Int?
    /// The mean of the RSSI values reported, dBm; `nil` when none were.
    public var meanRSSI: Double?
    /// Receptions that carried an RSSI.
    public var rssiSamples: Int

    public init(
        receiver: String, sightings: Int = 0, firstSeen: PassTime, lastSeen: PassTime? = nil, strongestRSSI: Int? = nil,
        meanRSSI: Double? = nil, rssiSamples: Int = 0
    ) {
        self.receiver = receiver
        self.sightings = sightings
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen ?? firstSeen
        self.strongestRSSI = strongestRSSI
        self.meanRSSI = meanRSSI
        self.rssiSamples = rssiSamples
    }
}
