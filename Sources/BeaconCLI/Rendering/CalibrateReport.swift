import BeaconCore
import FleetManifest

/// What `calibrate` prints about an estimate.
enum CalibrationReport {
    static func lines(beacon: ResolvedBeacon, estimate: CalibrationEstimate) -> [String] {
        let mean = ScanTable.decimal(estimate.mean, places: 1)
        let half = estimate.confidenceHalfWidth.isFinite ? ScanTable.decimal(estimate.confidenceHalfWidth, places: 1) : "?"
        return [
            "\(beacon.id) (\(beacon.identity)): measured power \(estimate.measuredPower) dBm",
            "  mean \(mean) dBm ± \(half) dB (95 % confidence), spread (standard deviation) \(ScanTable.decimal(estimate.standardDeviation, places: 1)) dB",
            "  \(estimate.sampleCount) samples, \(estimate.keptCount) kept after dropping the top and bottom 10 %",
            "  manifest now: \(beacon.measuredPower)",
        ]
    }
}
