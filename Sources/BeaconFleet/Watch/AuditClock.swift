import BeaconCore

/// Places every sighting on the audit's one clock, whatever clock its receiver stamped it with.
///
/// A sighting's time is seconds on its receiver's clock. Unix wall-clock times (at least
/// `wallClockThreshold`) are comparable across receivers and share one time base; any other
/// time (a scan's or a recording's elapsed seconds) is a base of its own receiver. The first
/// sighting of a base fixes its offset to the audit's clock (the audit's time at that
/// moment), so gaps between a receiver's sightings are measured on that receiver's own clock,
/// and receivers that started their clocks at different moments never make each other's
/// beacons look silent.
struct AuditClock: Sendable {
    /// 1e9 s after the Unix epoch is September 2001: elapsed-time clocks never get there.
    static let wallClockThreshold = 1e9

    private enum TimeBase: Hashable {
        case wallClock
        case receiver(String)
    }

    private var offsets: [TimeBase: Double] = [:]
    private let maximumReceivers: Int
    private var receiverBases = 0

    init(maximumReceivers: Int) {
        self.maximumReceivers = maximumReceivers
    }

    /// The sighting's time on the audit's clock, which stands at `now` (`nil` before the
    /// audit's first moment: the sighting then starts the clock at its own time). `nil` for a
    /// receiver with a clock of its own beyond `maximumReceivers`, which cannot be placed.
    mutating func auditTime(of sighting: Sighting, now: Double?) -> Double? {
        let base: TimeBase = sighting.time >= Self.wallClockThreshold ? .wallClock : .receiver(sighting.receiver)
        if let offset = offsets[base] { return sighting.time + offset }
        if case .receiver = base {
            guard receiverBases < maximumReceivers else { return nil }
            receiverBases += 1
        }
        let offset = (now ?? sighting.time) - sighting.time
        offsets[base] = offset
        return sighting.time + offset
    }
}
