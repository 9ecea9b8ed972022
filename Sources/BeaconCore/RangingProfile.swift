/// What a walk taught about one receiver in one place: the path-loss exponent of that room
/// and how many dB that receiver hears above (or below) the level a beacon's measured power
/// promises at 1 m. Ranging with a profile estimates
///
///     d = 10 ^ ((measured power + rssiOffset − RSSI) / (10 · n))
///
/// `beaconctl calibrate --walk` fits one (`PathLossFit`, distance objective) and saves it;
/// `scan` and `monitor --range` use it. The fit's residuals travel with it, so whoever loads
/// it later still sees how well the law held on the walk.
public struct RangingProfile: Hashable, Sendable, Codable {
    /// The receiver it was fitted on (a controller name such as `hci0`, or a recording).
    public var receiver: String
    /// Where, in the user's words (`--place`), or empty.
    public var place: String
    public var pathLossExponent: Double
    /// Fitted 1 m level minus the beacon's measured power, dB.
    public var rssiOffset: Double
    /// The beacon's measured power during the walk, dBm.
    public var referenceMeasuredPower: Double
    /// When it was fitted, ISO 8601 (UTC).
    public var fittedAt: String
    public var objective: PathLossFit.Objective
    public var rmsResidual: Double
    public var medianRelativeDistanceError: Double
    public var residuals: [PathLossFit.Residual]

    // snake_case, as every file beaconctl writes.
    enum CodingKeys: String, CodingKey {
        case receiver, place, objective, residuals
        case pathLossExponent = "path_loss_exponent"
        case rssiOffset = "rssi_offset"
        case referenceMeasuredPower = "reference_measured_power"
        case fittedAt = "fitted_at"
        case rmsResidual = "rms_residual"
        case medianRelativeDistanceError = "median_relative_distance_error"
    }

    public init(
        receiver: String, place: String = "", fit: PathLossFit, referenceMeasuredPower: Double, fittedAt: String
    ) {
        self.receiver = receiver
        self.place = place
        self.pathLossExponent = fit.model.pathLossExponent
        self.rssiOffset = fit.oneMetreRSSI - referenceMeasuredPower
        self.referenceMeasuredPower = referenceMeasuredPower
        self.fittedAt = fittedAt
        self.objective = fit.objective
        self.rmsResidual = fit.rmsResidual
        self.medianRelativeDistanceError = fit.medianRelativeDistanceError
        self.residuals = fit.residuals
    }

    /// Why a loaded profile cannot be used, or `nil` when it can.
    public var problem: String? {
        guard pathLossExponent.isFinite, PathLossFit.plausibleExponents.contains(pathLossExponent) else {
            return "its path-loss exponent \(pathLossExponent) is outside \(PathLossFit.plausibleExponents.lowerBound)–\(PathLossFit.plausibleExponents.upperBound)"
        }
        guard rssiOffset.isFinite, abs(rssiOffset) <= 40 else {
            return "its RSSI offset \(rssiOffset) dB is not a plausible receiver offset (at most ±40 dB)"
        }
        return nil
    }
}

extension RangingConfiguration {
    /// This configuration ranging with `profile`'s exponent and offset.
    public func applying(_ profile: RangingProfile) -> RangingConfiguration {
        var configuration = self
        configuration.distanceModel = PathLossModel(pathLossExponent: profile.pathLossExponent)
        configuration.measuredPowerOffset = profile.rssiOffset
        return configuration
    }
}
