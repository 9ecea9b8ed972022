import BeaconCore
import CryptoPrimitives
import LECentral
import Testing

@testable import BeaconProfiles

/// The Eddystone Configuration GATT Service's values (google/eddystone
/// configuration-service/README.md) and the AES-128 its unlock uses.
@Suite("Eddystone configuration service")
struct EddystoneConfigurationTests {
    @Test("AES-128-ECB comes from OpenSSL: FIPS-197 Appendix C.1")
    func aes() {
        let key = (0..<16).map { UInt8($0) }
        let plaintext: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]
        #expect(Cryptography.aes128ECB(key: key, block: plaintext).map(Hex.text) == "69c4e0d86a7b0430d8cdb78070b4c55a")
        #expect(Cryptography.aes128ECB(key: [1], block: plaintext) == nil)
    }

    @Test("capabilities: version, slots, bits, frame types, the powers lowest first")
    func capabilities() throws {
        let capabilities = try EddystoneConfigurationService.Capabilities(bytes: [0x00, 4, 1, 0x03, 0x00, 0x0B, 0xEC, 0xFC, 0x00, 0x04])
        #expect(capabilities.maximumSlots == 4)
        #expect(capabilities.maximumEIDSlots == 1)
        #expect(capabilities.perSlotInterval && capabilities.perSlotTxPower)
        #expect(capabilities.frameTypes == 0x000B)
        #expect(capabilities.txPowers == [-20, -4, 0, 4])
        #expect(throws: EddystoneDecodeError.tooShort(what: "Capabilities", length: 6, needed: 7)) {
            try EddystoneConfigurationService.Capabilities(bytes: [0, 1, 0, 0, 0, 1])
        }
    }

    @Test("interval big-endian, powers signed, lock states, challenge; wrong lengths and values refused")
    func values() throws {
        #expect(try EddystoneConfigurationService.interval([0x01, 0x5E]) == 350)
        #expect(EddystoneConfigurationService.intervalBytes(350) == [0x01, 0x5E])
        #expect(try EddystoneConfigurationService.power([0xFC], what: "Radio Tx Power") == -4)
        #expect(try EddystoneConfigurationService.lockState([0x02]) == .unlockedWithoutRelock)
        #expect(throws: EddystoneDecodeError.unknownLockState(3)) { try EddystoneConfigurationService.lockState([3]) }
        #expect(throws: EddystoneDecodeError.self) { try EddystoneConfigurationService.interval([1]) }
        #expect(throws: EddystoneDecodeError.self) { try EddystoneConfigurationService.power([], what: "Radio Tx Power") }
        #expect(throws: EddystoneDecodeError.self) { try EddystoneConfigurationService.challenge([UInt8](repeating: 0, count: 15)) }
    }

    @Test("a lock code is 32 hexadecimal digits")
    func lockCodes() {
        #expect(EddystoneConfigurationService.lockCode(BeaconPassword("0123456789abcdefFEDCBA9876543210"))
            == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10])
        #expect(EddystoneConfigurationService.lockCode(BeaconPassword("0123")) == nil)
        #expect(EddystoneConfigurationService.lockCode(BeaconPassword(String(repeating: "g", count: 32))) == nil)
    }

    @Test("recognised by the service's 128-bit UUID in an advertisement, or among the services")
    func recognition() {
        let wire = EddystoneGATTProfile.service.littleEndian
        #expect(EddystoneGATTProfile.recognises(advertising: [ADStructure(type: 0x07, data: wire)]))
        #expect(EddystoneGATTProfile.recognises(advertising: [ADStructure(type: 0x06, data: [UInt8](repeating: 1, count: 16) + wire)]))
        #expect(!EddystoneGATTProfile.recognises(advertising: [ADStructure(type: 0x07, data: Array(wire.dropLast()))]))
        #expect(EddystoneGATTProfile.recognises(services: [GATTService(uuid: EddystoneGATTProfile.service, handle: 1, endHandle: 9)]))
        #expect("\(EddystoneGATTProfile.service)" == "A3C87500-8ED3-4BDF-8A39-A01BEBEDE295")
    }
}
