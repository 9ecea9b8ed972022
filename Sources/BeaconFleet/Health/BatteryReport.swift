import BeaconCore
import FleetManifest

/// What a pass learnt of one beacon's battery: the level judged (the median of its latest
/// readings), when it was last heard, and the standing against the manifest's threshold.
/// Every report format shows it beside the beacon's verdict (docs/health.md).
public struct BatteryReport: Hashable, Sendable {
    public enum Status: String, Hashable, Sendable, CaseIterable {
        /// At or above the threshold.
        case ok
        /// Below the threshold: a finding (exit status 1), beside the identity verdict.
        case low = "battery-low"
        /// The manifest expects telemetry (a `battery_low`, no `host`) and none was paired
        /// with the beacon in the pass: a finding, because its battery could not be checked.
        case noTelemetry = "no-telemetry"
        /// Readings, but no threshold to judge them by.
        case unjudged
        /// Readings only in the other unit than the threshold's (percent against volts, or
        /// the other way round): shown, never converted, not judged.
        case otherUnit = "other-unit"

        /// Whether the status is a finding that fails the pass.
        public var isFinding: Bool { self == .low || self == .noTelemetry }
    }

    public var status: Status
    public var threshold: BatteryLevel?
    /// The level judged: the median of the latest readings in the threshold's unit (or of
    /// the latest reading when there is no threshold); `nil` with no telemetry.
    public var level: BatteryLevel?
    /// The pass time of the latest reading.
    public var heardAt: PassTime?
    /// From the latest reading to the end of the pass: how old the level is.
    public var age: Duration?
    public var temperature: Double?
    public var source: TelemetrySource?
    /// Readings paired with the beacon.
    public var readings: Int

    public init(
        status: Status, threshold: BatteryLevel?, level: BatteryLevel? = nil, heardAt: PassTime? = nil,
        age: Duration? = nil, temperature: Double? = nil, source: TelemetrySource? = nil, readings: Int = 0
    ) {
        self.status = status
        self.threshold = threshold
        self.level = level
        self.heardAt = heardAt
        self.age = age
        self.temperature = temperature
        self.source = source
        self.readings = readings
    }

    /// One line for a text report: "battery 2.41 V (low: below 2.5 V), 12 s old".
    public var summary: String {
        switch status {
        case .noTelemetry:
            return "no telemetry (battery_low \(threshold.map(\.description) ?? "set"): none heard from it)"
        default:
            var text = "battery \(level.map(\.description) ?? "unknown")"
            switch status {
            case .low: text += " (low: below \(threshold.map(\.description) ?? "the threshold"))"
            case .otherUnit: text += " (not judged: the threshold is in \(threshold.map(Self.unit) ?? "another unit"))"
            default: break
            }
            if let age { text += ", \(Self.ageText(age.instantSeconds)) old" }
            return text
        }
    }

    private static func unit(_ level: BatteryLevel) -> String {
        switch level {
        case .millivolts: "volts"
        case .percent: "percent"
        }
    }

    /// "12 s", "3 min", "2 h".
    static func ageText(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "0 s" }
        if seconds < 120 { return "\(Int(seconds.rounded())) s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded())) min" }
        return "\(Int((seconds / 3600).rounded())) h"
    }
}

/// Builds each beacon's `BatteryReport` from the readings paired with it, in the order
/// heard. A pure accumulator: the one-shot pass feeds it at its end. Sparse: it keeps an
/// entry only for a beacon that sent telemetry, so a fleet's pass pays for the beacons
/// heard sending it, not for the fleet.
public struct BatteryReportBuilder: Sendable {
    private struct Entry: Sendable {
        var judge: BatteryJudge?
        var latest: (level: BatteryLevel?, time: PassTime, temperature: Double?, source: TelemetrySource)?
        var readings = 0
    }

    private var entries: [Int: Entry] = [:]
    private let beacons: [ExpectedBeacon]
    /// The beacons the manifest expects telemetry from, by index: each has a report.
    private let expecting: [Int]

    public init(beacons: [ExpectedBeacon]) {
        self.beacons = beacons
        expecting = beacons.indices.filter { beacons[$0].expectsTelemetry }
    }

    /// Takes a reading of beacon `index` placed at `time` on the pass clock.
    public mutating func take(_ reading: TelemetryReading, beacon index: Int, at time: PassTime) {
        guard beacons.indices.contains(index) else { return }
        var entry = entries[index] ?? Entry(judge: beacons[index].battery?.lowThreshold.map(BatteryJudge.init))
        entry.readings += 1
        _ = entry.judge?.take(reading)
        let level: BatteryLevel? =
            reading.batteryMillivolts.map { .millivolts($0) } ?? reading.batteryPercent.map { .percent($0) }
        entry.latest = (level ?? entry.latest?.level, time, reading.temperature, reading.source)
        entries[index] = entry
    }

    /// The beacons that have a report: those that sent telemetry and those expected to, in order.
    public var reportedBeacons: [Int] {
        Array(Set(expecting).union(entries.keys)).sorted()
    }

    /// The report of beacon `index` at the end of the pass (`end`, pass time); `nil` when the
    /// manifest expects no telemetry from it and none was heard.
    public func report(beacon index: Int, end: PassTime) -> BatteryReport? {
        guard beacons.indices.contains(index) else { return nil }
        let beacon = beacons[index]
        let threshold = beacon.battery?.lowThreshold
        guard let entry = entries[index], let latest = entry.latest else {
            return beacon.expectsTelemetry ? BatteryReport(status: .noTelemetry, threshold: threshold) : nil
        }
        var report = BatteryReport(
            status: .unjudged, threshold: threshold, level: latest.level, heardAt: latest.time,
            age: max(.zero, end - latest.time), temperature: latest.temperature, source: latest.source, readings: entry.readings)
        if let judge = entry.judge {
            switch judge.standing {
            case .unknown: report.status = .otherUnit
            case .ok: report.status = .ok
            case .low: report.status = .low
            }
            if let level = judge.level { report.level = level }
        }
        return report
    }
}
