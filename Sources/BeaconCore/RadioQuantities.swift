/// The radio quantities every layer speaks of, with their valid ranges, in one place: the
/// manifest validates against them, the advertiser estimates with them, the CLI checks
/// flags with them.

/// The RSSI a receiver should see 1 m from the beacon, carried in the last byte of an
/// iBeacon frame; apps compute distance from it.
public enum MeasuredPower: Hashable, Sendable, CustomStringConvertible {
    /// Estimate it when advertising starts: the controller's advertising TX power − 41 dB
    /// (free-space path loss at 1 m on 2.4 GHz).
    case auto
    /// A calibrated value in dBm, −127…−1.
    case dBm(Int8)

    /// The values a measured power may take: a signed byte, and negative because nothing
    /// is received stronger than 0 dBm at 1 m from a beacon.
    public static let validRange: ClosedRange<Int> = -127...(-1)

    /// What a real beacon measures at 1 m, roughly: outside it a value is legal but
    /// suspicious (a −3 dBm byte gives absurd distances).
    public static let plausibleRange: ClosedRange<Int> = -100...(-30)

    /// Free-space path loss at 1 m at 2.4 GHz, rounded: the usual estimate of measured power
    /// from TX power when nobody calibrated.
    public static let oneMetrePathLoss = 41

    /// The estimate for a beacon nobody calibrated: TX power − 41 dB, clamped into
    /// `validRange` (so the conversion cannot fail).
    public static func estimate(forTxPower txPower: Int) -> Int8 {
        let estimate = txPower - oneMetrePathLoss
        return Int8(clamping: min(max(estimate, validRange.lowerBound), validRange.upperBound))
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .dBm(let value): return "\(value) dBm"
        }
    }
}

/// Advertising TX power, dBm.
public enum TransmitPower {
    /// What HCI can ask of a controller (Core v5.4 Vol 4 Part E 7.8.53, Advertising_TX_Power:
    /// −127…+20 dBm; 0x7F means "no preference" and is not a power).
    public static let validRange: ClosedRange<Int> = -127...20
}
