import BeaconCore
import HCI

/// The static random address a beacon advertises from in an advertising set.
///
/// Derived, not drawn: the same beacon on the same controller gets the same address on
/// every run, so a manifest's `mac:` pin can name it and audits can match it. Different
/// beacons, or the same beacon on another controller, get different addresses.
///
/// The derivation (documented in docs/advertising.md so that other tools can compute it):
/// 1. Bytes: the ASCII tag `beaconctl-static-address-v1`, the controller's public address
///    (6 bytes, most significant first; all zeros when it has none), the proximity UUID
///    (16 bytes, air order), major and minor (2 bytes each, big-endian).
/// 2. 64-bit FNV-1a of those bytes, then the SplitMix64 finaliser to spread the bits.
/// 3. The low 46 bits under the two top bits `11` of a static random address
///    (Core v5.4 Vol 6 Part B 1.3.2.1). Should the 46 bits be all 0 or all 1 (forbidden),
///    a byte 0x01 is appended to the input and the hash taken again.
public enum BeaconAddress {
    static let tag = Array("beaconctl-static-address-v1".utf8)

    public static func staticRandom(controller: BluetoothAddress, identity: BeaconIdentity) -> BluetoothAddress {
        var input = tag + controller.bytes + identity.uuid.bytes
        input += [UInt8(identity.major >> 8), UInt8(identity.major & 0xFF)]
        input += [UInt8(identity.minor >> 8), UInt8(identity.minor & 0xFF)]
        let randomPartMask: UInt64 = (1 << 46) - 1
        while true {
            let randomPart = mix(fnv1a(input)) & randomPartMask
            if randomPart != 0 && randomPart != randomPartMask,
                let address = BluetoothAddress(value: 0b11 << 46 | randomPart)
            {
                return address
            }
            input.append(0x01)
        }
    }

    /// 64-bit FNV-1a (offset basis 0xCBF29CE484222325, prime 0x100000001B3).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The SplitMix64 finaliser: FNV-1a's low bits depend weakly on the last bytes; this
    /// makes every output bit depend on every input bit.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
