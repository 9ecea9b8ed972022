import HCITestKit
import Testing
@testable import HCI

/// Values the spec forbids are refused when building a command, and bytes a host could
/// send wrongly are refused when a virtual controller decodes them.
@Suite struct CommandValidationTests {
    @Test func legacyAdvertisingIntervalMustBeWithinTwentyMillisecondsAndTenSeconds() throws {
        #expect(throws: HCIParameterError.self) {
            try LESetAdvertisingParameters(intervalMin: try interval(0x20), intervalMax: try interval(0x4001))
        }
        let error = #expect(throws: HCIParameterError.self) {
            try LESetAdvertisingParameters(intervalMin: try interval(0xB0), intervalMax: try interval(0xA0))
        }
        #expect(error?.message == "minimum advertising interval 110 ms is above the maximum 100 ms")
    }

    @Test func channelMapMustSelectAPrimaryChannel() throws {
        #expect(throws: HCIParameterError.self) {
            try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault, channelMap: [])
        }
        #expect(throws: HCIParameterError.self) {
            try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault,
                                           channelMap: AdvertisingChannelMap(rawValue: 0x08))
        }
    }

    @Test func legacyAdvertisingDataHoldsThirtyOneBytes() throws {
        let error = #expect(throws: HCIParameterError.self) {
            try LESetAdvertisingData(data: Array(repeating: 0, count: 32))
        }
        #expect(error?.message == "legacy advertising data holds at most 31 bytes; this has 32")
    }

    @Test func extendedParametersAreChecked() throws {
        func build(txPower: Int8? = nil, primary: LEPhy = .le1M, secondary: LEPhy = .le1M, sid: UInt8 = 0,
                   properties: AdvertisingEventProperties = .legacyNonConnectable) throws {
            _ = try LESetExtendedAdvertisingParameters(
                handle: try handle(0), properties: properties, intervalMin: .beaconDefault, intervalMax: .beaconDefault,
                txPower: txPower, primaryPHY: primary, secondaryPHY: secondary, sid: sid)
        }
        try build(txPower: 20)
        try build(txPower: -127)
        #expect(throws: HCIParameterError.self) { try build(txPower: 21) }
        #expect(throws: HCIParameterError.self) { try build(txPower: -128) }
        #expect(throws: HCIParameterError.self) { try build(primary: .le2M) }
        #expect(throws: HCIParameterError.self) { try build(secondary: LEPhy(rawValue: 4)) }
        #expect(throws: HCIParameterError.self) { try build(sid: 16) }
        #expect(throws: HCIParameterError.self) { try build(properties: AdvertisingEventProperties(rawValue: 0x80)) }
    }

    @Test func advertisingHandlesStopAt0xEF() {
        #expect(AdvertisingHandle(rawValue: 0xEF) != nil)
        #expect(AdvertisingHandle(rawValue: 0xF0) == nil)
    }

    @Test func extendedEnableRules() throws {
        #expect(throws: HCIParameterError.self) { try LESetExtendedAdvertisingEnable(true, sets: []) }
        #expect(throws: HCIParameterError.self) {
            try LESetExtendedAdvertisingEnable(enabling: [try handle(1), try handle(1)])
        }
        let tooMany = try (0..<64).map { try handle(UInt8($0)) }
        #expect(throws: HCIParameterError.self) { try LESetExtendedAdvertisingEnable(enabling: tooMany) }
        // 63 sets is the most, and still fits in 255 parameter bytes: 2 + 63 × 4 = 254.
        let most = try LESetExtendedAdvertisingEnable(enabling: Array(tooMany.prefix(63)))
        #expect(try HCICommandPacket(most).parameters.count == 254)
    }

    @Test func extendedDataFragmentLimit() throws {
        #expect(throws: HCIParameterError.self) {
            try LESetExtendedAdvertisingData(handle: try handle(0), data: Array(repeating: 0, count: 252))
        }
        #expect(throws: HCIParameterError.self) {
            try LESetExtendedAdvertisingData(handle: try handle(0), operation: .unchangedData, data: [1])
        }
    }

    @Test func scanWindowCannotExceedInterval() throws {
        #expect(throws: HCIParameterError.self) {
            try LESetScanParameters(interval: try scanInterval(0x10), window: try scanInterval(0x11))
        }
        #expect(throws: HCIParameterError.self) {
            try LESetScanParameters(interval: try scanInterval(0x4001), window: try scanInterval(0x10))
        }
        #expect(throws: HCIParameterError.self) {
            try LESetExtendedScanParameters.PHYParameters(interval: try scanInterval(0x10), window: try scanInterval(0x20))
        }
        #expect(throws: HCIParameterError.self) { try LESetExtendedScanParameters(le1M: nil, leCoded: nil) }
        #expect(throws: HCIParameterError.self) {
            try LESetExtendedScanEnable(true, filterDuplicates: .enabledResetEachPeriod)
        }
    }

    // MARK: Decoding what a host sent (the virtual controller's side)

    @Test func truncatedParametersAreRefusedWithTheirPosition() {
        #expect(throws: HCIDecodingError.truncated(structure: "LE Set Advertising Parameters parameters", offset: 14, needed: 1, available: 0)) {
            try LESetAdvertisingParameters.decodeParameters(hex("a0 00 a0 00 03 00 00 00 00 00 00 00 00 07")[...])
        }
        #expect(throws: HCIDecodingError.self) {
            try LESetExtendedAdvertisingParameters.decodeParameters(hex("00 10 00 a0 00")[...])
        }
        #expect(throws: HCIDecodingError.self) { try LESetRandomAddress.decodeParameters(hex("01 02 03 04 05")[...]) }
    }

    @Test func overLongParametersAreRefused() {
        #expect(throws: HCIDecodingError.trailingBytes(structure: "LE Set Advertising Enable parameters", offset: 1, count: 1)) {
            try LESetAdvertisingEnable.decodeParameters(hex("01 00")[...])
        }
        #expect(throws: HCIDecodingError.trailingBytes(structure: "Reset parameters", offset: 0, count: 1)) {
            try Reset.decodeParameters(hex("00")[...])
        }
        // Legacy advertising data must be exactly 32 bytes, even when short.
        #expect(throws: HCIDecodingError.self) {
            try LESetAdvertisingData.decodeParameters((hex("03 02 01 06") + Array(repeating: 0, count: 29))[...])
        }
        #expect(throws: HCIDecodingError.self) {
            try LESetAdvertisingData.decodeParameters(hex("03 02 01 06")[...])
        }
    }

    @Test func reservedValuesAreRefused() {
        #expect(throws: HCIDecodingError.invalidValue(structure: "LE Set Advertising Enable parameters", field: "Advertising_Enable", value: 2, expected: "0x00 or 0x01")) {
            try LESetAdvertisingEnable.decodeParameters(hex("02")[...])
        }
        // Advertising_Type 0x05 is reserved.
        #expect(throws: HCIDecodingError.self) {
            try LESetAdvertisingParameters.decodeParameters(hex("a0 00 a0 00 05 00 00 00 00 00 00 00 00 07 00")[...])
        }
        // Interval 0x001F is below the minimum.
        #expect(throws: HCIDecodingError.self) {
            try LESetAdvertisingParameters.decodeParameters(hex("1f 00 a0 00 03 00 00 00 00 00 00 00 00 07 00")[...])
        }
        // Data length 0x20 is above 31.
        #expect(throws: HCIDecodingError.self) {
            try LESetAdvertisingData.decodeParameters(([0x20] + Array(repeating: 0, count: 31))[...])
        }
        // Handle 0xF0 is reserved.
        #expect(throws: HCIDecodingError.self) { try LERemoveAdvertisingSet.decodeParameters(hex("f0")[...]) }
        // Scanning on LE 2M is not a thing (bit 1 reserved for scanning).
        #expect(throws: HCIDecodingError.self) {
            try LESetExtendedScanParameters.decodeParameters(hex("00 00 02 00 60 00 30 00")[...])
        }
    }

    @Test func contradictoryParametersAreRefused() {
        // Minimum 0x00B0 above maximum 0x00A0: RootCanal 1.10.0 answers these exact bytes
        // with 0x12 Invalid HCI Command Parameters.
        let error = #expect(throws: HCIDecodingError.self) {
            try LESetAdvertisingParameters.decodeParameters(hex("b0 00 a0 00 03 01 00 00 00 00 00 00 00 07 00")[...])
        }
        if case .inconsistentParameters(let structure, _)? = error {
            #expect(structure == "LE Set Advertising Parameters parameters")
        } else {
            Issue.record("expected inconsistentParameters, got \(String(describing: error))")
        }
        #expect(throws: HCIDecodingError.self) {
            try LESetExtendedAdvertisingData.decodeParameters(hex("01 03 01 05 01 02")[...])
        }
        #expect(throws: HCIDecodingError.self) {
            // Enable with zero sets.
            try LESetExtendedAdvertisingEnable.decodeParameters(hex("01 00")[...])
        }
    }
}
