import BeaconCore
import FleetManifest

/// The beacons to replace on the next visit, per venue, soonest first: what a watch's state
/// file (`verify --watch --state FILE`) knows of each battery's daily medians, read against
/// the manifest's thresholds (`beaconctl fleet batteries`, docs/health.md). A pure function of
/// the manifest, the histories and the day it is asked on.
public struct BatteryReplacementPlan: Sendable {
    public struct Row: Hashable, Sendable {
        public var venueID: String
        public var beaconID: String
        public var name: String?
        public var zone: String?
        public var batteryType: String?
        public var threshold: BatteryLevel
        /// The latest day's median, in the threshold's unit.
        public var level: BatteryLevel?
        /// The latest day with readings (a Unix day for a watch on Unix time).
        public var lastDay: Int?
        public var daysOfHistory: Int
        public var forecast: BatteryForecast
        /// Days from `today` until the trend reaches the threshold (0 once below it).
        public var daysLeft: Double?
        /// Whether to replace it on the next visit: low now, or due within the horizon.
        public var replace: Bool
        public var reason: String
    }

    /// Per venue in manifest order, each venue's beacons soonest first.
    public let rows: [Row]

    /// `today` and the histories' days on the same count (Unix days for a watch on Unix
    /// time); `within`: days ahead a battery due is replaced on this visit rather than the next.
    public init(beacons: [ResolvedBeacon], histories: [String: [BatteryForecast.DailyMedian]], today: Int, within: Double) {
        var rows: [Row] = []
        for beacon in beacons {
            guard let threshold = beacon.battery?.lowThreshold else { continue }
            let days = (histories[beacon.id] ?? []).sorted { $0.day < $1.day }
            let limit = switch threshold {
            case .millivolts(let value): Int(value)
            case .percent(let value): Int(value)
            }
            let forecast = BatteryForecast(history: days, threshold: limit)
            let last = days.last
            let level: BatteryLevel? = last.map { median in
                switch threshold {
                case .millivolts: .millivolts(UInt16(clamping: median.value))
                case .percent: .percent(UInt8(clamping: median.value))
                }
            }
            let isLow = last.map { $0.value < limit } ?? false
            // The forecast counts from the last day with readings; a state file read days later counts from today.
            let daysLeft = isLow ? 0 : forecast.daysLeft.map { max(0, $0 - Double(today - (last?.day ?? today))) }
            let replace = isLow || (daysLeft.map { $0 <= within } ?? false)
            var reason: String
            if last == nil {
                reason = "no telemetry in the state file yet"
            } else if isLow {
                reason = "below \(threshold) at its latest readings"
            } else if let daysLeft, daysLeft < 1 {
                reason = "reached \(threshold) by now, by its trend"
            } else if let daysLeft {
                reason = "reaches \(threshold) in about \(NumberText.count(Int(daysLeft.rounded(.down)), "day")) by its trend"
                    + (beacon.battery?.type?.holdsVoltageUntilTheEnd == true ? " (a lithium cell holds its voltage until shortly before the end: expect less)" : "")
            } else {
                reason = forecast.text
            }
            // Readings a watch has not renewed for a while: the level is as of then.
            if let lastDay = last?.day, today - lastDay >= 2 {
                reason += "; its latest readings are \(NumberText.count(today - lastDay, "day")) old"
            }
            rows.append(Row(
                venueID: beacon.venueID, beaconID: beacon.id, name: beacon.name, zone: beacon.zone,
                batteryType: beacon.battery?.type?.name, threshold: threshold, level: level, lastDay: last?.day,
                daysOfHistory: days.count, forecast: forecast, daysLeft: daysLeft, replace: replace, reason: reason))
        }
        var venueOrder: [String: Int] = [:]
        for row in rows where venueOrder[row.venueID] == nil { venueOrder[row.venueID] = venueOrder.count }
        self.rows = rows.enumerated().sorted { lhs, rhs in
            let (left, right) = (lhs.element, rhs.element)
            if left.venueID != right.venueID { return venueOrder[left.venueID, default: 0] < venueOrder[right.venueID, default: 0] }
            if left.replace != right.replace { return left.replace }
            switch (left.daysLeft, right.daysLeft) {
            case (let l?, let r?) where l != r: return l < r
            case (.some, .none): return true
            case (.none, .some): return false
            default: return lhs.offset < rhs.offset
            }
        }.map(\.element)
    }

    public var toReplace: [Row] { rows.filter(\.replace) }
}
