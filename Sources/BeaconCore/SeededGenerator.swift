/// A small, fast, seedable random number generator (SplitMix64, Steele, Lea & Flood,
/// "Fast splittable pseudorandom number generators", OOPSLA 2014). The same seed gives the
/// same sequence on every platform, which is what makes simulated runs reproducible.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A standard normal sample (Box–Muller; one of the pair is discarded for simplicity,
    /// which costs speed, not correctness).
    public mutating func nextGaussian() -> Double {
        // Uniform in (0, 1]: never exactly 0, so the logarithm stays finite.
        let u1 = Double(next() >> 11 &+ 1) / Double(1 << 53)
        let u2 = Double(next() >> 11) / Double(1 << 53)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
