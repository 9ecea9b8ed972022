import BeaconCore

extension SeededGenerator {
    /// An independent generator for one stream of a run: the same `seed` and `stream` give
    /// the same sequence, different streams give unrelated ones.
    ///
    /// Each advertising set and each receiver draws from its own stream, so that a run's
    /// randomness does not depend on the order in which hosts happened to send their
    /// commands, only on what happened on the air.
    public init(seed: UInt64, stream: UInt64) {
        self.init(seed: Self.finalize(seed ^ Self.finalize(stream &+ 0x9E37_79B9_7F4A_7C15)))
    }

    /// SplitMix64's output function: a bijection that spreads every input bit over the word.
    static func finalize(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
