import BeaconCore
import FleetManifest
import HCI

/// One beacon the verification expects to hear, with what it should sound like.
///
/// Its fields live in one shared, immutable box: the plan holds every beacon once, and each
/// verdict's copy of its beacon is a reference to the plan's, not 170 more bytes a beacon
/// (a fleet's pass holds both). Changing a field gives the copy a box of its own.
public struct ExpectedBeacon: Hashable, Sendable {
    private struct Fields: Hashable, Sendable {
        var beaconID: String
        var name: String?
        var zone: String?
        var venueID: String
        var identity: BeaconIdentity
        var measuredPower: MeasuredPowerExpectation
        var intervalMilliseconds: Int
        var expectedAddress: BluetoothAddress?
        var location: SourceLocation?
        var battery: BeaconBattery?
        var advertisedByHost: Bool
    }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    private var fields: Fields {
        get { box.fields }
        set { box = Box(newValue) }
    }

    public init(
        beaconID: String, name: String? = nil, zone: String? = nil, venueID: String,
        identity: BeaconIdentity, measuredPower: MeasuredPowerExpectation, intervalMilliseconds: Int = 100,
        expectedAddress: BluetoothAddress? = nil, location: SourceLocation? = nil,
        battery: BeaconBattery? = nil, advertisedByHost: Bool = false
    ) {
        box = Box(Fields(
            beaconID: beaconID, name: name, zone: zone, venueID: venueID, identity: identity, measuredPower: measuredPower,
            intervalMilliseconds: intervalMilliseconds, expectedAddress: expectedAddress, location: location,
            battery: battery, advertisedByHost: advertisedByHost))
    }

    public static func == (lhs: ExpectedBeacon, rhs: ExpectedBeacon) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.fields)
    }

    /// The manifest's beacon id.
    public var beaconID: String {
        get { box.fields.beaconID }
        set { fields.beaconID = newValue }
    }
    public var name: String? {
        get { box.fields.name }
        set { fields.name = newValue }
    }
    public var zone: String? {
        get { box.fields.zone }
        set { fields.zone = newValue }
    }
    public var venueID: String {
        get { box.fields.venueID }
        set { fields.venueID = newValue }
    }
    public var identity: BeaconIdentity {
        get { box.fields.identity }
        set { fields.identity = newValue }
    }
    public var measuredPower: MeasuredPowerExpectation {
        get { box.fields.measuredPower }
        set { fields.measuredPower = newValue }
    }
    /// The advertising interval the manifest asks for.
    public var intervalMilliseconds: Int {
        get { box.fields.intervalMilliseconds }
        set { fields.intervalMilliseconds = newValue }
    }
    /// The device address the manifest pins (`mac:`), if any.
    public var expectedAddress: BluetoothAddress? {
        get { box.fields.expectedAddress }
        set { fields.expectedAddress = newValue }
    }
    /// Where the beacon is defined, for reports that point back into the manifest.
    public var location: SourceLocation? {
        get { box.fields.location }
        set { fields.location = newValue }
    }

    /// What the manifest says of its battery (threshold, cell, telemetry address).
    public var battery: BeaconBattery? {
        get { box.fields.battery }
        set { fields.battery = newValue }
    }
    /// Whether a Linux host advertises it (`host:`): such a beacon has no battery.
    public var advertisedByHost: Bool {
        get { box.fields.advertisedByHost }
        set { fields.advertisedByHost = newValue }
    }
    /// Whether the audit expects telemetry from it: the manifest sets a `battery_low` for
    /// it and no host advertises it. Only for these is "no telemetry" said.
    public var expectsTelemetry: Bool {
        !advertisedByHost && battery?.lowThreshold != nil
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
            expectedAddress: beacon.expectedAddress, location: beacon.location,
            battery: beacon.battery, advertisedByHost: beacon.host != nil)
    }
}
