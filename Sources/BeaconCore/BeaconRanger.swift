/// Ranging in the sense of CoreLocation's `didRangeBeacons`: fed with sightings, it keeps
/// per beacon (identity and address) and receiver the RSSI history, and gives at any moment
/// each beacon's filtered RSSI, distance estimate, proximity class and packet rate, nearest
/// first. Each receiver ranges on its own readings: two receivers' RSSI of one beacon are
/// two distances, and averaging them would be neither.
///
/// Pure and clock-free: sightings carry their time, and snapshots are taken "as of" a time
/// the caller gives, so the same input always yields the same output.
public struct BeaconRanger: Sendable {
    public let configuration: RangingConfiguration
    private var tracks: [Key: Track] = [:]

    /// A beacon (one identity from one address) as one receiver hears it.
    public struct Key: Hashable, Sendable {
        public var identity: BeaconIdentity
        public var address: BluetoothAddress?
        public var receiver: String

        public init(identity: BeaconIdentity, address: BluetoothAddress?, receiver: String) {
            self.identity = identity
            self.address = address
            self.receiver = receiver
        }
    }

    private struct Track: Sendable {
        var addressIsRandom: Bool
        var measuredPower: Int8
        var rssi: Int?
        var filter: RSSIFilter
        var packetTimes: PacketTimes
        var packetCount: Int
        var firstSeen: PassTime
        var lastSeen: PassTime
    }

    public init(configuration: RangingConfiguration = RangingConfiguration()) {
        self.configuration = configuration
    }

    /// Beacons currently tracked, forgotten ones excluded once `forgetStale` ran.
    public var trackedCount: Int { tracks.count }

    /// Takes one sighting into account. Sightings of a beacon are expected in time order;
    /// an older one still counts as a packet but does not move `lastSeen` back.
    /// A sighting whose time cannot be told (`PassTime(checkedSeconds:)`) is left out.
    public mutating func add(_ sighting: Sighting) {
        guard let time = PassTime(checkedSeconds: sighting.time) else { return }
        add(sighting, at: time)
    }

    /// Takes one sighting into account at `time` rather than its own (where a run placed it on
    /// its clock: the sighting keeps its receiver's time).
    public mutating func add(_ sighting: Sighting, at time: PassTime) {
        let key = Key(identity: sighting.identity, address: sighting.address, receiver: sighting.receiver)
        if tracks[key] == nil {
            makeRoom(at: time)
            tracks[key] = Track(
                addressIsRandom: sighting.addressIsRandom, measuredPower: sighting.advertisement.measuredPower,
                rssi: nil,
                filter: RSSIFilter(configuration: configuration.filter),
                packetTimes: PacketTimes(window: configuration.filter.window),
                packetCount: 0, firstSeen: time, lastSeen: time)
        }
        guard var track = tracks[key] else { return }
        track.addressIsRandom = sighting.addressIsRandom
        track.measuredPower = sighting.advertisement.measuredPower
        track.rssi = sighting.rssi
        track.packetCount += 1
        track.packetTimes.add(time)
        if let rssi = sighting.rssi { track.filter.add(Double(rssi), at: time) }
        track.firstSeen = min(track.firstSeen, time)
        track.lastSeen = max(track.lastSeen, time)
        tracks[key] = track
    }

    public mutating func add<Sightings: Sequence<Sighting>>(contentsOf sightings: Sightings) {
        for sighting in sightings { add(sighting) }
    }

    /// Every beacon heard within `forgetAfter` before `time`, nearest first.
    public func snapshot(at time: PassTime) -> [RangedBeacon] {
        tracks.compactMap { key, track in
            isForgotten(track, at: time) ? nil : ranged(key, track, at: time)
        }
        .sorted(by: RangedBeacon.nearestFirst)
    }

    /// One beacon as of `time`, or `nil` when it is not tracked.
    public func beacon(_ key: Key, at time: PassTime) -> RangedBeacon? {
        tracks[key].map { ranged(key, $0, at: time) }
    }

    /// Forgets the beacons unseen for more than `forgetAfter`, and every sample older than
    /// the filter window: call it now and then on a long-running scan.
    public mutating func forgetStale(at time: PassTime) {
        tracks = tracks.filter { !isForgotten($0.value, at: time) }
        for key in tracks.keys {
            tracks[key]?.filter.expire(at: time)
            tracks[key]?.packetTimes.expire(at: time)
        }
    }

    /// Whether `track` was last heard more than `forgetAfter` before `time` (never, without one).
    private func isForgotten(_ track: Track, at time: PassTime) -> Bool {
        guard let forgetAfter = configuration.forgetAfter else { return false }
        return (time - track.lastSeen).attoseconds > forgetAfter.attoseconds
    }

    private func ranged(_ key: Key, _ track: Track, at time: PassTime) -> RangedBeacon {
        let samples = track.filter.samples(at: time)
        let filtered = RSSIFilter.trimmedMean(samples, trimFraction: track.filter.configuration.trimFraction)
        let sampleCount = samples.count
        let powerIsPlausible = configuration.plausibleMeasuredPower.contains(Int(track.measuredPower))
        var accuracy: Double?
        var interval: ClosedRange<Double>?
        let isCurrent = (time - track.lastSeen).attoseconds <= configuration.unseenTimeout.attoseconds
        let hasEnoughSamples = sampleCount >= max(1, configuration.minimumSamples)
        if powerIsPlausible, isCurrent, hasEnoughSamples, let filtered {
            accuracy = configuration.distanceModel.distance(
                rssi: filtered, measuredPower: Double(track.measuredPower) + configuration.measuredPowerOffset)
            interval = accuracy.flatMap {
                configuration.uncertainty.interval(
                    around: $0, levelStandardError: RSSIFilter.standardError(samples) ?? 0,
                    exponent: configuration.distanceModel.pathLossExponent,
                    bounds: PathLossModel.nearField...PathLossModel.farthest)
            }
        }
        return RangedBeacon(
            identity: key.identity, address: key.address, addressIsRandom: track.addressIsRandom,
            measuredPower: track.measuredPower, measuredPowerIsPlausible: powerIsPlausible,
            rssi: track.rssi, filteredRSSI: filtered, accuracy: accuracy, accuracyInterval: interval,
            proximity: configuration.thresholds.classify(interval: interval),
            packetsPerSecond: track.packetTimes.rate(at: time, firstSeen: track.firstSeen),
            sampleCount: sampleCount, packetCount: track.packetCount,
            firstSeen: track.firstSeen.seconds, lastSeen: track.lastSeen.seconds, receiver: key.receiver)
    }

    /// Forgets the beacon unseen longest when the table is full.
    private mutating func makeRoom(at time: PassTime) {
        guard tracks.count >= max(1, configuration.maximumTrackedBeacons) else { return }
        if let stalest = tracks.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
            tracks[stalest] = nil
        }
    }
}

/// The arrival times of a beacon's packets inside a window, for its packet rate.
struct PacketTimes: Sendable {
    let window: Duration
    /// `window` in seconds, the rate's denominator once the beacon was heard for a window.
    let windowSeconds: Double
    private var times: [PassTime] = []
    private var head = 0
    /// A 100 ms beacon sends 10 packets/s; this bounds memory for one that floods.
    private static let capacity = 1000

    /// A window that is not positive is 1 s.
    init(window: Duration) {
        self.window = window > .zero ? window : .seconds(1)
        windowSeconds = self.window.instantSeconds
    }

    mutating func add(_ time: PassTime) {
        times.append(time)
        expire(at: time)
        if times.count - head > Self.capacity { head = times.count - Self.capacity }
        if head > 64, head * 2 > times.count {
            times.removeFirst(head)
            head = 0
        }
    }

    mutating func expire(at time: PassTime) {
        let oldestKept = time - window
        while head < times.count, times[head] < oldestKept { head += 1 }
    }

    /// Packets per second over the window ending at `time`. While the beacon has been
    /// heard for less than the window, the rate is taken over the time since its first
    /// packet (intervals between packets, so two packets 0.1 s apart make 10/s).
    func rate(at time: PassTime, firstSeen: PassTime) -> Double? {
        let start = time - window
        let inWindow = times[head...].filter { $0 >= start && $0 <= time }
        if firstSeen >= start {
            let span = (time - firstSeen).instantSeconds
            guard inWindow.count >= 2, span > 0 else { return nil }
            return Double(inWindow.count - 1) / span
        }
        return Double(inWindow.count) / windowSeconds
    }
}
