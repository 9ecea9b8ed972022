import BeaconCore

/// A ranged distance as `scan` and `monitor --range` show it: the estimate and the interval
/// that holds the true distance for 68 % of readings, `1.2 m (0.9–2.4)`. One decimal (none
/// from 10 m): RSSI does not tell centimetres, and printing them would promise it does.
enum DistanceText {
    /// `nil` when the beacon has no distance.
    static func withInterval(_ beacon: RangedBeacon) -> String? {
        guard let accuracy = beacon.accuracy else { return nil }
        var text = metres(accuracy) + " m"
        if let interval = beacon.accuracyInterval {
            text += " (" + metres(interval.lowerBound) + "–" + metres(interval.upperBound) + ")"
        }
        return text
    }

    static func metres(_ value: Double) -> String {
        ScanTable.decimal(value, places: value < 9.95 ? 1 : 0)
    }
}
