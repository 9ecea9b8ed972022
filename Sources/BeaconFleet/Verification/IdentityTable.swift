import BeaconCore

/// The manifest's identities and their places in it, looked up at every reception: an
/// open-addressing table (linear probing, at most half full) whose slots hold the identity
/// and its place side by side, so a lookup reads one cache line where a `Dictionary` reads
/// three (its bitmap, keys and values). Built once; the identities heard only probe it, so
/// what arrives from the air cannot make it grow or cluster.
struct IdentityTable: Sendable {
    private struct Slot: Sendable {
        var identity: BeaconIdentity
        /// The place, or -1 for an empty slot.
        var index: Int32
    }

    private var slots: [Slot]
    private let mask: Int

    /// `identities[i]` is found at `i`; a repeated identity keeps its first place.
    init(_ identities: [BeaconIdentity]) {
        var capacity = 8
        while capacity < identities.count * 2 { capacity *= 2 }
        let empty = Slot(identity: BeaconIdentity(uuid: ProximityUUID(high: 0, low: 0), major: 0, minor: 0), index: -1)
        slots = Array(repeating: empty, count: capacity)
        mask = capacity - 1
        for (index, identity) in identities.enumerated() {
            var slot = Self.hash(identity) & mask
            while slots[slot].index >= 0 {
                if slots[slot].identity == identity { break }
                slot = (slot + 1) & mask
            }
            if slots[slot].index < 0 { slots[slot] = Slot(identity: identity, index: Int32(index)) }
        }
    }

    subscript(identity: BeaconIdentity) -> Int? {
        var slot = Self.hash(identity) & mask
        while true {
            let entry = slots[slot]
            if entry.index < 0 { return nil }
            if entry.identity == identity { return Int(entry.index) }
            slot = (slot + 1) & mask
        }
    }

    /// The identity's bits mixed (MurmurHash3's 64-bit finaliser): fleets number their
    /// beacons by consecutive majors and minors, which must not land in consecutive slots.
    private static func hash(_ identity: BeaconIdentity) -> Int {
        var value = identity.uuid.high ^ (identity.uuid.low &* 0x9E37_79B9_7F4A_7C15)
            ^ (UInt64(identity.major) << 16 | UInt64(identity.minor)) &* 0xC2B2_AE3D_27D4_EB4F
        value ^= value >> 33
        value &*= 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value &*= 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        return Int(truncatingIfNeeded: value)
    }
}
