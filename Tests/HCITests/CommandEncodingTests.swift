import HCITestKit
import Testing
@testable import HCI

/// Every command's bytes against a vector from another implementation.
///
/// Unless noted, vectors were produced by Google Bumble 0.0.236 (`bytes(HCI_..._Command(...))`
/// in `bumble.hci`) for the same field values, an implementation independent of this one.
/// Layouts: Core v5.4 Vol 4 Part E 7.3, 7.4 and 7.8.
@Suite struct CommandEncodingTests {
    @Test func reset() throws {
        #expect(try h4(Reset()) == hex("01 03 0c 00"))
    }

    @Test func setEventMask() throws {
        let command = SetEventMask(mask: HCIEventMask(rawValue: 0x3DBF_FFFF_FFFF_FFFF))
        #expect(try h4(command) == hex("01 01 0c 08 ff ff ff ff ff ff bf 3d"))
    }

    @Test func parameterlessInformationalCommands() throws {
        #expect(try h4(ReadLocalVersionInformation()) == hex("01 01 10 00"))
        #expect(try h4(ReadLocalSupportedCommands()) == hex("01 02 10 00"))
        #expect(try h4(ReadBDADDR()) == hex("01 09 10 00"))
        #expect(try h4(LEReadBufferSize()) == hex("01 02 20 00"))
        #expect(try h4(LEReadLocalSupportedFeatures()) == hex("01 03 20 00"))
        #expect(try h4(LEReadAdvertisingPhysicalChannelTxPower()) == hex("01 07 20 00"))
        #expect(try h4(LEReadMaximumAdvertisingDataLength()) == hex("01 3a 20 00"))
        #expect(try h4(LEReadNumberOfSupportedAdvertisingSets()) == hex("01 3b 20 00"))
        #expect(try h4(LEClearAdvertisingSets()) == hex("01 3d 20 00"))
    }

    @Test func leSetEventMask() throws {
        let command = LESetEventMask(mask: [.connectionComplete, .advertisingReport, .connectionUpdateComplete,
                                             .readRemoteFeaturesComplete, .longTermKeyRequest, .extendedAdvertisingReport])
        #expect(try h4(command) == hex("01 01 20 08 1f 10 00 00 00 00 00 00"))
    }

    @Test func leSetRandomAddressSendsLeastSignificantByteFirst() throws {
        let command = LESetRandomAddress(address: try address("C4:5B:BE:12:34:56"))
        #expect(try h4(command) == hex("01 05 20 06 56 34 12 be 5b c4"))
    }

    @Test func leSetAdvertisingParameters() throws {
        let command = try LESetAdvertisingParameters(
            intervalMin: try interval(0xA0), intervalMax: try interval(0xB0), type: .nonConnectableUndirected,
            ownAddressType: .random)
        #expect(try h4(command) == hex("01 06 20 0f a0 00 b0 00 03 01 00 00 00 00 00 00 00 07 00"))
    }

    @Test func leSetAdvertisingDataIsAlwaysThirtyTwoParameterBytes() throws {
        let command = try LESetAdvertisingData(data: iBeaconData)
        let expected = hex("01 08 20 20 1e") + iBeaconData + [0x00]
        #expect(try h4(command) == expected)

        let short = try h4(LESetAdvertisingData(data: [0x02, 0x01, 0x06]))
        #expect(short == hex("01 08 20 20 03 02 01 06") + Array(repeating: 0, count: 28))
        #expect(try h4(LESetAdvertisingData(data: [])).count == 4 + 32)
    }

    @Test func leSetAdvertisingEnable() throws {
        #expect(try h4(LESetAdvertisingEnable(true)) == hex("01 0a 20 01 01"))
        #expect(try h4(LESetAdvertisingEnable(false)) == hex("01 0a 20 01 00"))
    }

    @Test func leSetScanParameters() throws {
        let command = try LESetScanParameters(type: .passive, interval: try scanInterval(0x60), window: try scanInterval(0x30))
        #expect(try h4(command) == hex("01 0b 20 07 00 60 00 30 00 00 00"))
    }

    @Test func leSetScanEnable() throws {
        #expect(try h4(LESetScanEnable(true, filterDuplicates: false)) == hex("01 0c 20 02 01 00"))
    }

    @Test func leSetAdvertisingSetRandomAddress() throws {
        let command = LESetAdvertisingSetRandomAddress(handle: try handle(2), address: try address("C4:5B:BE:12:34:56"))
        #expect(try h4(command) == hex("01 35 20 07 02 56 34 12 be 5b c4"))
    }

    @Test func leSetExtendedAdvertisingParametersUsesThreeOctetIntervals() throws {
        let command = try LESetExtendedAdvertisingParameters(
            handle: try handle(1), properties: .legacyNonConnectable,
            intervalMin: try interval(0xA0), intervalMax: try interval(0x0100A0),
            ownAddressType: .random, txPower: -4)
        #expect(try h4(command) == hex("01 36 20 19 01 10 00 a0 00 00 a0 00 01 07 01 00 00 00 00 00 00 00 00 fc 01 00 01 00 00"))
    }

    @Test func leSetExtendedAdvertisingParametersWithoutTxPreferenceSends7F() throws {
        let command = try LESetExtendedAdvertisingParameters(
            handle: try handle(0), intervalMin: .beaconDefault, intervalMax: .beaconDefault)
        // Handle 0, legacy non-connectable, 100 ms, all channels, public address, no TX preference.
        #expect(command.encodedParameters == hex("00 10 00 a0 00 00 a0 00 00 07 00 00 00 00 00 00 00 00 00 7f 01 00 01 00 00"))
    }

    @Test func leSetExtendedAdvertisingData() throws {
        let command = try LESetExtendedAdvertisingData(handle: try handle(1), data: iBeaconData)
        #expect(try h4(command) == hex("01 37 20 22 01 03 01 1e") + iBeaconData)
    }

    @Test func leSetExtendedAdvertisingEnableInterleavesSets() throws {
        let command = try LESetExtendedAdvertisingEnable(true, sets: [
            .init(handle: try handle(0)),
            .init(handle: try handle(1), durationIn10ms: 0x1234, maximumEvents: 5),
        ])
        #expect(try h4(command) == hex("01 39 20 0a 01 02 00 00 00 00 01 34 12 05"))
    }

    @Test func leSetExtendedAdvertisingDisableAll() throws {
        // Core v5.4 Vol 4 Part E 7.8.56: Enable 0 with Num_Sets 0 disables every set.
        #expect(try h4(LESetExtendedAdvertisingEnable.disableAll) == hex("01 39 20 02 00 00"))
    }

    @Test func leRemoveAdvertisingSet() throws {
        #expect(try h4(LERemoveAdvertisingSet(handle: try handle(3))) == hex("01 3c 20 01 03"))
    }

    @Test func leSetExtendedScanParametersForTwoPHYs() throws {
        let command = try LESetExtendedScanParameters(
            le1M: try .init(type: .active, interval: try scanInterval(0x60), window: try scanInterval(0x30)),
            leCoded: try .init(type: .passive, interval: try scanInterval(0x120), window: try scanInterval(0x90)))
        #expect(try h4(command) == hex("01 41 20 0d 00 00 05 01 60 00 30 00 00 20 01 90 00"))
    }

    @Test func leSetExtendedScanEnable() throws {
        let command = try LESetExtendedScanEnable(true, filterDuplicates: .disabled, durationIn10ms: 0x64)
        #expect(try h4(command) == hex("01 42 20 06 01 00 64 00 00 00"))
        #expect(try h4(LESetExtendedScanEnable.disable) == hex("01 42 20 06 00 00 00 00 00 00"))
    }

    @Test func rootCanalAcceptedTheseExtendedAdvertisingBytes() throws {
        // Sent to RootCanal 1.10.0, which answered both with success (it aborts on bytes it
        // cannot parse): parameters, then the iBeacon data for set 1.
        let parameters = try LESetExtendedAdvertisingParameters(
            handle: try handle(1), intervalMin: .beaconDefault, intervalMax: .beaconDefault,
            ownAddressType: .random, txPower: -4)
        #expect(try h4(parameters) == hex("01 36 20 19 01 10 00 a0 00 00 a0 00 00 07 01 00 00 00 00 00 00 00 00 fc 01 00 01 00 00"))
    }
}
