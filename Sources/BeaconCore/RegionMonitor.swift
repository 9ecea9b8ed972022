/// A region to monitor and what to report about it, as `CLBeaconRegion` configures it.
public struct MonitoredRegion: Hashable, Sendable {
    public var region: BeaconRegion
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// Report the region's state (inside/outside) as soon as it is known after monitoring
    /// starts: the counterpart of `notifyEntryStateOnDisplay`.
    public var notifyStateOnStart: Bool

    public init(region: BeaconRegion, notifyOnEntry: Bool = true, notifyOnExit: Bool = true, notifyStateOnStart: Bool = false) {
        self.region = region
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.notifyStateOnStart = notifyStateOnStart
    }
}

/// Whether the device is inside a region (`CLRegionState`).
public enum RegionState: String, Sendable, Hashable, Codable {
    case inside, outside, unknown
}

/// What monitoring reports. `beacons` are the identities seen in the region during the
/// current stay (for `enter` and `state`) or last seen before leaving (for `exit`): the
/// first `StayBeacons.listLimit` of them in the order they were first heard, with
/// `beaconCount` counting them all (see `StayBeacons`).
public struct RegionEvent: Hashable, Sendable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case enter, exit, state
    }

    public var kind: Kind
    public var regionIdentifier: String
    public var state: RegionState
    /// When it happened, on the monitor's clock.
    public var time: PassTime
    public var beacons: [BeaconIdentity]
    /// How many distinct identities were heard: at least `beacons.count`.
    public var beaconCount: Int
    /// True when more identities were heard than `StayBeacons.countLimit`: `beaconCount`
    /// is then a lower bound.
    public var beaconCountIsLowerBound: Bool
    /// The receivers that heard the region's beacons during the stay, strongest first: with
    /// several receivers (a broker's stream, a merged recording), where the region was heard.
    public var receivers: [StayReceiver]

    public init(
        kind: Kind, regionIdentifier: String, state: RegionState, time: PassTime, beacons: [BeaconIdentity],
        beaconCount: Int? = nil, beaconCountIsLowerBound: Bool = false, receivers: [StayReceiver] = []
    ) {
        self.kind = kind
        self.regionIdentifier = regionIdentifier
        self.state = state
        self.time = time
        self.beacons = beacons
        self.beaconCount = max(beaconCount ?? beacons.count, beacons.count)
        self.beaconCountIsLowerBound = beaconCountIsLowerBound
        self.receivers = receivers
    }

    init(kind: Kind, regionIdentifier: String, state: RegionState, time: PassTime, stay: StayBeacons) {
        self.init(
            kind: kind, regionIdentifier: regionIdentifier, state: state, time: time, beacons: stay.listed,
            beaconCount: stay.count, beaconCountIsLowerBound: stay.countIsLowerBound, receivers: stay.receiversByStrength)
    }

    /// Whether `beacons` leaves some of the identities heard out.
    public var isBeaconListShortened: Bool { beaconCount > beacons.count || beaconCountIsLowerBound }
}

/// One receiver's share of a stay: how often it heard the region's beacons, and how strongly.
public struct StayReceiver: Hashable, Sendable {
    public var receiver: String
    public var sightings: Int
    /// The strongest RSSI it reported, dBm; `nil` when it reported none.
    public var strongestRSSI: Int?

    public init(receiver: String, sightings: Int, strongestRSSI: Int?) {
        self.receiver = receiver
        self.sightings = sightings
        self.strongestRSSI = strongestRSSI
    }
}

/// The distinct identities heard in a region during one stay, in bounded memory and
/// constant time per sighting whatever the air holds (a wildcard region over a busy venue,
/// or someone transmitting thousands of identities): the first `listLimit` are listed in
/// the order they were first heard; all are counted up to `countLimit`. Also the receivers
/// that heard them: the first `receiverLimit`, each with its sightings and strongest RSSI.
public struct StayBeacons: Hashable, Sendable {
    /// Identities listed in events (and so in JSON lines and `--exec` variables).
    public static let listLimit = 100
    /// Identities counted exactly; beyond, the count is a lower bound.
    public static let countLimit = 10_000
    /// Receivers told apart in one stay: a chain's stores hearing one wildcard region are
    /// many, but a list beyond this says nothing a reader could use.
    public static let receiverLimit = 32

    public private(set) var listed: [BeaconIdentity] = []
    private var counted: Set<BeaconIdentity> = []
    /// Set once an identity arrived that could no longer be counted.
    public private(set) var countIsLowerBound = false
    /// The receivers told apart, by name.
    private var receivers: [String: StayReceiver] = [:]

    public init() {}

    public var count: Int { counted.count }

    /// The receivers, strongest first (those without RSSI last), then by name.
    public var receiversByStrength: [StayReceiver] {
        receivers.values.sorted { left, right in
            switch (left.strongestRSSI, right.strongestRSSI) {
            case let (l?, r?) where l != r: l > r
            case (_?, nil): true
            case (nil, _?): false
            default: left.receiver < right.receiver
            }
        }
    }

    /// Takes a sighting of the region: its identity, and its receiver's share.
    public mutating func insert(_ sighting: Sighting) {
        insert(sighting.identity)
        if var known = receivers[sighting.receiver] {
            known.sightings += 1
            if let rssi = sighting.rssi, rssi > known.strongestRSSI ?? Int.min { known.strongestRSSI = rssi }
            receivers[sighting.receiver] = known
        } else if receivers.count < Self.receiverLimit {
            receivers[sighting.receiver] = StayReceiver(receiver: sighting.receiver, sightings: 1, strongestRSSI: sighting.rssi)
        }
    }

    public mutating func insert(_ identity: BeaconIdentity) {
        guard !counted.contains(identity) else { return }
        guard counted.count < Self.countLimit else {
            countIsLowerBound = true
            return
        }
        counted.insert(identity)
        if listed.count < Self.listLimit { listed.append(identity) }
    }
}

/// Region monitoring with CoreLocation's semantics and hysteresis, over sightings and an
/// injected clock (no clock reads, no I/O: the caller feeds times).
///
/// - **Entry** after `minimumSightingsForEntry` matching sightings, counted from the last
///   time the region was outside (or unknown).
/// - **Exit** only after no matching beacon has been seen for `exitPeriod`, so a
///   missed packet or two never produces exit-then-enter flapping (Android's beacon library
///   uses 10 s and users raise it; 30 s is our default, close to what iOS shows in practice).
/// - **State** is `unknown` until it is known: inside on entry, outside once `exitPeriod`
///   has passed since monitoring started without enough sightings. With
///   `notifyStateOnStart`, that first determination is reported as a `state` event.
public struct RegionMonitor: Sendable {
    public struct Configuration: Hashable, Sendable {
        public var exitPeriod: Duration
        public var minimumSightingsForEntry: Int

        public init(exitPeriod: Duration = .seconds(30), minimumSightingsForEntry: Int = 1) {
            self.exitPeriod = exitPeriod
            self.minimumSightingsForEntry = max(1, minimumSightingsForEntry)
        }
    }

    private struct Tracking: Sendable {
        var monitored: MonitoredRegion
        var state: RegionState = .unknown
        var sightingsTowardEntry = 0
        var lastSeen: PassTime?
        var beaconsThisStay = StayBeacons()
        var stateReportedOnStart = false
    }

    public let configuration: Configuration
    private var regions: [Tracking]
    private let startTime: PassTime

    /// Starts monitoring `regions` at time `start`. Region identifiers should be unique;
    /// events name regions by identifier.
    public init(regions: [MonitoredRegion], configuration: Configuration = .init(), start: PassTime) {
        self.configuration = configuration
        self.regions = regions.map { Tracking(monitored: $0) }
        self.startTime = start
    }

    /// Feeds one sighting (at `sighting.time`, seconds since the clock's origin) and returns
    /// the events it causes, after first applying any exits due by then. A time that cannot
    /// be read (`PassTime(checkedSeconds:)`) is no place on the clock: the sighting is left out.
    public mutating func observe(_ sighting: Sighting) -> [RegionEvent] {
        guard let time = PassTime(checkedSeconds: sighting.time) else { return [] }
        return observe(sighting, at: time)
    }

    /// Feeds one sighting at `time` rather than its own (where a run placed it on its clock:
    /// the sighting keeps its receiver's time), as `observe(_:)`.
    public mutating func observe(_ sighting: Sighting, at time: PassTime) -> [RegionEvent] {
        var events = advance(to: time)
        for index in regions.indices where regions[index].monitored.region.matches(sighting.identity) {
            regions[index].lastSeen = time
            regions[index].beaconsThisStay.insert(sighting)
            guard regions[index].state != .inside else { continue }
            regions[index].sightingsTowardEntry += 1
            if regions[index].sightingsTowardEntry >= configuration.minimumSightingsForEntry {
                events += transition(index, to: .inside, at: time)
            }
        }
        return events
    }

    /// Advances the clock to `now` and returns the exits (and start-up states) due by then.
    /// Call it periodically: exits happen on silence, when no sighting arrives to carry time.
    public mutating func advance(to now: PassTime) -> [RegionEvent] {
        var events: [RegionEvent] = []
        for index in regions.indices {
            switch regions[index].state {
            case .inside:
                if let lastSeen = regions[index].lastSeen, now - lastSeen >= configuration.exitPeriod {
                    events += transition(index, to: .outside, at: lastSeen + configuration.exitPeriod)
                }
            case .unknown:
                if now - startTime >= configuration.exitPeriod {
                    events += transition(index, to: .outside, at: startTime + configuration.exitPeriod)
                }
            case .outside:
                // Sightings that did not reach the entry minimum go stale like a stay does.
                if let lastSeen = regions[index].lastSeen, now - lastSeen >= configuration.exitPeriod {
                    regions[index].sightingsTowardEntry = 0
                    regions[index].beaconsThisStay = StayBeacons()
                }
            }
        }
        return events.sorted { $0.time < $1.time }
    }

    /// The current state of a region, like `requestStateForRegion`; `nil` for an identifier
    /// that is not monitored.
    public func state(of identifier: String) -> RegionEvent? {
        guard let tracking = regions.first(where: { $0.monitored.region.identifier == identifier }) else { return nil }
        return RegionEvent(
            kind: .state, regionIdentifier: identifier, state: tracking.state,
            time: tracking.lastSeen ?? startTime, stay: tracking.state == .inside ? tracking.beaconsThisStay : StayBeacons())
    }

    /// The states of every region, in the order they were given.
    public var states: [(identifier: String, state: RegionState)] {
        regions.map { ($0.monitored.region.identifier, $0.state) }
    }

    private mutating func transition(_ index: Int, to newState: RegionState, at time: PassTime) -> [RegionEvent] {
        let previous = regions[index].state
        guard previous != newState else { return [] }
        let monitored = regions[index].monitored
        let beacons = regions[index].beaconsThisStay
        regions[index].state = newState
        if newState == .outside {
            regions[index].sightingsTowardEntry = 0
            regions[index].beaconsThisStay = StayBeacons()
        }
        var events: [RegionEvent] = []
        let identifier = monitored.region.identifier
        if previous == .unknown && monitored.notifyStateOnStart && !regions[index].stateReportedOnStart {
            regions[index].stateReportedOnStart = true
            events.append(RegionEvent(kind: .state, regionIdentifier: identifier, state: newState, time: time, stay: newState == .inside ? beacons : StayBeacons()))
        }
        switch newState {
        case .inside where monitored.notifyOnEntry:
            events.append(RegionEvent(kind: .enter, regionIdentifier: identifier, state: .inside, time: time, stay: beacons))
        case .outside where previous == .inside && monitored.notifyOnExit:
            events.append(RegionEvent(kind: .exit, regionIdentifier: identifier, state: .outside, time: time, stay: beacons))
        default:
            break
        }
        return events
    }
}
