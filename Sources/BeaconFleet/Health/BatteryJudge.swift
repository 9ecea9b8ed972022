import BeaconCore
import FleetManifest

/// Judges one beacon's battery against its manifest threshold, reading by reading: a pure
/// state machine (no clock, no I/O), used alike by the one-shot pass and the watch.
///
/// A reading alone does not decide: a cell's voltage dips while the radio transmits and
/// with the cold, so a beacon near its threshold would flap. The judge takes the median of
/// the last `window` readings in the threshold's unit, calls the battery low when that
/// median is below the threshold, and ok again only when it is at least `margin` above it
/// (hysteresis): a reading wavering around the threshold changes the standing once, and a
/// replaced battery (a jump no cell makes by itself) clears it at once.
public struct BatteryJudge: Hashable, Sendable {
    public enum Standing: String, Hashable, Sendable {
        /// Nothing readable in the threshold's unit yet.
        case unknown
        case ok
        case low
    }

    /// What a reading changed.
    public enum Transition: Hashable, Sendable {
        case becameLow
        case recovered
    }

    public let threshold: BatteryLevel
    public private(set) var standing = Standing.unknown
    /// The last readings in the threshold's unit (millivolts or percent), oldest first.
    public private(set) var recent: [Int] = []

    /// Readings the median is taken over: a few TLM periods, so one dip cannot page.
    public static let window = 5
    /// How far above the threshold the median must come back before the battery is ok
    /// again: 0.1 V, or 5 points of percent.
    public static let marginMillivolts = 100
    public static let marginPercent = 5
    /// A reading this far above the median, and above the threshold by the margin, is a new
    /// cell (no cell recovers 0.3 V or 30 points by itself): ok at once, the old readings
    /// dropped, rather than after the median climbs.
    public static let replacementJumpMillivolts = 300
    public static let replacementJumpPercent = 30

    public init(threshold: BatteryLevel) {
        self.threshold = threshold
    }

    /// The reading's value in the threshold's unit; `nil` when it gives none (a percentage
    /// against a threshold in volts, or the other way round).
    public func value(of reading: TelemetryReading) -> Int? {
        switch threshold {
        case .millivolts: reading.batteryMillivolts.map(Int.init)
        case .percent: reading.batteryPercent.map(Int.init)
        }
    }

    /// The median of the readings kept; `nil` before the first.
    public var median: Int? {
        guard !recent.isEmpty else { return nil }
        let sorted = recent.sorted()
        return sorted[sorted.count / 2]
    }

    /// The level the judge stands on, in the threshold's unit.
    public var level: BatteryLevel? {
        median.map { value in
            switch threshold {
            case .millivolts: .millivolts(UInt16(clamping: value))
            case .percent: .percent(UInt8(clamping: value))
            }
        }
    }

    /// Starts from a level the judge stood on before (a restarted watch's state file: the
    /// latest day's median), without a transition: a battery already low is not paged again
    /// for a restart.
    public mutating func restore(_ value: Int) {
        let limit = switch threshold {
        case .millivolts(let millivolts): Int(millivolts)
        case .percent(let percent): Int(percent)
        }
        recent = [value]
        standing = value < limit ? .low : .ok
    }

    /// Takes a reading; returns what it changed, if anything. Readings without a value in
    /// the threshold's unit change nothing.
    public mutating func take(_ reading: TelemetryReading) -> Transition? {
        guard let value = value(of: reading) else { return nil }
        let (limit, margin, jump) = switch threshold {
        case .millivolts(let millivolts): (Int(millivolts), Self.marginMillivolts, Self.replacementJumpMillivolts)
        case .percent(let percent): (Int(percent), Self.marginPercent, Self.replacementJumpPercent)
        }
        if let before = median, value >= before + jump, value >= limit + margin {
            recent = [value]
            defer { standing = .ok }
            return standing == .low ? .recovered : nil
        }
        recent.append(value)
        if recent.count > Self.window { recent.removeFirst(recent.count - Self.window) }
        guard let median else { return nil }
        switch standing {
        case .unknown:
            standing = median < limit ? .low : .ok
            return standing == .low ? .becameLow : nil
        case .ok:
            guard median < limit else { return nil }
            standing = .low
            return .becameLow
        case .low:
            guard median >= limit + margin else { return nil }
            standing = .ok
            return .recovered
        }
    }
}
