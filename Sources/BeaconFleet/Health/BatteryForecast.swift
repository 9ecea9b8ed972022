import BeaconCore

/// Days until a beacon's battery reaches its threshold, from its trend: the median of each
/// day's readings (one dip or one warm afternoon weighs as much as any other reading of the
/// day, no more), and a least-squares line through those daily medians. A forecast needs
/// medians on at least `minimumDays` different days; before that it says so rather than
/// extrapolate from hours. A pure function of the history: the watch keeps the history
/// (bounded, in its state file), reports call this.
public enum BatteryForecast: Hashable, Sendable {
    /// Fewer than `minimumDays` days with readings.
    /// (`daysLeft` is never more than `longestForecastDays`: a slighter trend is `notDeclining`.)
    case notEnoughHistory(days: Int)
    /// The trend does not decline (a fresh cell, a mains-powered beacon): no date to give.
    case notDeclining
    /// Already at or below the threshold by the trend.
    case reached
    /// Days from the latest day with readings until the trend crosses the threshold.
    case days(Double)

    public static let minimumDays = 3
    /// Ten years: no beacon cell lasts longer.
    public static let longestForecastDays = 3650.0

    /// One day's median, in the threshold's unit (millivolts or percent); `day` counts days
    /// (Unix days for a watch tied to Unix time).
    public struct DailyMedian: Hashable, Sendable, Codable {
        public var day: Int
        public var value: Int

        public init(day: Int, value: Int) {
            self.day = day
            self.value = value
        }
    }

    public init(history: [DailyMedian], threshold: Int) {
        let days = history.sorted { $0.day < $1.day }
        guard days.count >= Self.minimumDays, let last = days.last else {
            self = .notEnoughHistory(days: days.count)
            return
        }
        // Least squares through (day, median), days counted from the latest.
        let xs = days.map { Double($0.day - last.day) }
        let ys = days.map { Double($0.value) }
        let meanX = xs.reduce(0, +) / Double(xs.count)
        let meanY = ys.reduce(0, +) / Double(ys.count)
        var covariance = 0.0
        var variance = 0.0
        for (x, y) in zip(xs, ys) {
            covariance += (x - meanX) * (y - meanY)
            variance += (x - meanX) * (x - meanX)
        }
        guard variance > 0 else {
            self = .notEnoughHistory(days: 1)
            return
        }
        let slope = covariance / variance
        let atLast = meanY + slope * (0 - meanX)
        if atLast <= Double(threshold) {
            self = .reached
        } else if !(slope < 0) {
            self = .notDeclining
        } else {
            let days = (Double(threshold) - atLast) / slope
            // Beyond the longest a beacon's cell lasts, a trend this slight is no decline
            // worth a date (and every number shown stays a small one).
            self = days.isFinite && days <= Self.longestForecastDays ? .days(days) : .notDeclining
        }
    }

    /// "in 42 days", "not enough history (2 of 3 days)", …
    public var text: String {
        switch self {
        case .notEnoughHistory(let days): "not enough history (\(days) of \(Self.minimumDays) days)"
        case .notDeclining: "no decline"
        case .reached: "at the threshold by its trend"
        case .days(let days): "in \(NumberText.count(Int(days.rounded(.down)), "day"))"
        }
    }

    /// Days left, when the forecast gives a number (0 once reached).
    public var daysLeft: Double? {
        switch self {
        case .days(let days): days
        case .reached: 0
        case .notEnoughHistory, .notDeclining: nil
        }
    }
}

/// A beacon's daily medians as the watch collects them: today's readings until the day
/// turns, then their median appended; at most `maximumDays` kept (the forecast weighs recent
/// weeks, and the state file stays small).
public struct BatteryHistory: Hashable, Sendable {
    public private(set) var days: [BatteryForecast.DailyMedian]
    private var currentDay: Int?
    /// Today's readings, bounded: a median of the first `maximumReadingsPerDay` is as good.
    private var today: [Int] = []

    public static let maximumDays = 60
    static let maximumReadingsPerDay = 1440

    public init(days: [BatteryForecast.DailyMedian] = []) {
        self.days = Array(days.sorted { $0.day < $1.day }.suffix(Self.maximumDays))
    }

    public mutating func add(_ value: Int, day: Int) {
        if let currentDay, day != currentDay { closeDay() }
        currentDay = day
        if today.count < Self.maximumReadingsPerDay { today.append(value) }
    }

    /// The days so far with today's median counted as it stands.
    public var daysIncludingToday: [BatteryForecast.DailyMedian] {
        guard let currentDay, !today.isEmpty else { return days }
        let sorted = today.sorted()
        var all = days.filter { $0.day != currentDay }
        all.append(.init(day: currentDay, value: sorted[sorted.count / 2]))
        return all
    }

    private mutating func closeDay() {
        days = Array(daysIncludingToday.suffix(Self.maximumDays))
        today = []
        currentDay = nil
    }
}
