import BeaconCore

/// Where a beacon stands in a continuous audit (`verify --watch`).
public enum AuditState: String, CaseIterable, Hashable, Sendable {
    /// Heard recently from one device, with the expected measured power.
    case ok
    /// Not heard for the silence period on any receiver.
    case missing
    /// A recently heard device advertises a measured power the manifest does not expect.
    case wrongPower = "wrong-power"
    /// Recently heard from two or more devices.
    case duplicate
    /// An identity with a fleet UUID that the manifest does not list, heard recently.
    case unexpected
    /// An unexpected identity not heard for the silence period.
    case gone
    /// Every receiver that usually hears the beacon is offline: nothing can be said of it
    /// (not evidence that it is fine, nor that it is gone).
    case unmonitored

    /// States a manifest beacon can be in.
    public static let beaconStates: [AuditState] = [.ok, .missing, .wrongPower, .duplicate, .unmonitored]
}

/// What one receiver made of a beacon: how often and how strongly it heard it lately.
public struct AuditReceiverSummary: Hashable, Sendable {
    public var receiver: String
    /// The latest reception's RSSI; `nil` when the controller reported none.
    public var latestRSSI: Int?
    /// Receptions by this receiver since the audit started.
    public var sightings: Int
    /// The latest reception, on the audit's clock.
    public var lastSeen: Double

    public init(receiver: String, latestRSSI: Int?, sightings: Int, lastSeen: Double) {
        self.receiver = receiver
        self.latestRSSI = latestRSSI
        self.sightings = sightings
        self.lastSeen = lastSeen
    }
}

/// A change of state: emitted once when a beacon's (or unexpected identity's) state is
/// first known, then at every change, never while it stays the same.
public struct AuditEvent: Hashable, Sendable {
    /// When the change happened, on the audit's clock (docs/verify.md, "--watch").
    public var time: Double
    /// The manifest's beacon id; `nil` for an unexpected identity.
    public var beaconID: String?
    public var venueID: String?
    public var identity: BeaconIdentity
    /// `nil` for the first state.
    public var previous: AuditState?
    public var state: AuditState
    /// Why, in words.
    public var reason: String
    /// The receivers that heard it within the silence period, by name.
    public var receivers: [AuditReceiverSummary]
    /// The device addresses heard sending it within the silence period.
    public var addresses: [String]
    /// Its latest reception on any receiver, on the audit's clock; `nil` when never heard.
    public var lastSeen: Double?
    /// The same moment in Unix time, when the audit's clock can say it (a live watch, or a
    /// recording stamped with Unix time); set by the watch.
    public var lastSeenUnixTime: Double?

    public init(
        time: Double, beaconID: String?, venueID: String?, identity: BeaconIdentity, previous: AuditState?,
        state: AuditState, reason: String, receivers: [AuditReceiverSummary], addresses: [String],
        lastSeen: Double? = nil, lastSeenUnixTime: Double? = nil
    ) {
        self.lastSeen = lastSeen
        self.lastSeenUnixTime = lastSeenUnixTime
        self.time = time
        self.beaconID = beaconID
        self.venueID = venueID
        self.identity = identity
        self.previous = previous
        self.state = state
        self.reason = reason
        self.receivers = receivers
        self.addresses = addresses
    }
}

/// The audit's counters, for periodic statistics and the final summary.
public struct AuditStatistics: Hashable, Sendable {
    /// Sightings taken in (all of them, tracked or not).
    public var sightings = 0
    /// Sightings of UUIDs outside the fleet, and of manifest beacons outside the audit.
    public var ignoredSightings = 0
    /// Sightings of unexpected identities beyond the tracked ones: counted, not told apart.
    public var untrackedUnexpectedSightings = 0
    /// Sightings from receivers beyond the tracked ones (each has its own clock): counted, not
    /// placed in time; the beacons they alone heard last are `unmonitored`, never missing.
    public var untrackedReceiverSightings = 0
    /// Receivers' clocks found to disagree with the watch's by more than the silence, or to
    /// agree again (`receiver-clock` events).
    public var receiverClockEvents = 0
    /// Times the watch itself did not run for a while (`watch-stalled` events).
    public var stalls = 0
    /// Manifest beacons by state; beacons not yet known (never heard, silence not yet over) are in `unknown`.
    public var beaconStates: [AuditState: Int] = [:]
    public var unknownBeacons = 0
    /// Unexpected identities heard within the silence period.
    public var unexpectedNow = 0
    /// Unexpected identities tracked that are gone.
    public var unexpectedGone = 0
    /// Receivers known to the audit (heard, or that published a status), by their status.
    public var receiversOnline = 0
    public var receiversOffline = 0
    /// Sightings and statuses of receivers beyond the ones followed
    /// (`ContinuousAudit.Configuration.maximumReceivers`): counted, their status not followed.
    public var unfollowedReceiverReports = 0

    public init() {}

    /// Every manifest beacon ok and no unexpected identity on the air.
    public var allOK: Bool {
        unknownBeacons == 0 && unexpectedNow == 0 && beaconStates.allSatisfy { $0.key == .ok || $0.value == 0 }
    }
}

/// Where one manifest beacon stands at a moment: what the periodic report carries for
/// each, so that a dashboard's "last seen" keeps moving between changes.
public struct AuditBeaconSummary: Hashable, Sendable {
    public var beacon: ExpectedBeacon
    /// `nil` until known.
    public var state: AuditState?
    /// The latest reception, on the audit's clock; `nil` when never heard.
    public var lastSeen: Double?
    /// The same in Unix time, when the audit's clock can say it.
    public var lastSeenUnixTime: Double?

    public init(beacon: ExpectedBeacon, state: AuditState?, lastSeen: Double?, lastSeenUnixTime: Double? = nil) {
        self.beacon = beacon
        self.state = state
        self.lastSeen = lastSeen
        self.lastSeenUnixTime = lastSeenUnixTime
    }
}

/// A receiver's status as the watch follows it (docs/verify.md, "Receivers").
public enum ReceiverState: String, CaseIterable, Hashable, Sendable {
    case online
    case offline
}

/// A receiver going offline or coming back, reported once (its beacons' changes follow as
/// events of their own): the box of a store that lost power is one event, not twenty
/// `missing` beacons.
public struct AuditReceiverEvent: Hashable, Sendable {
    /// What the watch took as evidence.
    public enum Cause: String, Hashable, Sendable {
        /// Its status topic said so (`offline`: a clean stop, or the last will the broker
        /// published for it when its connection died).
        case status
        /// None of its sightings for the silence period.
        case silence
        /// A sighting from it.
        case sighting
    }

    /// On the audit's clock.
    public var time: Double
    /// The receiver, named as in its sightings (its topic level when only its status is known).
    public var receiver: String
    public var state: ReceiverState
    /// `nil` the first time the watch knows the receiver.
    public var previous: ReceiverState?
    public var cause: Cause
    /// Why, in words.
    public var reason: String
    /// Offline: the manifest beacons no receiver now monitors, by id, in manifest order.
    /// Online: the unmonitored beacons it hears again, which get a full silence from now.
    public var beacons: [String]
    /// Its latest sighting, on the audit's clock; `nil` when never heard.
    public var lastSeen: Double?
    /// The event's moment in Unix time, when the audit's clock can say it; set by the watch.
    public var unixTime: Double?

    public init(
        time: Double, receiver: String, state: ReceiverState, previous: ReceiverState?, cause: Cause, reason: String,
        beacons: [String], lastSeen: Double?, unixTime: Double? = nil
    ) {
        self.time = time
        self.receiver = receiver
        self.state = state
        self.previous = previous
        self.cause = cause
        self.reason = reason
        self.beacons = beacons
        self.lastSeen = lastSeen
        self.unixTime = unixTime
    }
}
