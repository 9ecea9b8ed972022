import BeaconCore

/// Measured power (the RSSI expected 1 m away) estimated from the power the controller
/// advertises with, for beacons nobody calibrated. The rule and the ranges live with
/// `MeasuredPower`; this names the use.
public enum MeasuredPowerEstimate {
    public static let validRange = MeasuredPower.validRange

    /// Advertising TX power − 41 dB (free-space path loss at 1 m on 2.4 GHz), clamped to
    /// −127…−1 dBm.
    public static func measuredPower(forTxPower txPower: Int8) -> Int8 {
        MeasuredPower.estimate(forTxPower: Int(txPower))
    }
}
