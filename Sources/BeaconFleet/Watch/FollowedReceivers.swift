import BeaconCore

/// The receivers a continuous audit follows (docs/verify.md, "Receivers"): each one's status
/// and the moments that decide it, in places numbered from 0 that never move, so that a
/// beacon's track keeps the number of each receiver that hears it and a reception finds its
/// receiver without a lookup by name.
///
/// Bounded: at most `maximum` receivers; the reports of any beyond are counted by the audit,
/// not followed.
struct FollowedReceivers: Sendable {
    struct Receiver: Sendable {
        var name: String
        /// `nil` only while being made.
        var state: ReceiverState?
        /// Its latest sighting, on the audit's clock.
        var lastSeen: PassTime?
        /// The latest sign of life (a sighting, or its status saying online): its silence
        /// counts from here.
        var lastActive: PassTime
        /// When it went offline (its latest offline; `nil`: never): a sighting it sent before
        /// then, arriving late (its last ones, behind its last will), does not bring it back.
        var offlineSince: PassTime?
        /// Offline because its status said so (not by silence).
        var offlineByStatus = false
        /// The deadline it has in the audit's receiver queue, if any.
        var queuedDue: PassTime?
        /// Some beacon whose silence has passed waits for a sighting of this receiver, the
        /// evidence that the receiver still hears (`ContinuousAudit`'s awaiting beacons).
        var awaited = false
    }

    let maximum: Int
    private(set) var all: [Receiver] = []
    private var places: [String: Int] = [:]

    init(maximum: Int) {
        self.maximum = maximum
    }

    var count: Int { all.count }

    /// Read in place (`_read`): a reception reads a field or two, never a copy.
    subscript(place: Int) -> Receiver {
        _read { yield all[place] }
        _modify { yield &all[place] }
    }

    /// The place of the receiver named `name`, if followed.
    func place(of name: String) -> Int? {
        places[name]
    }

    /// The place of the receiver whose status topic level is `level` (`MQTTTopics.level`:
    /// the same as its name unless the name holds `/`, `+`, `#` or control characters).
    func place(ofTopicLevel level: String) -> Int? {
        if let place = places[level] { return place }
        return all.firstIndex { MQTTTopics.level($0.name) == level }
    }

    /// Makes a place for a receiver first heard of at `time`; `nil` when every place is taken.
    mutating func add(_ name: String, at time: PassTime) -> Int? {
        guard all.count < maximum else { return nil }
        all.append(Receiver(name: name, lastActive: time))
        places[name] = all.count - 1
        return all.count - 1
    }
}
