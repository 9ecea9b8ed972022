import BeaconCore

/// The rules that turn sightings into verdicts. Spans are `Duration`s (the timeout's `nil`:
/// until the input ends).
///
/// The reasoning behind each default is written up in docs/verify.md; in short:
/// - a beacon is judged only after `requiredSightings` receptions, so one stray packet
///   never passes or fails it;
/// - after that it is listened to for a settle window (`settleIntervals` of its own
///   advertising intervals, at least `minimumSettle`) so that a second device sending the
///   same identity is caught before the verdict;
/// - its advertising interval is estimated from the shortest gap between receptions,
///   because a scanner misses packets (duty cycle, collisions, channel hopping) and a
///   missed packet can only lengthen a gap, never shorten it.
public struct VerificationPolicy: Hashable, Sendable {
    /// Receptions of a beacon needed before it can be judged (K).
    public var requiredSightings: Int
    /// How long to listen, from the start, before beacons still undecided are judged on
    /// what was heard; a beacon never heard by then is missing. `nil` waits for the end of
    /// the input.
    public var timeout: Duration?
    /// The settle window after the K-th reception, in the beacon's advertising intervals.
    public var settleIntervals: Double
    /// The shortest settle window, whatever the interval.
    public var minimumSettle: Duration
    /// A gap between two receptions counts as "one advertising interval" when it is at most
    /// `slowFactor` × the configured interval + the largest advertising delay. 1.5 sits
    /// halfway between one interval (the beacon heard twice in a row) and two (one
    /// packet missed), so a single such gap proves the beacon is not slow.
    public var slowFactor: Double
    /// Lost packets a healthy beacon would need to explain the gaps heard, above which it is
    /// called slow before the timeout. A gap spanning `m` intervals needs `m − 1` packets in
    /// a row lost; `n` gaps all that long happen to a healthy beacon with per-packet loss
    /// `p` with probability `p^(n(m−1))`. 14 keeps that under 1 in 10,000 at 50 % loss
    /// (`assumedLoss`): a beacon at 1.28 s instead of 100 ms is called slow after 2 gaps,
    /// one at 200 ms after 14. A receiver seen to lose more of the other beacons' packets
    /// needs proportionally more (`ReceiverReception`): at 90 % loss, 14 × ln 2 / ln(1/0.9)
    /// ≈ 93 packets.
    public var slowEvidenceLosses: Int
    /// The per-packet loss `slowEvidenceLosses` is counted at, and the least any receiver is
    /// taken to lose.
    public static let assumedLoss = 0.5
    /// Receptions closer together than this are one advertising event heard twice (a
    /// scanner that changes channel during the event hears it on two of 37/38/39).
    public var sameEventWindow: Duration
    /// What a measured power of `auto` accepts when the value the advertiser computed is not
    /// known: what a real beacon's 1 m RSSI can be.
    public var plausibleMeasuredPower: ClosedRange<Int>

    /// advDelay: the 0–10 ms pseudo-random delay a controller adds to every advertising
    /// event (Core v5.4 Vol 6 Part B 4.4.2.2.1), so consecutive events are up to 10 ms
    /// further apart than the interval.
    public static let maximumAdvertisingDelay = Duration.milliseconds(10)

    public init(
        requiredSightings: Int = 3, timeout: Duration? = .seconds(10), settleIntervals: Double = 3,
        minimumSettle: Duration = .milliseconds(300), slowFactor: Double = 1.5, slowEvidenceLosses: Int = 14,
        sameEventWindow: Duration = .milliseconds(10), plausibleMeasuredPower: ClosedRange<Int> = MeasuredPower.plausibleRange
    ) {
        self.requiredSightings = requiredSightings
        self.timeout = timeout
        self.settleIntervals = settleIntervals
        self.minimumSettle = minimumSettle
        self.slowFactor = slowFactor
        self.slowEvidenceLosses = slowEvidenceLosses
        self.sameEventWindow = sameEventWindow
        self.plausibleMeasuredPower = plausibleMeasuredPower
    }

    /// How long a beacon advertising every `intervalMilliseconds` is still listened to after
    /// its K-th reception.
    public func settleWindow(intervalMilliseconds: Int) -> Duration {
        max(minimumSettle, Self.span(intervals: settleIntervals, intervalMilliseconds: intervalMilliseconds))
    }

    /// The longest gap that still counts as one advertising interval of `intervalMilliseconds`.
    public func slowThreshold(intervalMilliseconds: Int) -> Duration {
        Self.span(intervals: slowFactor, intervalMilliseconds: intervalMilliseconds) + Self.maximumAdvertisingDelay
    }

    /// `intervals` advertising intervals of `intervalMilliseconds`, to the nearest
    /// nanosecond: a factor the user set (NaN, negative, absurd) gives the longest span a
    /// pass can tell rather than a trap (`problem` refuses such settings beforehand).
    private static func span(intervals: Double, intervalMilliseconds: Int) -> Duration {
        let seconds = intervals * Double(intervalMilliseconds) / 1000
        return Duration(checkedSeconds: seconds, within: PassTime.acceptedSeconds)
            ?? .seconds(Int64(seconds < 0 ? PassTime.acceptedSeconds.lowerBound : PassTime.acceptedSeconds.upperBound))
    }

    /// How many packets in a row a beacon advertising every `intervalMilliseconds` must
    /// have lost, at the least, for two receptions to be `gap` apart: the fewest intervals
    /// (each up to one advertising delay longer) that cover the gap, minus one.
    public func lostPackets(inGap gap: Duration, intervalMilliseconds: Int) -> Int {
        let longestInterval = Duration.milliseconds(intervalMilliseconds) + Self.maximumAdvertisingDelay
        guard gap > .zero, longestInterval > .zero else { return 0 }
        // Bounded so that an absurd gap (a source's clock jumping) cannot overflow Int.
        return Int(saturating: min(gap / longestInterval, 1e9), rounding: .up) - 1
    }

    /// What is wrong with these settings, in a sentence naming the value; `nil` when usable.
    public var problem: String? {
        if requiredSightings < 1 { return "required sightings must be at least 1; got \(requiredSightings)" }
        if let timeout, timeout <= .zero { return "the timeout must be a positive number of seconds; got \(timeout.instantSeconds)" }
        if !(settleIntervals >= 0) || minimumSettle < .zero || !settleIntervals.isFinite {
            return "the settle window must be zero or more; got \(settleIntervals) intervals, at least \(minimumSettle.instantSeconds) s"
        }
        if !(slowFactor >= 1) || !slowFactor.isFinite { return "the slow factor must be at least 1; got \(slowFactor)" }
        if slowEvidenceLosses < 1 { return "slow evidence must be at least 1 lost packet; got \(slowEvidenceLosses)" }
        if sameEventWindow < .zero {
            return "the same-event window must be zero or more; got \(sameEventWindow.instantSeconds) s"
        }
        return nil
    }
}
