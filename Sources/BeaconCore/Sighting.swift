/// One reception of an iBeacon advertisement: what the scanner heard, from whom, how
/// strongly and when. Scanners, sighting streams (JSON lines) and capture files all produce
/// these; ranging, verification and monitoring consume them.
public struct Sighting: Hashable, Sendable {
    public var advertisement: IBeaconAdvertisement
    /// The advertiser's device address, read once where the sighting entered; `nil` when
    /// its receiver's gateway publishes none (docs/gateways.md).
    public var address: BluetoothAddress?
    /// Whether that address is random (static or private) rather than public: kept beside
    /// the address, which is 48 bits alone (see `BluetoothAddress`).
    public var addressIsRandom: Bool
    /// Received signal strength, dBm; `nil` when the controller did not report one (127).
    public var rssi: Int?
    /// Seconds on `clock`: since a start the receiver chose (a scan's start, a capture's
    /// first record), or since the Unix epoch.
    public var time: Double
    /// Which clock `time` is on, decided where the sighting entered (never guessed from
    /// the number: an elapsed clock may count past 10^9 s, a wall clock may be wrong).
    public var clock: SightingClock
    /// The controller or source that heard it (a transport spec, a file name).
    public var receiver: String
    /// What its receiver vouches for: everything, unless it publishes through a gateway
    /// that throttles or leaves the measured power out.
    public var evidence: SightingEvidence

    public init(
        advertisement: IBeaconAdvertisement, address: BluetoothAddress?, addressIsRandom: Bool,
        rssi: Int?, time: Double, clock: SightingClock, receiver: String,
        evidence: SightingEvidence = .complete
    ) {
        self.advertisement = advertisement
        self.address = address
        self.addressIsRandom = addressIsRandom
        self.rssi = rssi
        self.time = time
        self.clock = clock
        self.receiver = receiver
        self.evidence = evidence
    }

    public var identity: BeaconIdentity { advertisement.identity }

    /// This sighting with its time on Unix time: an elapsed time moved by `offset`
    /// (`WallClock.unixOffset(elapsed:)` of its receiver's clock), a Unix time unchanged.
    public func onUnixTime(offset: Double) -> Sighting {
        guard clock == .elapsed else { return self }
        var moved = self
        moved.time += offset
        moved.clock = .unix
        return moved
    }

    /// The times a sighting may carry, in seconds: about ±317 years around the source's
    /// reference. Wide enough for Unix-epoch stamps, and narrow enough that every gap,
    /// deadline and period computed from two of them stays exact to a microsecond and
    /// fits any integer unit. Readers refuse times outside it where they enter.
    public static let acceptedTimes: ClosedRange<Double> = -1e10...1e10
}

/// The clock a sighting's time is on. The place a sighting enters decides it: a controller's
/// scan counts from its start (`elapsed`); a receiver publishing to a broker stamps Unix
/// time (`unix`); a JSON line says which (`"clock"`), or takes its input's default
/// (docs/sightings.md).
public enum SightingClock: UInt8, Hashable, Sendable, CaseIterable {
    /// Seconds on the receiver's own clock, from a start it chose (a scan's start, a
    /// capture's first record): only gaps between one receiver's sightings mean anything.
    case elapsed
    /// Seconds since 1970-01-01 00:00 UTC on the receiver's wall clock, which every
    /// receiver so stamped shares.
    case unix

    /// The word a JSON line carries (`"clock":"elapsed"`, `"clock":"unix"`).
    public var name: String {
        switch self {
        case .elapsed: "elapsed"
        case .unix: "unix"
        }
    }

    /// The clock a word names, or `nil`.
    public init?(name: String) {
        switch name {
        case "elapsed": self = .elapsed
        case "unix": self = .unix
        default: return nil
        }
    }
}

/// What a sighting's receiver vouches for besides the identity, the address and the RSSI.
/// A receiver on a controller reports every advertisement it hears with the advertised
/// measured power; receivers that publish through another project's gateway (ESPresense,
/// Theengs Gateway, …: docs/gateways.md) throttle or sample, and some publish no measured
/// power. The audit judges only what the evidence can show. It belongs to the receiver, not
/// to one advertisement; it travels with each sighting because sightings are all the
/// verification pass and the watch are given.
public struct SightingEvidence: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Every advertisement the receiver hears is reported, timed on its clock: the gaps
    /// between its sightings are evidence of the beacon's advertising interval.
    public static let everyAdvertisement = SightingEvidence(rawValue: 1 << 0)
    /// The advertisement's measured power is the beacon's own, not a placeholder.
    public static let measuredPower = SightingEvidence(rawValue: 1 << 1)
    /// What a controller's own reception vouches for.
    public static let complete: SightingEvidence = [.everyAdvertisement, .measuredPower]
}
