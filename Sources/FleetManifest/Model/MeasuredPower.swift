/// The RSSI a receiver should see 1 m from the beacon, carried in the last byte of an
/// iBeacon frame; apps compute distance from it.
public enum MeasuredPower: Hashable, Sendable, CustomStringConvertible {
    /// Estimate it when advertising starts: the controller's advertising TX power − 41 dB
    /// (free-space path loss at 1 m on 2.4 GHz).
    case auto
    /// A calibrated value in dBm, −127…−1.
    case dBm(Int8)

    /// Free-space path loss at 1 m at 2.4 GHz, rounded: the usual estimate of measured power
    /// from TX power when nobody calibrated.
    public static let oneMetrePathLoss = 41

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .dBm(let value): return "\(value) dBm"
        }
    }
}
