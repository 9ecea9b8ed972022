#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore

/// A smooth random function of a link's two ends, the same every time it is asked about
/// the same two points: what makes a simulated spot keep its offset instead of drawing a
/// new one for every packet.
///
/// A sum of `waveCount` plane waves in the 4-dimensional space of (transmitter x, y,
/// receiver x, y) with Gaussian-distributed wave vectors: by the central limit theorem the
/// values are close to standard normal, and the correlation between two links falls as
/// `exp(−r² / 2L²)` with `r` the distance the ends moved and `L` the correlation distance.
struct LinkField: Hashable, Sendable {
    private struct Wave: Hashable, Sendable {
        var transmitter: (x: Double, y: Double)
        var receiver: (x: Double, y: Double)
        var phase: Double

        static func == (lhs: Wave, rhs: Wave) -> Bool {
            lhs.transmitter == rhs.transmitter && lhs.receiver == rhs.receiver && lhs.phase == rhs.phase
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(transmitter.x)
            hasher.combine(transmitter.y)
            hasher.combine(receiver.x)
            hasher.combine(receiver.y)
            hasher.combine(phase)
        }
    }

    static let waveCount = 48
    private let waves: [Wave]
    private let amplitude: Double

    init(correlationDistance: Double, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let spread = 1 / max(correlationDistance, 1e-3)
        waves = (0..<Self.waveCount).map { _ in
            Wave(
                transmitter: (generator.nextGaussian() * spread, generator.nextGaussian() * spread),
                receiver: (generator.nextGaussian() * spread, generator.nextGaussian() * spread),
                phase: Double(generator.next() >> 11) / Double(1 << 53) * 2 * Double.pi)
        }
        amplitude = (2 / Double(Self.waveCount)).squareRoot()
    }

    /// Approximately N(0, 1) over links; continuous in both ends.
    func value(from transmitter: PlanPoint, to receiver: PlanPoint) -> Double {
        var sum = 0.0
        for wave in waves {
            sum += cos(
                wave.transmitter.x * transmitter.x + wave.transmitter.y * transmitter.y
                    + wave.receiver.x * receiver.x + wave.receiver.y * receiver.y + wave.phase)
        }
        return amplitude * sum
    }
}

/// Shadowing that belongs to a spot, not to a packet: a shelf or a wall between beacon and
/// receiver takes the same few dB from every packet while neither moves, and averaging
/// does not remove it. Log-normal with `sigma` dB, correlated over `correlationDistance`
/// metres of movement of either end (indoors about 1–2 m).
public struct SpatialShadowing: Hashable, Sendable {
    public let sigma: Double
    public let correlationDistance: Double
    public let seed: UInt64
    private let field: LinkField

    public init(sigma: Double, correlationDistance: Double = 1.5, seed: UInt64 = 0x5348_4144) {
        self.sigma = sigma.isFinite ? max(sigma, 0) : 0
        self.correlationDistance = correlationDistance.isFinite && correlationDistance > 0 ? correlationDistance : 1.5
        self.seed = seed
        field = LinkField(correlationDistance: self.correlationDistance, seed: seed)
    }

    /// dB to add to the mean RSSI of this link.
    public func offset(from transmitter: PlanPoint, to receiver: PlanPoint) -> Double {
        sigma * field.value(from: transmitter, to: receiver)
    }
}

/// Multipath fading per advertising channel: at one spot, the direct path and the
/// reflections add up differently at 2402, 2426 and 2480 MHz, so each of an iBeacon's three
/// channels has its own level, and one of them is often in a deep null. Rician with factor
/// `k` (power of the direct path over the scattered ones; 0 is Rayleigh, no direct path),
/// decorrelating over about half a wavelength (6 cm) of movement.
public struct ChannelFading: Hashable, Sendable {
    public let k: Double
    public let seed: UInt64
    /// Per primary channel (37, 38, 39): in-phase and quadrature fields.
    private let fields: [[LinkField]]
    /// About λ/2 at 2.4 GHz.
    public static let correlationDistance = 0.06
    /// Deepest fade modelled, dB (a real receiver's dynamic range ends somewhere too).
    public static let deepestFade = -30.0

    public init(k: Double = 1, seed: UInt64 = 0x4641_4445) {
        self.k = k.isFinite ? max(k, 0) : 1
        self.seed = seed
        fields = (0..<3).map { channel in
            (0..<2).map { part in
                LinkField(correlationDistance: Self.correlationDistance, seed: seed &+ UInt64(channel * 2 + part) &* 0x9E37_79B9)
            }
        }
    }

    /// dB to add on `channel` (37, 38 or 39; any other is treated as 37) for this link.
    /// The mean received power over spots is unchanged (E|h|² = 1).
    public func offset(channel: UInt8, from transmitter: PlanPoint, to receiver: PlanPoint) -> Double {
        let index = channel >= 37 && channel <= 39 ? Int(channel - 37) : 0
        let scattered = (1 / (k + 1)).squareRoot()
        let direct = (k / (k + 1)).squareRoot()
        let inPhase = direct + scattered * fields[index][0].value(from: transmitter, to: receiver) / 2.0.squareRoot()
        let quadrature = scattered * fields[index][1].value(from: transmitter, to: receiver) / 2.0.squareRoot()
        let power = inPhase * inPhase + quadrature * quadrature
        return max(10 * log10(max(power, 1e-12)), Self.deepestFade)
    }
}
