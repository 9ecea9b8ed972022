import BeaconCore
import BeaconFleet
import FleetManifest


/// What `calibrate --walk` prints: every spot with its level, the fitted line's level
/// there, the residual and the distance the profile would estimate from that level; then
/// the profile and how far to trust it.
enum CalibrationWalkReport {
    /// Residuals above this (RMS, dB) mean the law did not hold on the walk.
    static let untrustworthyRMS = 4.0
    /// Exponents outside this range happen in rooms, but more often come from a bad walk.
    static let usualExponents: ClosedRange<Double> = 1.6...4.5

    static func lines(beacon: ResolvedBeacon, profile: RangingProfile, fit: PathLossFit) -> [String] {
        var lines = ["walk of \(beacon.id) (\(beacon.identity)) heard by \(profile.receiver): \(fit.residuals.count) spots"]
        lines.append(row(["distance", "level", "fitted", "residual", "estimates", "samples"]))
        for residual in fit.residuals {
            lines.append(row([
                ScanTable.decimal(residual.distance, places: 2) + " m",
                ScanTable.decimal(residual.meanRSSI, places: 1) + " dBm",
                ScanTable.decimal(residual.fittedRSSI, places: 1) + " dBm",
                signed(residual.error) + " dB",
                ScanTable.decimal(residual.estimatedDistance, places: 2) + " m",
                "\(residual.sampleCount)",
            ]))
        }
        lines.append("path-loss exponent n = \(ScanTable.decimal(profile.pathLossExponent, places: 2)); 1 m level \(ScanTable.decimal(fit.oneMetreRSSI, places: 1)) dBm = the beacon's measured power \(ScanTable.decimal(profile.referenceMeasuredPower, places: 0)) dBm \(signed(profile.rssiOffset)) dB (this receiver's offset)")
        lines.append("RMS residual \(ScanTable.decimal(fit.rmsResidual, places: 1)) dB; on the walk's own spots the profile's distances are off by a median \(ScanTable.decimal(fit.medianRelativeDistanceError * 100, places: 0)) %")
        return lines
    }

    /// The spots alone, when no fit came of them.
    static func levelLines(_ levels: [PathLossFit.Level]) -> [String] {
        [row(["distance", "level", "samples"])] + levels.map { level in
            row([ScanTable.decimal(level.distance, places: 2) + " m", ScanTable.decimal(level.rssi, places: 1) + " dBm", "\(level.sampleCount)"])
        }
    }

    /// Why the user might not want to trust the profile.
    static func warnings(fit: PathLossFit, levels: [PathLossFit.Level]) -> [String] {
        var warnings: [String] = []
        if fit.rmsResidual > untrustworthyRMS {
            warnings.append("the levels scatter \(ScanTable.decimal(fit.rmsResidual, places: 1)) dB (RMS) around the fitted line: distances from this profile will be rough; walk again with more spots per distance, away from bodies and metal")
        }
        if !usualExponents.contains(fit.model.pathLossExponent) {
            warnings.append("a path-loss exponent of \(ScanTable.decimal(fit.model.pathLossExponent, places: 2)) is unusual indoors (\(ScanTable.decimal(usualExponents.lowerBound, places: 1))–\(ScanTable.decimal(usualExponents.upperBound, places: 1))); check that the distances were walked in the order given")
        }
        if Set(levels.map(\.distance)).count < 3 {
            warnings.append("two distances fit any line exactly: the residuals say nothing; walk three or more")
        }
        return warnings
    }

    /// Now, ISO 8601 in UTC to the second.
    static func utcTimestamp() -> String {
        WallClock.iso8601(WallClock.unixTime(), milliseconds: false) ?? "unknown"
    }

    /// `+1.2`, `-0.4`, `0.0`: one decimal with its sign, so offsets and residuals line up.
    private static func signed(_ value: Double) -> String {
        let text = ScanTable.decimal(abs(value), places: 1)
        guard text != "0.0" else { return text }
        return (value > 0 ? "+" : "-") + text
    }

    private static func row(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            let width = index == 0 ? 8 : 10
            return String(repeating: " ", count: max(0, width - cell.count)) + cell
        }.joined(separator: "  ")
    }
}
