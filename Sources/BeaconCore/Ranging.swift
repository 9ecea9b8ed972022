#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How near a beacon is, in CoreLocation's four classes (`CLProximity`).
public enum Proximity: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case immediate, near, far, unknown

    public static func < (lhs: Proximity, rhs: Proximity) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// The log-distance path-loss model that turns RSSI into metres and back:
/// `RSSI(d) = P₁ − 10·n·log₁₀(d)`, where `P₁` is the measured power (RSSI at 1 m) and `n`
/// the path-loss exponent (2 in free space, about 2–3 indoors, up to 4 through crowds).
public struct DistanceModel: Hashable, Sendable {
    public var pathLossExponent: Double

    public init(pathLossExponent: Double = 2.0) {
        self.pathLossExponent = pathLossExponent
    }

    /// Estimated distance in metres for an RSSI, or `nil` when the RSSI or the measured
    /// power cannot support an estimate (unavailable RSSI, a non-negative measured power,
    /// a non-finite input). Estimates are clamped to `maximumDistance`: beyond tens of
    /// metres a BLE RSSI says "far", not how far, and unbounded numbers mislead.
    public func distance(rssi: Double, measuredPower: Double, maximumDistance: Double = 100) -> Double? {
        guard rssi.isFinite, measuredPower.isFinite, measuredPower < 0, rssi < 0, pathLossExponent > 0 else {
            return nil
        }
        let metres = pow(10, (measuredPower - rssi) / (10 * pathLossExponent))
        return min(metres, maximumDistance)
    }

    /// The mean RSSI this model expects at `distance` metres (distances below 1 cm are
    /// treated as 1 cm so the logarithm stays finite).
    public func expectedRSSI(atDistance distance: Double, measuredPower: Double) -> Double {
        measuredPower - 10 * pathLossExponent * log10(max(distance, 0.01))
    }
}

/// Distance thresholds between proximity classes. The defaults are the ones most iBeacon
/// SDKs document: immediate below 0.5 m, near below 3 m, far beyond.
public struct ProximityThresholds: Hashable, Sendable {
    public var immediateBelow: Double
    public var nearBelow: Double

    public init(immediateBelow: Double = 0.5, nearBelow: Double = 3.0) {
        self.immediateBelow = immediateBelow
        self.nearBelow = nearBelow
    }

    /// The class for a distance estimate; `.unknown` without one.
    public func classify(distance: Double?) -> Proximity {
        guard let distance, distance.isFinite, distance >= 0 else { return .unknown }
        if distance < immediateBelow { return .immediate }
        if distance < nearBelow { return .near }
        return .far
    }
}
