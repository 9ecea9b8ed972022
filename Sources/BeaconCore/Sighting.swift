/// One reception of an iBeacon advertisement: what the scanner heard, from whom, how
/// strongly and when. Scanners, sighting streams (JSON lines) and capture files all produce
/// these; ranging, verification and monitoring consume them.
public struct Sighting: Hashable, Sendable {
    public var advertisement: IBeaconAdvertisement
    /// The advertiser's device address, `AA:BB:CC:DD:EE:FF` most significant first.
    public var address: String
    /// Whether that address is random (static or private) rather than public.
    public var addressIsRandom: Bool
    /// Received signal strength, dBm; `nil` when the controller did not report one (127).
    public var rssi: Int?
    /// Seconds since a reference the source chooses (scan start, capture start, Unix epoch);
    /// only differences between sightings of one source are meaningful.
    public var time: Double
    /// The controller or source that heard it (a transport spec, a file name).
    public var receiver: String

    public init(
        advertisement: IBeaconAdvertisement, address: String, addressIsRandom: Bool,
        rssi: Int?, time: Double, receiver: String
    ) {
        self.advertisement = advertisement
        self.address = address
        self.addressIsRandom = addressIsRandom
        self.rssi = rssi
        self.time = time
        self.receiver = receiver
    }

    public var identity: BeaconIdentity { advertisement.identity }

    /// The times a sighting may carry, in seconds: about ±317 years around the source's
    /// reference. Wide enough for Unix-epoch stamps, and narrow enough that every gap,
    /// deadline and period computed from two of them stays exact to a microsecond and
    /// fits any integer unit. Readers refuse times outside it where they enter.
    public static let acceptedTimes: ClosedRange<Double> = -1e10...1e10
}
