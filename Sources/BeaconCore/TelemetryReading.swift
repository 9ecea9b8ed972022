/// One reading of a beacon's health heard on the air or from a gateway: its battery (and
/// where the source says it, its temperature), from whom, when and by which receiver. It is
/// not a `Sighting`: telemetry comes in frames of its own (an Eddystone-TLM frame beside the
/// iBeacon one, a vendor's system frame) or in a gateway's fields, usually from the address
/// the beacon advertises its identity from, and is paired with the manifest's beacons by
/// that address (docs/health.md). Sources hand readings over beside their sightings
/// (`TelemetryInbox`), so that a sighting costs nothing more for it.
public struct TelemetryReading: Hashable, Sendable {
    /// The advertiser's device address; `nil` when the gateway publishes none.
    public var address: BluetoothAddress?
    public var addressIsRandom: Bool
    /// The identity the reading came with, when its source ties one to it (a gateway that
    /// publishes battery in the same message as the iBeacon it decoded); most frames carry
    /// none and are paired by `address`.
    public var identity: BeaconIdentity?
    /// Battery voltage in millivolts; `nil` when the source does not measure it or says it
    /// cannot (Eddystone-TLM VBATT 0).
    public var batteryMillivolts: UInt16?
    /// Battery level in percent (0…100) where the source gives a level rather than a voltage
    /// (some gateways, some vendor frames); never converted from volts or to them.
    public var batteryPercent: UInt8?
    /// °C, when measured.
    public var temperature: Double?
    /// Seconds on `clock`, as `Sighting.time`.
    public var time: Double
    public var clock: SightingClock
    /// The controller, file or gateway that heard it, as `Sighting.receiver`.
    public var receiver: String
    /// Which document the reading was decoded by.
    public var source: TelemetrySource

    public init(
        address: BluetoothAddress?, addressIsRandom: Bool, identity: BeaconIdentity? = nil,
        batteryMillivolts: UInt16?, batteryPercent: UInt8? = nil, temperature: Double?,
        time: Double, clock: SightingClock, receiver: String, source: TelemetrySource
    ) {
        self.address = address
        self.addressIsRandom = addressIsRandom
        self.identity = identity
        self.batteryMillivolts = batteryMillivolts
        self.batteryPercent = batteryPercent
        self.temperature = temperature
        self.time = time
        self.clock = clock
        self.receiver = receiver
        self.source = source
    }

    /// Volts, when the battery voltage is measured.
    public var batteryVolts: Double? { batteryMillivolts.map { Double($0) / 1000 } }
}

/// The frame or message a `TelemetryReading` was decoded from: its name in JSON lines
/// (`"source"`), reports and logs.
public enum TelemetrySource: String, Hashable, Sendable, CaseIterable {
    /// An unencrypted Eddystone-TLM frame (`EddystoneTelemetry`).
    case eddystoneTLM = "eddystone-tlm"
    /// KKM / Blue Charm's system (or sensor) advertisement, from the vendor's SDK.
    case kkm = "kkm"
    /// A gateway's battery field: Theengs Gateway or OpenMQTTGateway (docs/gateways.md).
    case gateway = "gateway"
}
