import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How radio signals fade between two points of a venue: the mean of `RadioEnvironment`
/// (log-distance path loss, the 1 m reference loss, obstacles) and what is random on top of
/// it: log-normal shadowing and packet loss.
///
/// `RSSI = mean + X_σ`, X_σ ~ N(0, σ²), independently for every packet.
public struct PropagationModel: Hashable, Sendable {
    public var environment: RadioEnvironment
    /// Standard deviation of the log-normal shadowing, dB (0 = no fading).
    public var shadowingSigma: Double
    /// Probability that one advertising packet is not received at all, 0…1.
    public var packetLoss: Double

    public init(
        pathLossExponent: Double = 2.0, referenceLoss: Double = Double(MeasuredPower.oneMetrePathLoss),
        shadowingSigma: Double = 0, packetLoss: Double = 0, obstacles: [Obstacle] = [], receiverSensitivity: Double = -100
    ) {
        self.init(
            environment: RadioEnvironment(
                pathLoss: PathLossModel(pathLossExponent: pathLossExponent), referenceLoss: referenceLoss,
                obstacles: obstacles, receiverSensitivity: receiverSensitivity),
            shadowingSigma: shadowingSigma, packetLoss: packetLoss)
    }

    public init(environment: RadioEnvironment, shadowingSigma: Double = 0, packetLoss: Double = 0) {
        self.environment = environment
        self.shadowingSigma = shadowingSigma
        self.packetLoss = packetLoss
    }

    /// The path-loss exponent n of the environment.
    public var pathLossExponent: Double {
        get { environment.pathLoss.pathLossExponent }
        set { environment.pathLoss.pathLossExponent = newValue }
    }

    public var obstacles: [Obstacle] {
        get { environment.obstacles }
        set { environment.obstacles = newValue }
    }

    /// One received packet's RSSI, or `nil` when the packet is lost or below sensitivity.
    public func sampleRSSI(
        txPower: Double, from transmitter: PlanPoint, to receiver: PlanPoint,
        using generator: inout SeededGenerator
    ) -> Double? {
        if packetLoss > 0 && Double(generator.next() >> 11) / Double(1 << 53) < packetLoss { return nil }
        var rssi = environment.meanRSSI(txPower: txPower, from: transmitter, to: receiver)
        if shadowingSigma > 0 { rssi += shadowingSigma * generator.nextGaussian() }
        return rssi >= environment.receiverSensitivity ? rssi : nil
    }
}
