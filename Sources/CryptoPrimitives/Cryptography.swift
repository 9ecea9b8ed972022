import CLibCrypto

/// Digests and ciphers from OpenSSL's libcrypto, never written by hand: the one home of the
/// device protocols' cryptography (a KBeacon's MD5 challenge, the Eddystone lock's AES), for
/// beaconctl's profiles and the virtual radio's beacons alike.
public enum Cryptography {
    /// MD5 of `bytes` (RFC 1321) through EVP; `nil` when OpenSSL refuses it (a FIPS-only
    /// configuration has no MD5).
    public static func md5(_ bytes: [UInt8]) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_md5(), nil)
            }
        }
        guard status == 1, length == 16 else { return nil }
        return digest
    }

    /// AES-128 in ECB mode (FIPS-197) of one 16-byte block under a 16-byte key, without
    /// padding; `nil` for other lengths or when OpenSSL fails.
    public static func aes128ECB(key: [UInt8], block: [UInt8]) -> [UInt8]? {
        aes128ECB(key: key, block: block, encrypting: true)
    }

    /// The inverse of ``aes128ECB(key:block:)``: one 16-byte block deciphered under a 16-byte
    /// key (the Eddystone lock's new code arrives enciphered with the old one).
    public static func aes128ECBDecrypt(key: [UInt8], block: [UInt8]) -> [UInt8]? {
        aes128ECB(key: key, block: block, encrypting: false)
    }

    private static func aes128ECB(key: [UInt8], block: [UInt8], encrypting: Bool) -> [UInt8]? {
        guard key.count == 16, block.count == 16, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        var finished: Int32 = 0
        let status = key.withUnsafeBufferPointer { key in
            block.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { output -> Bool in
                    guard EVP_CipherInit_ex(context, EVP_aes_128_ecb(), nil, key.baseAddress, nil, encrypting ? 1 : 0) == 1,
                        EVP_CIPHER_CTX_set_padding(context, 0) == 1,
                        EVP_CipherUpdate(context, output.baseAddress, &written, input.baseAddress, 16) == 1
                    else { return false }
                    return EVP_CipherFinal_ex(context, output.baseAddress.map { $0 + Int(written) }, &finished) == 1
                }
            }
        }
        guard status, written + finished == 16 else { return nil }
        return Array(output[0..<16])
    }
}
