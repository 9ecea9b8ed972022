import BeaconCore

/// What the manifest says of a beacon's battery: the level below which the audit warns
/// (`battery_low`), the cell (`battery`), and the address its telemetry comes from when it
/// is not the one it advertises its identity from (`telemetry_mac`). Immutable and shared:
/// the beacons of a venue that inherit the same values hold one object (a reference in
/// each `ResolvedBeacon`, not the values).
public final class BeaconBattery: Hashable, Sendable, CustomStringConvertible {
    public let lowThreshold: BatteryLevel?
    public let type: BatteryType?
    public let telemetryAddress: BluetoothAddress?

    public init(lowThreshold: BatteryLevel?, type: BatteryType?, telemetryAddress: BluetoothAddress? = nil) {
        self.lowThreshold = lowThreshold
        self.type = type
        self.telemetryAddress = telemetryAddress
    }

    public static func == (lhs: BeaconBattery, rhs: BeaconBattery) -> Bool {
        lhs === rhs
            || (lhs.lowThreshold == rhs.lowThreshold && lhs.type == rhs.type && lhs.telemetryAddress == rhs.telemetryAddress)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(lowThreshold)
        hasher.combine(type)
        hasher.combine(telemetryAddress)
    }

    public var description: String {
        [lowThreshold.map { "low below \($0)" }, type.map { "\($0)" }, telemetryAddress.map { "telemetry from \($0)" }]
            .compactMap { $0 }.joined(separator: ", ")
    }
}
