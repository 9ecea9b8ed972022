import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How radio signals fade between two points of a venue: the mean of `RadioEnvironment`
/// (log-distance path loss, the 1 m reference loss, obstacles) and what varies on top of
/// it: shadowing fixed at a spot, multipath fading per advertising channel, per-packet
/// noise and packet loss.
///
/// `RSSI = mean + S(spot) + F(channel, spot) + X_σ`: `S` is `spatialShadowing` (the same at
/// the same spot), `F` is `channelFading` (one level per channel at a spot), `X_σ` ~ N(0, σ²)
/// is drawn independently for every packet. The last alone is what the first version
/// simulated: an air that a long enough average always sees through, unlike a real room.
public struct PropagationModel: Hashable, Sendable {
    public var environment: RadioEnvironment
    /// Standard deviation of the log-normal shadowing, dB (0 = no fading).
    public var shadowingSigma: Double
    /// Probability that one advertising packet is not received at all, 0…1.
    public var packetLoss: Double
    /// Shadowing fixed at a spot (`nil`: none).
    public var spatialShadowing: SpatialShadowing?
    /// Multipath fading per advertising channel (`nil`: none).
    public var channelFading: ChannelFading?

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

    public init(
        environment: RadioEnvironment, shadowingSigma: Double = 0, packetLoss: Double = 0,
        spatialShadowing: SpatialShadowing? = nil, channelFading: ChannelFading? = nil
    ) {
        self.environment = environment
        self.shadowingSigma = shadowingSigma
        self.packetLoss = packetLoss
        self.spatialShadowing = spatialShadowing
        self.channelFading = channelFading
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

    /// One received packet's RSSI on advertising `channel`, or `nil` when the packet is
    /// lost or below sensitivity.
    public func sampleRSSI(
        txPower: Double, from transmitter: PlanPoint, to receiver: PlanPoint, channel: UInt8 = 37,
        using generator: inout SeededGenerator
    ) -> Double? {
        if packetLoss > 0 && Double(generator.next() >> 11) / Double(1 << 53) < packetLoss { return nil }
        var rssi = environment.meanRSSI(txPower: txPower, from: transmitter, to: receiver)
        if let spatialShadowing { rssi += spatialShadowing.offset(from: transmitter, to: receiver) }
        if let channelFading { rssi += channelFading.offset(channel: channel, from: transmitter, to: receiver) }
        if shadowingSigma > 0 { rssi += shadowingSigma * generator.nextGaussian() }
        return rssi >= environment.receiverSensitivity ? rssi : nil
    }
}
