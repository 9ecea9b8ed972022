import CLibCrypto

/// MD5 (RFC 1321) through OpenSSL's EVP interface; `nil` when OpenSSL refuses it (a
/// FIPS-only configuration has no MD5).
enum MD5Digest {
    static func digest(_ bytes: [UInt8]) -> [UInt8]? {
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
