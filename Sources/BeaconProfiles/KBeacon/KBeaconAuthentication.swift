import BeaconCore
import CryptoPrimitives

/// KBeacon's challenge-response authentication, as the vendor's SDK performs it
/// (kkmhogen/android_kbeaconlib2, kbeaconlib2/src/main/java/com/kkmcn/kbeaconlib2/KBAuthHandler.java):
///
/// 1. the central writes `0x13 0x01` and a 4-byte random of its own;
/// 2. the beacon notifies `0x1_ 0x01` (or `0x0B`, short form), its own 4-byte random and
///    MD5(address | 0xA9 0xB1 | central's random | password), where address is the
///    beacon's six address bytes least significant first; the short form folds the digest
///    to 8 bytes (byte i XOR byte i+8);
/// 3. the central checks that proof, and only when it matches answers `0x13 0x02` with
///    MD5(address | 0xA9 0xB1 | beacon's random | password) (`0x13 0x0C` and the folded
///    form when the beacon used the short one);
/// 4. the beacon notifies `0x1_ 0x02 MTU` (accepted) or `0xF1` (refused).
///
/// The SDK accepts passwords of 8 to 16 characters (`KBeacon.connectEnhanced`,
/// `KBCfgCommon.setPassword`); the factory password is sixteen ASCII zeros
/// (the SDK demo's `DevicePannelActivity.DEFAULT_PASSWORD`).
enum KBeaconAuthentication {
    static let factorID: [UInt8] = [0xA9, 0xB1]
    static let passwordLengths = 8...16
    static let factoryPassword = BeaconPassword("0000000000000000")

    /// The first write: `0x13 0x01` and the central's random.
    static func request(random: [UInt8]) -> [UInt8] {
        [KBeaconFrame.head(.authentication, .single), 0x01] + random
    }

    /// The answer to the beacon's challenge, full or folded as it asked.
    static func response(proof: [UInt8], folded: Bool) -> [UInt8] {
        [KBeaconFrame.head(.authentication, .single), folded ? 0x0C : 0x02] + proof
    }

    /// MD5(address least significant byte first | factor | random | password), folded to 8
    /// bytes when `folded`; `nil` when OpenSSL refuses MD5.
    static func proof(address: BluetoothAddress, random: [UInt8], password: BeaconPassword, folded: Bool) -> [UInt8]? {
        guard let digest = Cryptography.md5(address.littleEndianBytes + factorID + random + password.utf8) else { return nil }
        guard folded else { return digest }
        return (0..<8).map { digest[$0] ^ digest[$0 + 8] }
    }

    /// Why `password` is not one a KBeacon accepts, `nil` when it is.
    static func problem(with password: BeaconPassword) -> String? {
        guard passwordLengths.contains(password.byteCount) else {
            return "a KBeacon password has 8 to 16 characters, this one has \(password.byteCount)"
        }
        guard password.isPrintableASCII else {
            return "a KBeacon password is typed in the vendor's app: use printable ASCII characters only"
        }
        return nil
    }
}
