import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    func isCrossed(from a: PlanPoint, to b: PlanPoint) -> Bool {
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

/// How radio signals fade between two points of a venue: log-distance path loss with a
/// reference loss at 1 m, log-normal shadowing, obstacles, and packet loss.
///
/// `RSSI = TX power − L₁ − 10·n·log₁₀(d) − Σ obstacles + X_σ`, X_σ ~ N(0, σ²).
/// With `L₁ = 41 dB` (free-space loss at 1 m and 2.4 GHz) the model's mean RSSI at 1 m is
/// TX power − 41 dB: the same rule `measured_power: auto` uses, so a beacon advertising
/// `auto` reports exactly the model's truth at 1 m.
public struct PropagationModel: Hashable, Sendable {
    /// The path-loss exponent n: 2 in free space, 2–3 in open indoor spaces.
    public var pathLossExponent: Double
    /// Loss at the 1 m reference distance, dB.
    public var referenceLoss: Double
    /// Standard deviation of the log-normal shadowing, dB (0 = no fading).
    public var shadowingSigma: Double
    /// Probability that one advertising packet is not received at all, 0…1.
    public var packetLoss: Double
    public var obstacles: [Obstacle]
    /// Below this RSSI a receiver hears nothing (typical BLE sensitivity).
    public var receiverSensitivity: Double

    public init(
        pathLossExponent: Double = 2.0, referenceLoss: Double = 41, shadowingSigma: Double = 0,
        packetLoss: Double = 0, obstacles: [Obstacle] = [], receiverSensitivity: Double = -100
    ) {
        self.pathLossExponent = pathLossExponent
        self.referenceLoss = referenceLoss
        self.shadowingSigma = shadowingSigma
        self.packetLoss = packetLoss
        self.obstacles = obstacles
        self.receiverSensitivity = receiverSensitivity
    }

    /// The mean RSSI, dBm, from a transmitter at `transmitter` with `txPower` dBm to a
    /// receiver at `receiver`. Distances under 10 cm count as 10 cm (near-field).
    public func meanRSSI(txPower: Double, from transmitter: PlanPoint, to receiver: PlanPoint) -> Double {
        let distance = max(((transmitter.x - receiver.x) * (transmitter.x - receiver.x)
            + (transmitter.y - receiver.y) * (transmitter.y - receiver.y)).squareRoot(), 0.1)
        var rssi = txPower - referenceLoss - 10 * pathLossExponent * log10(distance)
        for obstacle in obstacles where obstacle.isCrossed(from: transmitter, to: receiver) {
            rssi -= obstacle.attenuation
        }
        return rssi
    }

    /// One received packet's RSSI, or `nil` when the packet is lost or below sensitivity.
    public func sampleRSSI(
        txPower: Double, from transmitter: PlanPoint, to receiver: PlanPoint,
        using generator: inout SeededGenerator
    ) -> Double? {
        if packetLoss > 0 && Double(generator.next() >> 11) / Double(1 << 53) < packetLoss { return nil }
        var rssi = meanRSSI(txPower: txPower, from: transmitter, to: receiver)
        if shadowingSigma > 0 { rssi += shadowingSigma * generator.nextGaussian() }
        return rssi >= receiverSensitivity ? rssi : nil
    }

    /// The measured power (RSSI at 1 m, no obstacles) this model gives for a TX power.
    public func measuredPower(txPower: Double) -> Double { txPower - referenceLoss }
}
