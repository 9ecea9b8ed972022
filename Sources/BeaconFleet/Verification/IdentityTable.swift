import BeaconCore

/// The manifest's identities and their places in it, looked up at every reception: an
/// open-addressing table (linear probing, at most half full) of eight-byte slots, each a
/// place and 32 bits of its identity's hash. At a chain's size (20,000 beacons, half a
/// megabyte) it stays in the processor's caches where a `Dictionary` of identities (keys,
/// values and a bitmap, 2 MB and more) does not; the caller confirms a candidate against
/// the record it was about to read anyway. Built once: the identities heard only probe it,
/// so what arrives from the air cannot make it grow or cluster.
struct IdentityTable: Sendable {
    /// The place plus one (0: empty) in the low half, the hash's top 32 bits in the high.
    private var slots: [UInt64]
    private let mask: Int

    /// `identities[i]` is found at `i`; a repeated identity keeps its first place.
    init(_ identities: [BeaconIdentity]) {
        var capacity = 8
        while capacity < identities.count * 2 { capacity *= 2 }
        slots = Array(repeating: 0, count: capacity)
        mask = capacity - 1
        for (index, identity) in identities.enumerated() {
            let hash = Self.hash(identity)
            var slot = Int(truncatingIfNeeded: hash) & mask
            var repeated = false
            while slots[slot] != 0 {
                let place = Int(slots[slot] & 0xFFFF_FFFF) - 1
                if slots[slot] >> 32 == hash >> 32, identities[place] == identity {
                    repeated = true
                    break
                }
                slot = (slot + 1) & mask
            }
            if !repeated { slots[slot] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(index + 1) }
        }
    }

    /// The place of `identity`, given each candidate place's identity (`identityAt`).
    @inline(__always)
    func index(of identity: BeaconIdentity, identityAt: (Int) -> BeaconIdentity) -> Int? {
        let hash = Self.hash(identity)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if entry >> 32 == hash >> 32 {
                let place = Int(entry & 0xFFFF_FFFF) - 1
                if identityAt(place) == identity { return place }
            }
            slot = (slot + 1) & mask
        }
    }

    /// The identity's bits mixed (MurmurHash3's 64-bit finaliser): fleets number their
    /// beacons by consecutive majors and minors, which must not land in consecutive slots.
    private static func hash(_ identity: BeaconIdentity) -> UInt64 {
        var value = identity.uuid.high ^ (identity.uuid.low &* 0x9E37_79B9_7F4A_7C15)
            ^ (UInt64(identity.major) << 16 | UInt64(identity.minor)) &* 0xC2B2_AE3D_27D4_EB4F
        value ^= value >> 33
        value &*= 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value &*= 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        return value
    }
}
