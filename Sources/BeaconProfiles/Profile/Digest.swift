import CLibCrypto

/// Digests and ciphers from OpenSSL's libcrypto, never written by hand.
enum Cryptography {
    /// MD5 of `bytes` (RFC 1321) through EVP; `nil` when OpenSSL refuses it (a FIPS-only
    /// configuration has no MD5).
    static func md5(_ bytes: [UInt8]) -> [UInt8]? {
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
}
