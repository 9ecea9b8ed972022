import BeaconCore

/// Places every sighting on one clock (a verification pass's, a continuous audit's),
/// whatever clock its receiver stamped it with.
///
/// A sighting's time is seconds on its receiver's clock. Unix wall-clock times (at least
/// `wallClockThreshold`) are comparable across receivers and share one time base; any other
/// time (a scan's or a recording's elapsed seconds) is a base of its own receiver. The first
/// sighting of a base fixes its offset to the shared clock (that clock's time at that
/// moment), so receivers that started their clocks at different moments never make each
/// other's beacons look silent or early. Gaps between one receiver's sightings stay exactly
/// as that receiver measured them.
public struct ReceiverClocks: Sendable {
    /// 1e9 s after the Unix epoch is September 2001: elapsed-time clocks never get there.
    public static let wallClockThreshold = 1e9

    private var wallClockOffset: Double?
    private var receiverOffsets: [String: Double] = [:]
    private let maximumReceivers: Int
    /// The receiver of the previous sighting and its offset: a recording of one receiver
    /// (the common case, millions of sightings) then costs a string comparison, not a hash.
    private var lastReceiver: (name: String, offset: Double)?

    public init(maximumReceivers: Int) {
        self.maximumReceivers = maximumReceivers
    }

    /// Receivers with clocks of their own seen so far.
    public var receiverBases: Int { receiverOffsets.count }

    /// The sighting's time on the shared clock, which stands at `now` (`nil` before its
    /// first moment: the sighting then starts the clock at its own time). `nil` for a
    /// receiver with a clock of its own beyond `maximumReceivers`, which cannot be placed.
    public mutating func time(of sighting: Sighting, now: Double?) -> Double? {
        if sighting.time >= Self.wallClockThreshold {
            let offset = wallClockOffset ?? (now ?? sighting.time) - sighting.time
            wallClockOffset = offset
            return sighting.time + offset
        }
        if let last = lastReceiver, last.name == sighting.receiver { return sighting.time + last.offset }
        let offset: Double
        if let known = receiverOffsets[sighting.receiver] {
            offset = known
        } else {
            guard receiverOffsets.count < maximumReceivers else { return nil }
            offset = (now ?? sighting.time) - sighting.time
            receiverOffsets[sighting.receiver] = offset
        }
        lastReceiver = (sighting.receiver, offset)
        return sighting.time + offset
    }
}
