import ClockTestKit
import HCITestKit
import Testing
@testable import HCI

/// Return parameters read from Command Complete events of a real controller model and of
/// Bumble, and written back byte for byte (the virtual controller's direction).
@Suite struct ReturnParameterTests {
    /// The return parameters after the status byte of a Command Complete packet.
    func returnParameters(of h4: String) throws -> ArraySlice<UInt8> {
        guard case .commandComplete(let complete) = try HCIEvent(packet: packet(h4)) else {
            throw TestFailure("not a Command Complete")
        }
        #expect(complete.status == .success)
        return complete.returnParameters.dropFirst()
    }

    func encoded<Command: HCICommand>(_ command: Command.Type, _ value: Command.ReturnParameters) -> [UInt8] {
        var bytes: [UInt8] = []
        Command.encodeReturnParameters(value, into: &bytes)
        return bytes
    }

    @Test func readLocalVersionInformationFromRootCanal() throws {
        // RootCanal 1.10.0's answer to Read Local Version Information.
        let bytes = try returnParameters(of: "04 0e 0c 01 01 10 00 0c 00 00 0c e0 00 00 00")
        let version = try ReadLocalVersionInformation.decodeReturnParameters(bytes)
        #expect(version.hciVersion == .v5_3)
        #expect(version.hciVersion.description == "5.3")
        #expect(version.lmpVersion == .v5_3)
        #expect(version.companyIdentifier == 0x00E0)
        #expect(version.hciSubversion == 0)
        #expect(encoded(ReadLocalVersionInformation.self, version) == Array(bytes))
    }

    @Test func readLocalVersionInformationFieldOrder() throws {
        // Bumble 0.0.236: hci_version 12, hci_subversion 0x0100, lmp_version 12,
        // company 0x00E0, lmp_subversion 0x0200.
        let bytes = try returnParameters(of: "04 0e 0c 01 01 10 00 0c 00 01 0c e0 00 00 02")
        let version = try ReadLocalVersionInformation.decodeReturnParameters(bytes)
        #expect(version.hciSubversion == 0x0100)
        #expect(version.lmpSubversion == 0x0200)
    }

    @Test func readBDADDRFromRootCanal() throws {
        let bytes = try returnParameters(of: "04 0e 0a 01 09 10 00 00 17 de 10 4c da")
        let address = try ReadBDADDR.decodeReturnParameters(bytes)
        #expect(address.description == "DA:4C:10:DE:17:00")
        #expect(encoded(ReadBDADDR.self, address) == Array(bytes))
    }

    @Test func leFeaturesFromRootCanal() throws {
        let bytes = try returnParameters(of: "04 0e 0c 01 03 20 00 df 39 00 30 00 00 00 00")
        let features = try LEReadLocalSupportedFeatures.decodeReturnParameters(bytes)
        #expect(features.contains(.extendedAdvertising))
        #expect(features.contains(.encryption))
        #expect(features.contains(.periodicAdvertising))
        #expect(!features.contains(.dataPacketLengthExtension))
        #expect(features.rawValue == 0x3000_39DF)
        #expect(encoded(LEReadLocalSupportedFeatures.self, features) == Array(bytes))
    }

    @Test func advertisingCapacityFromRootCanal() throws {
        let sets = try LEReadNumberOfSupportedAdvertisingSets.decodeReturnParameters(
            try returnParameters(of: "04 0e 05 01 3b 20 00 10"))
        #expect(sets == 16)
        let length = try LEReadMaximumAdvertisingDataLength.decodeReturnParameters(
            try returnParameters(of: "04 0e 06 01 3a 20 00 00 02"))
        #expect(length == 512)
        let power = try LEReadAdvertisingPhysicalChannelTxPower.decodeReturnParameters(
            try returnParameters(of: "04 0e 05 01 07 20 00 f6"))
        #expect(power == -10)
    }

    @Test func selectedTxPowerFromRootCanal() throws {
        // RootCanal 1.10.0 granted the −4 dBm asked for in LE Set Extended Advertising Parameters.
        let power = try LESetExtendedAdvertisingParameters.decodeReturnParameters(
            try returnParameters(of: "04 0e 05 01 36 20 00 fc"))
        #expect(power == -4)
        #expect(encoded(LESetExtendedAdvertisingParameters.self, -4) == [0xFC])
    }

    @Test func leBufferSize() throws {
        // Bumble 0.0.236: 251-byte packets, 8 of them.
        let size = try LEReadBufferSize.decodeReturnParameters(try returnParameters(of: "04 0e 07 01 02 20 00 fb 00 08"))
        #expect(size == .init(aclDataPacketLength: 251, totalACLDataPackets: 8))
    }

    @Test func supportedCommandsBitField() throws {
        var octets = Array(repeating: UInt8(0), count: 64)
        octets[5] = 0b1000_0000  // octet 5 bit 7: Reset (Core v5.4 Vol 4 Part E 6.27)
        let commands = try ReadLocalSupportedCommands.decodeReturnParameters(octets[...])
        #expect(commands.contains(octet: 5, bit: 7))
        #expect(!commands.contains(octet: 5, bit: 6))
        #expect(!commands.contains(octet: 64, bit: 0))
        #expect(encoded(ReadLocalSupportedCommands.self, commands) == octets)
        #expect(throws: HCIDecodingError.self) { try ReadLocalSupportedCommands.decodeReturnParameters(octets.prefix(63)) }
    }

    @Test func truncatedReturnParametersAreErrors() {
        #expect(throws: HCIDecodingError.truncated(structure: "Read BD_ADDR return parameters", offset: 0, needed: 6, available: 5)) {
            try ReadBDADDR.decodeReturnParameters(hex("00 17 de 10 4c")[...])
        }
        #expect(throws: HCIDecodingError.self) { try LEReadMaximumAdvertisingDataLength.decodeReturnParameters(hex("00")[...]) }
        #expect(throws: HCIDecodingError.self) { try LESetExtendedAdvertisingParameters.decodeReturnParameters([][...]) }
    }

    @Test func returnParametersMayGrowInLaterCoreVersions() throws {
        // Bytes after the known fields are ignored, as Linux does.
        #expect(try LEReadNumberOfSupportedAdvertisingSets.decodeReturnParameters(hex("10 99 99")[...]) == 16)
    }

    @Test func commandCompleteBuilders() throws {
        let success = HCIEvent.CommandComplete(answering: ReadBDADDR.self, returnParameters: try address("DA:4C:10:DE:17:00"))
        #expect(try HCIEvent.commandComplete(success).packet().h4Bytes == hex("04 0e 0a 01 09 10 00 00 17 de 10 4c da"))
        let refusal = HCIEvent.CommandComplete(answering: LESetAdvertisingParameters.self, failure: .commandDisallowed)
        // RootCanal 1.10.0's refusal of legacy advertising parameters after extended advertising.
        #expect(try HCIEvent.commandComplete(refusal).packet().h4Bytes == hex("04 0e 04 01 06 20 0c"))
        let done = HCIEvent.CommandComplete(answering: Reset.self)
        #expect(try HCIEvent.commandComplete(done).packet().h4Bytes == hex("04 0e 04 01 03 0c 00"))
    }
}
