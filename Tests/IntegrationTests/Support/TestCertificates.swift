import Foundation
import Testing

/// A certificate authority and certificates made for one test with the `openssl` command
/// (Debian `openssl`), in a temporary folder: the broker's (for 127.0.0.1 and localhost, or
/// for another host), clients' (their common name is their MQTT user name under
/// `use_identity_as_username`), and a second CA that nobody trusts, with a client of its own.
struct TestCertificates {
    static let openssl = "/usr/bin/openssl"

    struct Pair {
        var certificate: String
        var key: String
    }

    let folder: URL
    let ca: Pair
    let otherCA: Pair
    /// Names 127.0.0.1 and localhost.
    let broker: Pair
    /// Valid, signed by `ca`, but for `other.example` only.
    let brokerForAnotherHost: Pair

    static func make() async throws -> TestCertificates {
        guard FileManager.default.isExecutableFile(atPath: openssl) else {
            throw MosquittoBroker.Unavailable(description: "no \(openssl) (Debian package `openssl`); scripts/test.sh installs it")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-certificates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ca = try await authority("ca", in: folder)
        let otherCA = try await authority("other-ca", in: folder)
        let broker = try await issue("broker", commonName: "beaconctl test broker", names: "DNS:localhost,IP:127.0.0.1", by: ca, in: folder)
        let elsewhere = try await issue("broker-elsewhere", commonName: "other.example", names: "DNS:other.example", by: ca, in: folder)
        return TestCertificates(folder: folder, ca: ca, otherCA: otherCA, broker: broker, brokerForAnotherHost: elsewhere)
    }

    /// A client certificate whose common name is `name`, signed by `ca` (or the other CA).
    func client(_ name: String, signedByOtherCA: Bool = false) async throws -> Pair {
        try await Self.issue("client-\(name)\(signedByOtherCA ? "-other" : "")", commonName: name, names: nil, by: signedByOtherCA ? otherCA : ca, in: folder)
    }

    /// A key that belongs to no certificate.
    func strayKey() async throws -> String {
        let key = folder.appendingPathComponent("stray.key").path
        try await MosquittoBroker.run(Self.openssl, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key])
        return key
    }

    /// A self-signed CA, valid for two days (a test lasts minutes).
    private static func authority(_ name: String, in folder: URL) async throws -> Pair {
        let pair = Pair(certificate: folder.appendingPathComponent("\(name).crt").path, key: folder.appendingPathComponent("\(name).key").path)
        try await MosquittoBroker.run(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", pair.key,
            "-out", pair.certificate, "-days", "2", "-subj", "/CN=beaconctl test \(name)",
        ])
        return pair
    }

    /// A certificate for `commonName` (and `names`, a subjectAltName list) signed by `authority`.
    private static func issue(_ name: String, commonName: String, names: String?, by authority: Pair, in folder: URL) async throws -> Pair {
        let pair = Pair(certificate: folder.appendingPathComponent("\(name).crt").path, key: folder.appendingPathComponent("\(name).key").path)
        let request = folder.appendingPathComponent("\(name).csr").path
        try await MosquittoBroker.run(openssl, [
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", pair.key, "-out", request,
            "-subj", "/CN=\(commonName)",
        ])
        var arguments = [
            "x509", "-req", "-in", request, "-CA", authority.certificate, "-CAkey", authority.key, "-CAcreateserial",
            "-out", pair.certificate, "-days", "2",
        ]
        if let names {
            let extensions = folder.appendingPathComponent("\(name).ext")
            try "subjectAltName=\(names)\n".write(to: extensions, atomically: true, encoding: .utf8)
            arguments += ["-extfile", extensions.path]
        }
        try await MosquittoBroker.run(openssl, arguments)
        return pair
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
