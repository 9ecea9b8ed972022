import BeaconCore
import FleetManifest

/// A battery going low or coming back, in a continuous audit: one event per crossing (the
/// judge's hysteresis holds a wavering reading), `battery-ok` after a replacement.
public struct AuditBatteryEvent: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case low = "battery-low"
        case ok = "battery-ok"
    }

    public var time: Double
    /// Set by the watch when its clock can say it.
    public var unixTime: Double?
    public var kind: Kind
    public var beaconID: String
    public var venueID: String
    public var identity: BeaconIdentity
    /// The level judged (median of the latest readings) and the threshold.
    public var level: BatteryLevel
    public var threshold: BatteryLevel
    public var source: TelemetrySource
    public var forecast: BatteryForecast

    public var reason: String {
        switch kind {
        case .low: "battery \(level) below \(threshold): replace it on the next visit"
        case .ok: "battery \(level), above \(threshold) again: replaced"
        }
    }
}

/// One beacon's battery as the watch stands on it.
public struct BatteryStanding: Hashable, Sendable {
    public var beacon: ExpectedBeacon
    public var standing: BatteryJudge.Standing
    public var level: BatteryLevel?
    /// The latest reading, on the audit's clock.
    public var lastReading: Double?
    /// The same in Unix time, when the audit's clock can say it; set by the watch.
    public var lastReadingUnixTime: Double?
    public var source: TelemetrySource?
    public var forecast: BatteryForecast
    public var history: [BatteryForecast.DailyMedian]

    public init(
        beacon: ExpectedBeacon, standing: BatteryJudge.Standing, level: BatteryLevel?, lastReading: Double?,
        source: TelemetrySource?, forecast: BatteryForecast, history: [BatteryForecast.DailyMedian]
    ) {
        self.beacon = beacon
        self.standing = standing
        self.level = level
        self.lastReading = lastReading
        self.source = source
        self.forecast = forecast
        self.history = history
    }
}

/// The watch's batteries as a pure reducer: paired readings in, crossing events out, and
/// each beacon's history of daily medians for the forecast. No clock: the caller says the
/// time of each reading on the audit's clock and the day it falls on.
public struct BatteryWatch: Sendable {
    private let beacons: [ExpectedBeacon]
    private var judges: [Int: BatteryJudge] = [:]
    private var histories: [Int: BatteryHistory] = [:]
    private var latest: [Int: (level: BatteryLevel?, time: Double, source: TelemetrySource)] = [:]
    private(set) var unpaired = 0
    private(set) var received = 0

    public init(beacons: [ExpectedBeacon]) {
        self.beacons = beacons
        for (index, beacon) in beacons.enumerated() {
            if let threshold = beacon.battery?.lowThreshold { judges[index] = BatteryJudge(threshold: threshold) }
        }
    }

    /// Starts from the histories a state file kept, by beacon id; returns how many were used.
    public mutating func restore(_ saved: [String: [BatteryForecast.DailyMedian]]) -> Int {
        var used = 0
        for (index, beacon) in beacons.enumerated() {
            guard let days = saved[beacon.beaconID], !days.isEmpty else { continue }
            histories[index] = BatteryHistory(days: days)
            // The standing the previous watch left: a low battery is not paged again.
            if let latest = days.max(by: { $0.day < $1.day }) { judges[index]?.restore(latest.value) }
            used += 1
        }
        return used
    }

    mutating func countUnpaired() {
        received += 1
        unpaired += 1
    }

    /// Takes a reading of beacon `index` at `time` (the audit's clock) on day `day`.
    mutating func take(_ reading: TelemetryReading, beacon index: Int, at time: Double, day: Int) -> AuditBatteryEvent? {
        received += 1
        let level: BatteryLevel? = reading.batteryMillivolts.map { .millivolts($0) } ?? reading.batteryPercent.map { .percent($0) }
        latest[index] = (level ?? latest[index]?.level, max(time, latest[index]?.time ?? time), reading.source)
        guard var judge = judges[index] else { return nil }
        let transition = judge.take(reading)
        judges[index] = judge
        if let value = judge.value(of: reading) {
            if transition == .recovered {
                // A new cell: the old one's decline says nothing of this one.
                histories[index] = BatteryHistory()
            }
            histories[index, default: BatteryHistory()].add(value, day: day)
        }
        guard let transition, let judged = judge.level else { return nil }
        let beacon = beacons[index]
        return AuditBatteryEvent(
            time: time, kind: transition == .becameLow ? .low : .ok, beaconID: beacon.beaconID, venueID: beacon.venueID,
            identity: beacon.identity, level: judged, threshold: judge.threshold, source: reading.source,
            forecast: forecast(index))
    }

    private func forecast(_ index: Int) -> BatteryForecast {
        guard let judge = judges[index] else { return .notEnoughHistory(days: 0) }
        let threshold = switch judge.threshold {
        case .millivolts(let value): Int(value)
        case .percent(let value): Int(value)
        }
        return BatteryForecast(history: histories[index]?.daysIncludingToday ?? [], threshold: threshold)
    }

    /// Every beacon with a threshold or a reading, in manifest order.
    public var standings: [BatteryStanding] {
        beacons.indices.compactMap { index in
            guard judges[index] != nil || latest[index] != nil || histories[index] != nil else { return nil }
            let judge = judges[index]
            return BatteryStanding(
                beacon: beacons[index], standing: judge?.standing ?? .unknown,
                level: judge?.level ?? latest[index]?.level, lastReading: latest[index]?.time,
                source: latest[index]?.source, forecast: forecast(index),
                history: histories[index]?.daysIncludingToday ?? [])
        }
    }
}
