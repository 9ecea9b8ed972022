/// Smooths a beacon's RSSI with a trimmed running average: the samples of the last
/// `window` seconds (at most `maximumSamples` of them) are sorted, `trimFraction` of them is
/// dropped at each end, and the rest averaged. The default keeps the middle fifth (40 % off
/// each end): a median that still averages.
///
/// Why so heavily trimmed: BLE RSSI is not Gaussian around the path-loss curve. An iBeacon
/// sends each packet on three channels, and at a given spot each channel fades on its own
/// (multipath): one channel in a 10–20 dB null is a third of the packets, far more than the
/// 10 % a light trim (Apple's AirLocate calibration, the Android Beacon Library's running
/// average) removes, so a lightly trimmed mean follows the null and the distance jumps.
/// Keeping the middle fifth ignores up to 40 % of wild packets on either side. It costs
/// little precision when nothing goes wrong (on Gaussian noise the middle-fifth mean of 100
/// samples is about 1.2 times as noisy as the plain mean, a fraction of a dB).
///
/// Latency: after a step in the level (the receiver moved), the estimate does not move
/// until the new samples are more than `trimFraction` of the window (they are trimmed away
/// as outliers), then crosses over and is on the new level once the old samples are fewer
/// than `trimFraction`: `settlingTime` = (1 − trimFraction) · window, 6 s for the defaults
/// (a plain mean drifts over the whole window; a 10 % trim settles after 9 s).
///
/// Samples are averaged in dBm (a geometric mean of power), which matches the log-normal
/// shadowing the distance model assumes.
///
/// Time is injected: every call says what time it is on the caller's clock (a `PassTime`),
/// so the filter is deterministic and never reads a clock itself.
public struct RSSIFilter: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Samples older than this are forgotten.
        public var window: Duration
        /// The newest samples kept, whatever their age: bounds memory and cost for a beacon
        /// advertising far faster than the usual 10 Hz.
        public var maximumSamples: Int
        /// The share of samples dropped at each end before averaging (0 = plain mean).
        public var trimFraction: Double

        /// 10 s, 100 samples (10 s of a 100 ms beacon), 40 % off each end.
        public init(window: Duration = .seconds(10), maximumSamples: Int = 100, trimFraction: Double = 0.4) {
            self.window = window
            self.maximumSamples = maximumSamples
            self.trimFraction = trimFraction
        }

        /// The time after a step in the level until the estimate is on the new level, for a
        /// step larger than the spread of the samples and packets arriving steadily.
        public var settlingTime: Duration { window * (1 - trimFraction) }

        /// Whether the values make sense; a filter built from other values clamps them.
        public var isValid: Bool {
            window > .zero && maximumSamples >= 1
                && trimFraction.isFinite && trimFraction >= 0 && trimFraction < 0.5
        }
    }

    public let configuration: Configuration
    /// Samples oldest first; `head` marks the oldest still kept, so expiring is O(1) per sample.
    private var times: [PassTime] = []
    private var values: [Double] = []
    private var head = 0

    /// Out-of-range configuration values are clamped: a window of at least 1 ms, at least
    /// one sample, a trim fraction in 0..<0.5.
    public init(configuration: Configuration = Configuration()) {
        var clamped = configuration
        if clamped.window <= .zero { clamped.window = .milliseconds(1) }
        clamped.maximumSamples = max(1, clamped.maximumSamples)
        if !(clamped.trimFraction.isFinite && clamped.trimFraction >= 0) { clamped.trimFraction = 0 }
        clamped.trimFraction = min(clamped.trimFraction, 0.49)
        self.configuration = clamped
    }

    /// Samples currently inside the window (as of the last `add` or `expire`).
    public var sampleCount: Int { times.count - head }

    /// Adds one RSSI reading taken at `time`. Non-finite readings are ignored.
    public mutating func add(_ rssi: Double, at time: PassTime) {
        guard rssi.isFinite else { return }
        times.append(time)
        values.append(rssi)
        expire(at: time)
        let excess = sampleCount - configuration.maximumSamples
        if excess > 0 { head += excess }
        compactIfWorthwhile()
    }

    /// Forgets the samples older than the window as seen at `time`.
    public mutating func expire(at time: PassTime) {
        let oldestKept = time - configuration.window
        while head < times.count, times[head] < oldestKept {
            head += 1
        }
        compactIfWorthwhile()
    }

    /// The trimmed mean of the samples inside the window at `time`, or `nil` when there
    /// are none. Does not change the filter: call `expire(at:)` to release memory.
    public func value(at time: PassTime) -> Double? {
        Self.trimmedMean(samples(at: time), trimFraction: configuration.trimFraction)
    }

    /// The readings inside the window at `time`, oldest first.
    public func samples(at time: PassTime) -> [Double] {
        let oldestKept = time - configuration.window
        var inside: [Double] = []
        inside.reserveCapacity(sampleCount)
        for index in head..<times.count where times[index] >= oldestKept && times[index] <= time {
            inside.append(values[index])
        }
        return inside
    }

    /// The mean of `samples` without the lowest and highest `trimFraction` of them
    /// (rounded down: with 40 % and fewer than 3 samples, none is dropped).
    public static func trimmedMean(_ samples: [Double], trimFraction: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let fraction = trimFraction.isFinite ? min(max(trimFraction, 0), 0.49) : 0
        let trimmed = Int(Double(sorted.count) * fraction)
        let kept = sorted[trimmed..<(sorted.count - trimmed)]
        return kept.reduce(0, +) / Double(kept.count)
    }

    /// The standard error of the mean of `samples`, dB: their standard deviation over the
    /// square root of their count. `nil` with fewer than two. Ranging widens a distance's
    /// interval by it (`DistanceUncertainty`): few samples, or samples spread wide, say less.
    public static func standardError(_ samples: [Double]) -> Double? {
        guard samples.count >= 2 else { return nil }
        let count = Double(samples.count)
        let mean = samples.reduce(0, +) / count
        let variance = samples.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (count - 1)
        return (variance / count).squareRoot()
    }

    /// Drops expired storage once it outweighs the live samples, keeping appends amortised O(1).
    private mutating func compactIfWorthwhile() {
        guard head > 32, head * 2 > times.count else { return }
        times.removeFirst(head)
        values.removeFirst(head)
        head = 0
    }
}
