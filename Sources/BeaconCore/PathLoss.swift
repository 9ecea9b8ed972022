#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The log-distance path-loss model, the one model of how RSSI falls with distance: the
/// estimator inverts it (RSSI → metres), the virtual radio and coverage planning run it
/// forwards (metres → mean RSSI).
///
/// `RSSI(d) = P₁ − 10·n·log₁₀(d)`, where `P₁` is the RSSI at 1 m (a beacon's measured
/// power) and `n` the path-loss exponent (2 in free space, about 2–3 indoors, up to 4
/// through crowds).
///
/// One near-field rule in both directions: closer than `nearField` (10 cm) the law does not
/// hold (the antennas' near field, the receiver saturating), so a distance below it counts
/// as 10 cm and an RSSI stronger than the 10 cm one is ranged at 10 cm.
public struct PathLossModel: Hashable, Sendable {
    public var pathLossExponent: Double

    /// Where the far-field law starts, metres.
    public static let nearField = 0.1
    /// The farthest estimate given, metres: beyond tens of metres a BLE RSSI says "far".
    public static let farthest = 100.0

    public init(pathLossExponent: Double = 2.0) {
        self.pathLossExponent = pathLossExponent
    }

    /// Estimated distance in metres for an RSSI, or `nil` when the RSSI or the measured
    /// power cannot support an estimate (unavailable RSSI, a non-negative measured power,
    /// a non-finite input). Estimates lie in `nearField…maximumDistance`: beyond tens of
    /// metres a BLE RSSI says "far", not how far, and unbounded numbers mislead.
    public func distance(rssi: Double, measuredPower: Double, maximumDistance: Double = farthest) -> Double? {
        guard rssi.isFinite, measuredPower.isFinite, measuredPower < 0, rssi < 0, pathLossExponent > 0 else {
            return nil
        }
        let metres = pow(10, (measuredPower - rssi) / (10 * pathLossExponent))
        return min(max(metres, Self.nearField), maximumDistance)
    }

    /// The mean RSSI this model expects at `distance` metres from a source whose RSSI at
    /// 1 m is `measuredPower`.
    public func expectedRSSI(atDistance distance: Double, measuredPower: Double) -> Double {
        measuredPower - 10 * pathLossExponent * log10(max(distance, Self.nearField))
    }
}

/// A wall or other obstacle on the plan: a segment that takes `attenuation` dB from every
/// path crossing it (typical: 3–5 dB plasterboard, 10–15 dB brick or concrete).
public struct Obstacle: Hashable, Sendable {
    public var from: PlanPoint
    public var to: PlanPoint
    public var attenuation: Double

    public init(from: PlanPoint, to: PlanPoint, attenuation: Double) {
        self.from = from
        self.to = to
        self.attenuation = attenuation
    }

    /// Whether the segment `a`–`b` properly crosses this obstacle.
    public func isCrossed(from a: PlanPoint, to b: PlanPoint) -> Bool {
        func orientation(_ p: PlanPoint, _ q: PlanPoint, _ r: PlanPoint) -> Double {
            (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
        }
        let d1 = orientation(from, to, a)
        let d2 = orientation(from, to, b)
        let d3 = orientation(a, b, from)
        let d4 = orientation(a, b, to)
        return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
    }
}

/// The deterministic part of a venue's air: the mean RSSI between two points of its plan.
/// Coverage planning maps it; the virtual radio adds what is random (fading, packet loss)
/// on top, so a simulated venue hears, on average, what its coverage map predicts.
///
/// `RSSI = TX power − L₁ − 10·n·log₁₀(d) − Σ obstacles`, with `L₁` the loss at 1 m: 41 dB
/// by default (`MeasuredPower.oneMetrePathLoss`), the rule `measured_power: auto` uses, so a
/// beacon advertising `auto` reports exactly the model's mean at 1 m.
public struct RadioEnvironment: Hashable, Sendable {
    public var pathLoss: PathLossModel
    /// Loss at the 1 m reference distance, dB.
    public var referenceLoss: Double
    public var obstacles: [Obstacle]
    /// Below this RSSI a receiver hears nothing (typical BLE sensitivity), dBm.
    public var receiverSensitivity: Double

    public init(
        pathLoss: PathLossModel = PathLossModel(),
        referenceLoss: Double = Double(MeasuredPower.oneMetrePathLoss),
        obstacles: [Obstacle] = [], receiverSensitivity: Double = -100
    ) {
        self.pathLoss = pathLoss
        self.referenceLoss = referenceLoss
        self.obstacles = obstacles
        self.receiverSensitivity = receiverSensitivity
    }

    /// The mean RSSI, dBm, from a transmitter at `transmitter` with `txPower` dBm to a
    /// receiver at `receiver`.
    public func meanRSSI(txPower: Double, from transmitter: PlanPoint, to receiver: PlanPoint) -> Double {
        let dx = transmitter.x - receiver.x
        let dy = transmitter.y - receiver.y
        var rssi = pathLoss.expectedRSSI(atDistance: (dx * dx + dy * dy).squareRoot(), measuredPower: measuredPower(txPower: txPower))
        for obstacle in obstacles where obstacle.isCrossed(from: transmitter, to: receiver) {
            rssi -= obstacle.attenuation
        }
        return rssi
    }

    /// The RSSI at 1 m, no obstacles, for a TX power.
    public func measuredPower(txPower: Double) -> Double { txPower - referenceLoss }
}
