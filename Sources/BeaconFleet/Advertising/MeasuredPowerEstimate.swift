import FleetManifest

/// Measured power (the RSSI expected 1 m away) estimated from the power the controller
/// advertises with, for beacons nobody calibrated.
public enum MeasuredPowerEstimate {
    /// The range an iBeacon frame's measured power may take: a signed byte, and negative
    /// because nothing is received stronger than 0 dBm at 1 m from a beacon.
    public static let validRange: ClosedRange<Int> = -127...(-1)

    /// Advertising TX power − 41 dB (free-space path loss at 1 m on 2.4 GHz), clamped to
    /// −127…−1 dBm.
    public static func measuredPower(forTxPower txPower: Int8) -> Int8 {
        let estimate = Int(txPower) - MeasuredPower.oneMetrePathLoss
        // Clamped into −127…−1, so the conversion cannot fail.
        return Int8(min(max(estimate, validRange.lowerBound), validRange.upperBound))
    }
}
