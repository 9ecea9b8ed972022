import BeaconCore

/// A one-shot pass's clock as the beacons see it: the pass's time less the time its input
/// said it was not delivering (a broker connecting, lost, reconnecting). Silence while the
/// input is blind says nothing of the beacons, so it must not bring their timeout nearer
/// nor close their settle windows (docs/verify.md, "Inputs and time").
///
/// Blind time is bounded too: a pass blind for as long as its timeout gives up
/// (`blindLimitReached`) rather than wait for an input that may never come back.
struct ListeningClock: Sendable {
    /// Where the input stopped delivering; `nil` while it delivers.
    private(set) var blindSince: PassTime?
    /// Blind time of the spells that ended.
    private var pastBlindness: Duration = .zero
    /// Whether it was ever blind: a pass that never was (a scan, a file, a broker that stayed
    /// up) reads every sighting's time as it is, with no arithmetic.
    private var everBlind: Bool
    private(set) var everDelivered: Bool
    /// The last reason the input gave for not delivering.
    private(set) var lastReason: String?

    /// `startsBlind`: the input says when it delivers (a broker), so nothing is seen until it
    /// does; otherwise it delivers from the start (a scan, a pipe, a file).
    init(startsBlind: Bool) {
        blindSince = startsBlind ? .origin : nil
        everBlind = startsBlind
        everDelivered = !startsBlind
    }

    var isBlind: Bool { blindSince != nil }

    /// The input's health changed at `time` on the pass's clock.
    mutating func take(_ change: InputHealthChange, at time: PassTime) {
        switch change {
        case .lost(let reason):
            lastReason = reason
            everBlind = true
            if blindSince == nil { blindSince = time }
        case .restored, .incomplete:
            // Delivering again (`incomplete`: delivering, with some messages lost on the way,
            // which the pass's loss count says).
            everDelivered = true
            if let since = blindSince {
                pastBlindness += max(.zero, time - since)
                blindSince = nil
            }
        }
    }

    /// The time the input was blind by `time`, the current spell included.
    func blindness(by time: PassTime) -> Duration {
        pastBlindness + (blindSince.map { max(.zero, time - $0) } ?? .zero)
    }

    /// `time` on the beacons' clock: blind time taken off, so it stands still while blind.
    /// (A sighting placed before the latest spell ended reads a little early; the engine
    /// never moves back, so it counts at the latest time, as any late sighting does.)
    func listening(at time: PassTime) -> PassTime {
        everBlind ? time - blindness(by: time) : time
    }

    /// Whether the input has been blind for `limit` in all by `time`, and still is.
    func blindLimitReached(_ limit: Duration, by time: PassTime) -> Bool {
        isBlind && blindness(by: time) >= limit
    }

    /// What the result says of it; `nil` when the input never was blind.
    func report(at time: PassTime) -> InputBlindness? {
        let blind = blindness(by: time)
        guard blind > .zero || isBlind else { return nil }
        return InputBlindness(seconds: blind.instantSeconds, atEnd: isBlind, neverDelivered: !everDelivered, lastReason: lastReason)
    }
}
