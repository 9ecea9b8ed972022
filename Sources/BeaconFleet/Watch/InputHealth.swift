/// Whether the watch's input is delivering sightings (docs/verify.md, "Input health"). A
/// broker connection lost, a pipe stalled: silence of the input says nothing of the beacons,
/// so while it lasts no beacon is judged by silence.
public enum InputHealthChange: Hashable, Sendable {
    /// The input stopped delivering, and why (`broker.example:1883: connection lost`).
    case lost(reason: String)
    /// Delivering again (a broker: connected).
    case restored
    /// Delivering, but some of what was sent never arrived (a broker dropped messages for a
    /// slow reader: a gap in a publisher's numbering): `reason` says how many, from where.
    case incomplete(reason: String)
}

/// A change of the input's health as the watch reports it: once when it is lost, once when
/// it is back (repeated failures to reconnect are one loss).
public struct AuditInputEvent: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case lost = "input-lost"
        case restored = "input-restored"
        /// Sightings were lost on the way (the broker's, or the watch's own queue): no beacon
        /// is judged by a silence that includes them.
        case sightingsLost = "sightings-lost"
        /// The watch itself did not run for a while (stopped, suspended, swapping): blind time,
        /// judged as an input loss is, without being one.
        case watchStalled = "watch-stalled"
        /// A receiver's clock disagrees with the watch's by more than the silence (or agrees
        /// again): its sightings are placed on their arrival meanwhile.
        case receiverClock = "receiver-clock"
        /// A bound on what the watch keeps was reached: what is beyond it is counted, and
        /// nothing it concerns is judged on the evidence dropped.
        case boundReached = "bound-reached"

        /// Whether it changes what the input's retained state says (lost or back).
        public var isInputState: Bool { self == .lost || self == .restored }
    }

    /// On the audit's clock.
    public var time: Double
    public var kind: Kind
    /// The input, as given (`mqtt://broker/fleet`, a path).
    public var input: String
    /// Why it was lost; for `restored`, what the loss was.
    public var reason: String
    /// For `restored`: seconds the input was away.
    public var lostFor: Double?
    /// The same moment in Unix time, when the audit's clock can say it; set by the watch.
    public var unixTime: Double?

    public init(time: Double, kind: Kind, input: String, reason: String, lostFor: Double? = nil, unixTime: Double? = nil) {
        self.time = time
        self.kind = kind
        self.input = input
        self.reason = reason
        self.lostFor = lostFor
        self.unixTime = unixTime
    }
}

/// What a receiver says of itself on the broker (its retained status topic; its last will
/// when its box dies): the watch's evidence that a receiver is offline, beside the silence
/// of all its sightings.
public struct ReceiverStatusChange: Hashable, Sendable {
    /// The receiver, named as in its sightings.
    public var receiver: String
    public var online: Bool

    public init(receiver: String, online: Bool) {
        self.receiver = receiver
        self.online = online
    }
}
