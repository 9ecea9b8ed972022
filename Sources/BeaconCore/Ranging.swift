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

/// Distance thresholds between proximity classes. The defaults are the ones most iBeacon
/// SDKs document: immediate below 0.5 m, near below 3 m, far beyond.
public struct ProximityThresholds: Hashable, Sendable {
    public var immediateBelow: Double
    public var nearBelow: Double

    public init(immediateBelow: Double = 0.5, nearBelow: Double = 3.0) {
        self.immediateBelow = immediateBelow
        self.nearBelow = nearBelow
    }

    /// The class of every distance in `interval`, or `.unknown` when the interval spans
    /// two classes (or there is none): the data cannot tell which, and CoreLocation too says
    /// `unknown` rather than guess. A wrong `near` opens a door; an `unknown` waits.
    public func classify(interval: ClosedRange<Double>?) -> Proximity {
        guard let interval else { return .unknown }
        let low = classify(distance: interval.lowerBound)
        return low == classify(distance: interval.upperBound) ? low : .unknown
    }

    /// The class for a distance estimate; `.unknown` without one.
    public func classify(distance: Double?) -> Proximity {
        guard let distance, distance.isFinite, distance >= 0 else { return .unknown }
        if distance < immediateBelow { return .immediate }
        if distance < nearBelow { return .near }
        return .far
    }
}
