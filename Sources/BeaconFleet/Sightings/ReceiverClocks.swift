import BeaconCore

/// Places every sighting on one clock (a verification pass's, a monitor's, a continuous
/// audit's), whatever clock its receiver stamped it with.
///
/// A sighting's time is seconds on its receiver's clock. A receiver whose first sighting
/// carries Unix wall-clock time (at least `wallClockThreshold`) is on the wall clock, which
/// every such receiver shares; any other receiver (a scan's or a recording's elapsed
/// seconds) has a base of its own. The first sighting of a base fixes its offset to the
/// shared clock (that clock's time at that moment), so receivers that started their
/// clocks at different moments never make each other's beacons look silent or early. A
/// receiver keeps the base its first sighting gave it: a jump in its own clock stays a
/// jump. Gaps between one receiver's sightings stay exactly as that receiver measured them.
public struct ReceiverClocks: Sendable {
    /// 1e9 s after the Unix epoch is September 2001: elapsed-time clocks never get there.
    public static let wallClockThreshold = 1e9

    private var wallClockOffset: Double?
    private var receiverOffsets: [String: Double] = [:]
    private let maximumReceivers: Int
    /// The receiver of the previous sighting and its offset: a recording of one receiver
    /// (the common case, millions of sightings) then costs a string comparison, not a hash.
    private var lastReceiver: (name: String, offset: Double)?

    /// Beyond `maximumReceivers` receivers, sightings with wall-clock times are still placed
    /// on the shared wall clock; others cannot be.
    public init(maximumReceivers: Int) {
        self.maximumReceivers = maximumReceivers
    }

    /// Receivers told apart so far.
    public var receivers: Int { receiverOffsets.count }

    /// The sighting's time on the shared clock, which stands at `now` (`nil` before its
    /// first moment: the sighting then starts the clock at its own time). `nil` for a
    /// receiver beyond `maximumReceivers` whose time is not wall-clock time.
    public mutating func time(of sighting: Sighting, now: Double?) -> Double? {
        if let last = lastReceiver, last.name == sighting.receiver { return sighting.time + last.offset }
        let isWallClock = sighting.time >= Self.wallClockThreshold
        let offset: Double
        if let known = receiverOffsets[sighting.receiver] {
            offset = known
        } else if receiverOffsets.count < maximumReceivers {
            offset = isWallClock ? wallOffset(joining: sighting.time, now: now) : (now ?? sighting.time) - sighting.time
            receiverOffsets[sighting.receiver] = offset
        } else if isWallClock {
            // Beyond the receivers told apart, on the shared wall clock: its offset is the
            // wall clock's, which never changes once set, so it is remembered as the last.
            offset = wallOffset(joining: sighting.time, now: now)
        } else {
            return nil
        }
        lastReceiver = (sighting.receiver, offset)
        return sighting.time + offset
    }

    private mutating func wallOffset(joining time: Double, now: Double?) -> Double {
        if let wallClockOffset { return wallClockOffset }
        let offset = (now ?? time) - time
        wallClockOffset = offset
        return offset
    }
}
