import BeaconCore
import FleetManifest
import HCI

/// One beacon the verification expects to hear, with what it should sound like.
public struct ExpectedBeacon: Hashable, Sendable {
    /// The manifest's beacon id.
    public var beaconID: String
    public var name: String?
    public var zone: String?
    public var venueID: String
    public var identity: BeaconIdentity
    public var measuredPower: MeasuredPowerExpectation
    /// The advertising interval the manifest asks for.
    public var intervalMilliseconds: Int
    /// The device address the manifest pins (`mac:`), if any.
    public var expectedAddress: BluetoothAddress?
    /// Where the beacon is defined, for reports that point back into the manifest.
    public var location: SourceLocation?

    public init(
        beaconID: String, name: String? = nil, zone: String? = nil, venueID: String,
        identity: BeaconIdentity, measuredPower: MeasuredPowerExpectation, intervalMilliseconds: Int = 100,
        expectedAddress: BluetoothAddress? = nil, location: SourceLocation? = nil
    ) {
        self.beaconID = beaconID
        self.name = name
        self.zone = zone
        self.venueID = venueID
        self.identity = identity
        self.measuredPower = measuredPower
        self.intervalMilliseconds = intervalMilliseconds
        self.expectedAddress = expectedAddress
        self.location = location
    }

    /// A manifest beacon. `advertisedMeasuredPower` is the value an advertiser computed for
    /// an `auto` beacon, when known; otherwise `auto` accepts anything in `plausibleRange`.
    public init(
        _ beacon: ResolvedBeacon, advertisedMeasuredPower: Int8? = nil,
        plausibleRange: ClosedRange<Int> = VerificationPolicy().plausibleMeasuredPower
    ) {
        let expectation: MeasuredPowerExpectation
        switch beacon.measuredPower {
        case .dBm(let value): expectation = .calibrated(value)
        case .auto: expectation = advertisedMeasuredPower.map { .advertised($0) } ?? .plausible(plausibleRange)
        }
        self.init(
            beaconID: beacon.id, name: beacon.name, zone: beacon.zone, venueID: beacon.venueID,
            identity: beacon.identity, measuredPower: expectation, intervalMilliseconds: beacon.intervalMilliseconds,
            // The loader only accepts canonical addresses; one that does not parse cannot be
            // matched by any device, and is left out rather than failing every sighting.
            expectedAddress: beacon.expectedAddress, location: beacon.location)
    }
}
