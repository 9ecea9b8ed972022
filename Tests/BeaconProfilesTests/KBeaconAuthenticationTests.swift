import BeaconCore
import CryptoPrimitives
import Testing

@testable import BeaconProfiles

/// KBeacon's proofs (KBAuthHandler.java): MD5 over the address least significant byte
/// first, 0xA9 0xB1, a random and the password. The expected digests were computed with
/// Python's hashlib, not with this code.
@Suite("KBeacon authentication")
struct KBeaconAuthenticationTests {
    static let address = BluetoothAddress("F0:4C:0A:00:00:02") ?? .zero

    @Test("the proof for the factory password, full and folded")
    func proofs() {
        let random: [UInt8] = [1, 2, 3, 4]
        let full = KBeaconAuthentication.proof(address: Self.address, random: random, password: KBeaconProfile.factoryPassword, folded: false)
        #expect(full.map(Hex.text) == "3e920a6a6512d87611fc69a7ae618c26")
        let folded = KBeaconAuthentication.proof(address: Self.address, random: random, password: KBeaconProfile.factoryPassword, folded: true)
        #expect(folded.map(Hex.text) == "2f6e63cdcb735450")
    }

    @Test("MD5 comes from OpenSSL: the empty input's digest (RFC 1321 A.5)")
    func md5() {
        #expect(Cryptography.md5([]).map(Hex.text) == "d41d8cd98f00b204e9800998ecf8427e")
    }

    @Test("the writes: request with the central's random, answer full or folded")
    func writes() {
        #expect(KBeaconAuthentication.request(random: [9, 8, 7, 6]) == [0x13, 0x01, 9, 8, 7, 6])
        #expect(KBeaconAuthentication.response(proof: [1, 2], folded: false) == [0x13, 0x02, 1, 2])
        #expect(KBeaconAuthentication.response(proof: [1, 2], folded: true) == [0x13, 0x0C, 1, 2])
    }

    @Test("passwords of 8 to 16 printable ASCII characters only; the reason never shows the password")
    func passwordRules() {
        #expect(KBeaconAuthentication.problem(with: BeaconPassword("12345678")) == nil)
        #expect(KBeaconAuthentication.problem(with: BeaconPassword("0123456789abcdef")) == nil)
        let short = KBeaconAuthentication.problem(with: BeaconPassword("secret7"))
        #expect(short == "a KBeacon password has 8 to 16 characters, this one has 7")
        #expect(KBeaconAuthentication.problem(with: BeaconPassword("0123456789abcdefg")) != nil)
        #expect(KBeaconAuthentication.problem(with: BeaconPassword("pässwört!")) != nil)
    }

    @Test("a password redacts itself everywhere it could be printed")
    func redaction() {
        let password = BeaconPassword("hunter2hunter2")
        #expect("\(password)" == "<password redacted>")
        #expect(String(reflecting: password) == "<password redacted>")
        var dumped = ""
        dump(password, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(!"\(BeaconProfileError(context: "kbeacon", kind: .invalidPassword("too short")))".contains("hunter2"))
    }
}

enum Hex {
    static func text(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
