import BeaconCore
import FleetManifest

/// Region monitoring with optional ranging inside the regions, over sightings and a clock
/// the caller advances: what `beaconctl monitor` runs, live or over a recording.
///
/// `RegionMonitor` decides entries, exits and states; this adds, per region, the ranging
/// CoreLocation offers with `startRangingBeacons(satisfying:)`: the beacons of the region,
/// nearest first, while the device is inside it. Pure and clock-free, like both parts. Its
/// times are places on the caller's clock (`PassTime`); the ranger, which still counts in
/// seconds, is told them as such.
public struct MonitorSession: Sendable {
    public let regions: [MonitoredRegion]
    public let configuration: RegionMonitor.Configuration
    private var monitor: RegionMonitor
    /// Present when ranging was asked for.
    private var ranger: BeaconRanger?

    /// Starts monitoring `regions` at `start`; with `ranging`, beacons of the regions the
    /// device is inside are ranged too.
    public init(
        regions: [MonitoredRegion], configuration: RegionMonitor.Configuration = .init(),
        ranging: RangingConfiguration? = nil, start: PassTime
    ) {
        self.regions = regions
        self.configuration = configuration
        monitor = RegionMonitor(regions: regions, configuration: configuration, start: start)
        ranger = ranging.map(BeaconRanger.init(configuration:))
    }

    /// Whether `ranging(at:)` reports anything.
    public var isRanging: Bool { ranger != nil }

    /// Feeds one sighting at its own time (seconds since the clock's origin); returns the
    /// events it causes (and the exits due before it). A time that cannot be read is no place
    /// on the clock: the sighting is left out.
    public mutating func observe(_ sighting: Sighting) -> [RegionEvent] {
        guard let time = PassTime(checkedSeconds: sighting.time) else { return [] }
        return observe(sighting, at: time)
    }

    /// Feeds one sighting at `time` on the session's clock rather than its own (a replay's
    /// placed time: the sighting keeps its receiver's time), as `observe(_:)`.
    public mutating func observe(_ sighting: Sighting, at time: PassTime) -> [RegionEvent] {
        if ranger != nil, regions.contains(where: { $0.region.matches(sighting.identity) }) {
            ranger?.add(sighting, at: time)
        }
        return monitor.observe(sighting, at: time)
    }

    /// Moves the clock to `now`; returns the exits (and start-up states) due by then.
    public mutating func advance(to now: PassTime) -> [RegionEvent] {
        ranger?.forgetStale(at: now)
        return monitor.advance(to: now)
    }

    /// The state of every region as of `time`, in the order they were given: the answer
    /// to `requestStateForRegion` for each. Call `advance(to:)` first so that due exits
    /// are applied.
    public func stateReports(at time: PassTime) -> [RegionEvent] {
        regions.compactMap { monitored in
            guard var report = monitor.state(of: monitored.region.identifier) else { return nil }
            report.time = time
            return report
        }
    }

    /// For every region the device is inside, its beacons heard recently, nearest first
    /// (`didRangeBeacons`); regions outside are left out. Empty unless ranging was asked for.
    public func ranging(at time: PassTime) -> [RegionRanging] {
        guard let ranger else { return [] }
        let heard = ranger.snapshot(at: time)
        return regions.compactMap { monitored in
            let identifier = monitored.region.identifier
            guard monitor.state(of: identifier)?.state == .inside else { return nil }
            let beacons = heard.filter { monitored.region.matches($0.identity) }
            return RegionRanging(regionIdentifier: identifier, time: time, beacons: beacons)
        }
    }
}

/// The beacons of one region as ranging sees them at a moment, nearest first.
public struct RegionRanging: Hashable, Sendable {
    public var regionIdentifier: String
    public var time: PassTime
    public var beacons: [RangedBeacon]

    public init(regionIdentifier: String, time: PassTime, beacons: [RangedBeacon]) {
        self.regionIdentifier = regionIdentifier
        self.time = time
        self.beacons = beacons
    }
}

extension MonitoredRegion {
    /// A region of the manifest's `regions:` list, with its notify flags.
    public init(_ resolved: ResolvedRegion) {
        self.init(
            region: resolved.region, notifyOnEntry: resolved.notifyOnEntry,
            notifyOnExit: resolved.notifyOnExit, notifyStateOnStart: resolved.notifyStateOnStart)
    }
}
