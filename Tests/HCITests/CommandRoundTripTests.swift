import HCITestKit
import Testing
@testable import HCI

/// encode → decode → encode for every command, both through the parameters and through
/// a whole command packet, as a virtual controller reads them.
@Suite struct CommandRoundTripTests {
    func roundTrip<Command: HCICommand & Equatable>(_ command: Command) throws {
        let bytes = command.encodedParameters
        let decoded = try Command.decodeParameters(bytes[...])
        #expect(decoded == command)
        #expect(decoded.encodedParameters == bytes)

        let packet = try HCICommandPacket(command).packet
        let reread = try HCICommandPacket(packet: packet)
        #expect(reread.opcode == Command.opcode)
        #expect(try reread.decode(as: Command.self) == command)
    }

    @Test func everyCommandRoundTrips() throws {
        try roundTrip(Reset())
        try roundTrip(SetEventMask(mask: .beaconHost))
        try roundTrip(ReadLocalVersionInformation())
        try roundTrip(ReadBDADDR())
        try roundTrip(ReadLocalSupportedCommands())
        try roundTrip(LESetEventMask(mask: .beaconHost))
        try roundTrip(LEReadBufferSize())
        try roundTrip(LEReadLocalSupportedFeatures())
        try roundTrip(LESetRandomAddress(address: .randomStatic()))
        try roundTrip(try LESetAdvertisingParameters(
            intervalMin: try interval(0x20), intervalMax: try interval(0x4000), type: .scannableUndirected,
            ownAddressType: .resolvableOrRandom, peerAddressType: .random, peerAddress: try address("01:02:03:04:05:06"),
            channelMap: [.channel37, .channel39], filterPolicy: .filterAcceptListOnly))
        try roundTrip(LEReadAdvertisingPhysicalChannelTxPower())
        try roundTrip(try LESetAdvertisingData(data: iBeaconData))
        try roundTrip(try LESetAdvertisingData(data: []))
        try roundTrip(try LESetAdvertisingData(data: Array(repeating: 0xAB, count: 31)))
        try roundTrip(LESetAdvertisingEnable(true))
        try roundTrip(try LESetScanParameters(type: .active, interval: try scanInterval(0x4000), window: try scanInterval(4),
                                              ownAddressType: .random, filterPolicy: .extendedFiltered))
        try roundTrip(LESetScanEnable(true, filterDuplicates: true))
        try roundTrip(LESetAdvertisingSetRandomAddress(handle: try handle(0xEF), address: .randomStatic()))
        try roundTrip(try LESetExtendedAdvertisingParameters(
            handle: try handle(7), properties: [.connectable, .scannable], intervalMin: try interval(0x20),
            intervalMax: try interval(0xFF_FFFF), channelMap: [.channel38], ownAddressType: .resolvableOrPublic,
            filterPolicy: .scanAllConnectFilterAcceptList, txPower: -127, primaryPHY: .leCoded,
            secondaryMaxSkip: 3, secondaryPHY: .le2M, sid: 15, scanRequestNotification: true))
        try roundTrip(try LESetExtendedAdvertisingParameters(handle: try handle(0), intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        try roundTrip(try LESetExtendedAdvertisingData(handle: try handle(2), operation: .firstFragment,
                                                       fragmentPreference: .mayFragment, data: Array(repeating: 1, count: 251)))
        try roundTrip(try LESetExtendedAdvertisingData(handle: try handle(2), operation: .unchangedData, data: []))
        try roundTrip(try LESetExtendedAdvertisingEnable(enabling: [try handle(0), try handle(5), try handle(9)]))
        try roundTrip(LESetExtendedAdvertisingEnable.disableAll)
        try roundTrip(try LESetExtendedAdvertisingEnable(false, sets: [.init(handle: try handle(4))]))
        try roundTrip(LEReadMaximumAdvertisingDataLength())
        try roundTrip(LEReadNumberOfSupportedAdvertisingSets())
        try roundTrip(LERemoveAdvertisingSet(handle: try handle(1)))
        try roundTrip(LEClearAdvertisingSets())
        try roundTrip(try LESetExtendedScanParameters(
            le1M: try .init(interval: try scanInterval(0x60), window: try scanInterval(0x60))))
        try roundTrip(try LESetExtendedScanParameters(
            ownAddressType: .random, filterPolicy: .basicFiltered, le1M: nil,
            leCoded: try .init(type: .active, interval: try scanInterval(0xFFFF), window: try scanInterval(0x10))))
        try roundTrip(try LESetExtendedScanEnable(true, filterDuplicates: .enabledResetEachPeriod, durationIn10ms: 100, periodIn1280ms: 2))
        try roundTrip(LESetExtendedScanEnable.disable)
    }

    @Test func commandPacketOfAnotherOpcodeIsRefused() throws {
        let packet = try HCICommandPacket(Reset())
        #expect(throws: HCIDecodingError.wrongOpcode(expected: .readBDADDR, found: .reset)) {
            try packet.decode(as: ReadBDADDR.self)
        }
    }

    @Test func commandPacketLengthMustMatch() throws {
        #expect(throws: HCIDecodingError.lengthMismatch(structure: "LE Set Advertising Enable command packet", declared: 1, actual: 2)) {
            try HCICommandPacket(packet: packet("01 0a 20 01 01 00"))
        }
        #expect(throws: HCIDecodingError.truncated(structure: "HCI command packet", offset: 2, needed: 1, available: 0)) {
            try HCICommandPacket(packet: packet("01 0a 20"))
        }
        #expect(throws: HCIDecodingError.wrongPacketType(expected: .command, found: .event)) {
            try HCICommandPacket(packet: packet("04 0e 00"))
        }
    }

    @Test func rawCommandPacketsAreLimitedTo255ParameterBytes() throws {
        #expect(throws: HCIParameterError.self) {
            try HCICommandPacket(opcode: .leSetExtendedAdvertisingData, parameters: Array(repeating: 0, count: 256))
        }
        let largest = try HCICommandPacket(opcode: .leSetExtendedAdvertisingData, parameters: Array(repeating: 0, count: 255))
        #expect(largest.packet.body.count == 3 + 255)
        #expect(largest.packet.body[2] == 0xFF)
    }
}
