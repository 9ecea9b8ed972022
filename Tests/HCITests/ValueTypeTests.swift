import BeaconCore
import HCITestKit
import Testing
@testable import HCI

@Suite struct IntervalTests {
    @Test func advertisingIntervalUnitsAndMilliseconds() throws {
        #expect(try AdvertisingInterval(milliseconds: 100).units == 160)
        #expect(try AdvertisingInterval(milliseconds: 20).units == 0x20)
        #expect(try AdvertisingInterval(milliseconds: 10_240).units == 0x4000)
        #expect(try AdvertisingInterval(milliseconds: 152.5).description == "152.5 ms")
        #expect(AdvertisingInterval.beaconDefault.milliseconds == 100)
        #expect(AdvertisingInterval.beaconDefault.description == "100 ms")
        #expect(try interval(0x21).description == "20.625 ms")
        #expect(try interval(0x4000).isLegacyCompatible)
        #expect(!(try interval(0x4001)).isLegacyCompatible)
    }

    @Test func advertisingIntervalRange() {
        #expect(AdvertisingInterval(units: 0x1F) == nil)
        #expect(AdvertisingInterval(units: 0x100_0000) == nil)
        #expect(AdvertisingInterval(units: 0xFF_FFFF) != nil)
        #expect(throws: HCIParameterError.self) { try AdvertisingInterval(milliseconds: 19) }
        #expect(throws: HCIParameterError.self) { try AdvertisingInterval(milliseconds: .nan) }
        #expect(throws: HCIParameterError.self) { try AdvertisingInterval(milliseconds: .infinity) }
        #expect(throws: HCIParameterError.self) { try AdvertisingInterval(milliseconds: 11_000_000) }
    }

    @Test func scanIntervalRange() throws {
        #expect(try ScanInterval(milliseconds: 2.5).units == 4)
        #expect(ScanInterval(units: 3) == nil)
        #expect(try ScanInterval(milliseconds: 60).units == 96)
        #expect(throws: HCIParameterError.self) { try ScanInterval(milliseconds: 2) }
        #expect(throws: HCIParameterError.self) { try ScanInterval(milliseconds: 41_000) }
        #expect(try scanInterval(0x4000).isLegacyCompatible)
        #expect(!(try scanInterval(0x4001)).isLegacyCompatible)
    }
}

@Suite struct OpcodeAndStatusTests {
    @Test func opcodeFields() {
        let opcode = HCIOpcode.leSetAdvertisingParameters
        #expect(opcode.groupField == 0x08)
        #expect(opcode.commandField == 0x006)
        #expect(HCIOpcode(groupField: 0x08, commandField: 0x006) == opcode)
        #expect(HCIOpcode(groupField: 0x40, commandField: 0) == nil)
        #expect(HCIOpcode(groupField: 0x08, commandField: 0x400) == nil)
        #expect(opcode.description == "LE Set Advertising Parameters (0x2006)")
        #expect(HCIOpcode(rawValue: 0xFC1E).displayName == "vendor-specific command 0xFC1E")
        #expect(HCIOpcode(rawValue: 0x2099).displayName == "HCI command 0x2099 (OGF 0x08, OCF 0x099)")
        #expect(HCIOpcode.nop.displayName == "NOP")
    }

    @Test func everyTypedCommandHasAName() {
        let opcodes: [HCIOpcode] = [
            Reset.opcode, SetEventMask.opcode, ReadLocalVersionInformation.opcode, ReadBDADDR.opcode,
            ReadLocalSupportedCommands.opcode, LESetEventMask.opcode, LEReadBufferSize.opcode,
            LEReadLocalSupportedFeatures.opcode, LESetRandomAddress.opcode, LESetAdvertisingParameters.opcode,
            LEReadAdvertisingPhysicalChannelTxPower.opcode, LESetAdvertisingData.opcode, LESetAdvertisingEnable.opcode,
            LESetScanParameters.opcode, LESetScanEnable.opcode, LESetAdvertisingSetRandomAddress.opcode,
            LESetExtendedAdvertisingParameters.opcode, LESetExtendedAdvertisingData.opcode,
            LESetExtendedAdvertisingEnable.opcode, LEReadMaximumAdvertisingDataLength.opcode,
            LEReadNumberOfSupportedAdvertisingSets.opcode, LERemoveAdvertisingSet.opcode,
            LEClearAdvertisingSets.opcode, LESetExtendedScanParameters.opcode, LESetExtendedScanEnable.opcode,
        ]
        for opcode in opcodes {
            #expect(opcode.name != nil, "\(opcode)")
        }
        #expect(Set(opcodes).count == opcodes.count)
    }

    @Test func statusCodesAndNames() {
        #expect(HCIStatus(rawValue: 0x0C) == .commandDisallowed)
        #expect(HCIStatus.commandDisallowed.description == "0x0C Command Disallowed")
        #expect(HCIStatus.unknownAdvertisingIdentifier.rawValue == 0x42)
        #expect(HCIStatus.limitReached.name == "Limit Reached")
        #expect(HCIStatus(rawValue: 0x2B) == .unknown(0x2B))
        #expect(HCIStatus(rawValue: 0x99).description == "0x99 unknown error code")
        #expect(HCIStatus.unknown(0x0C) == .commandDisallowed)
        #expect(Set([HCIStatus.unknown(0x0C), .commandDisallowed]).count == 1)
    }

    @Test func everyCodeRoundTrips() {
        var named = 0
        for code in UInt8.min...UInt8.max {
            let status = HCIStatus(rawValue: code)
            #expect(status.rawValue == code)
            if case .unknown = status { continue }
            named += 1
        }
        // 0x00–0x45 minus the reserved 0x2B, 0x31, 0x33 and the retired 0x3F.
        #expect(named == 0x46 - 4)
        #expect(HCIStatus.allKnown.count == named)
    }
}

@Suite struct MaskAndFeatureTests {
    @Test func eventMaskBitsFollowEventCodes() {
        #expect(HCIEventMask(eventCode: 0x3E) == .leMeta)
        #expect(HCIEventMask(eventCode: 0x10) == .hardwareError)
        #expect(HCIEventMask(eventCode: 0x05) == .disconnectionComplete)
        #expect(HCIEventMask(eventCode: 0) == nil)
        #expect(HCIEventMask(eventCode: 0x41) == nil)
        #expect(!HCIEventMask.specDefault.contains(.leMeta))
        #expect(HCIEventMask.beaconHost.contains(.leMeta))
        #expect(HCIEventMask.beaconHost.contains(.hardwareError))
    }

    @Test func leEventMaskBitsFollowSubeventCodes() {
        #expect(LEEventMask(subeventCode: 0x02) == .advertisingReport)
        #expect(LEEventMask(subeventCode: 0x0D) == .extendedAdvertisingReport)
        #expect(LEEventMask(subeventCode: 0x12) == .advertisingSetTerminated)
        #expect(LEEventMask(subeventCode: 0x11) == .scanTimeout)
        #expect(LEEventMask.specDefault.rawValue == 0x1F)
        #expect(!LEEventMask.specDefault.contains(.extendedAdvertisingReport))
    }

    @Test func featureNames() {
        let features: LEFeatures = [.encryption, .extendedAdvertising, .powerControlRequest, .powerControlRequestDuplicate]
        #expect(features.names == ["LE Encryption", "LE Extended Advertising", "LE Power Control Request"])
        #expect(LEFeatures(rawValue: 1 << 60).names == ["bit 60"])
        #expect(LEFeatures().description == "none")
        #expect(LEFeatures.extendedAdvertising.rawValue == 0x1000)
    }

    @Test func coreVersionNames() {
        #expect(BluetoothCoreVersion(rawValue: 9).description == "5.0")
        #expect(BluetoothCoreVersion(rawValue: 13).description == "5.4")
        #expect(BluetoothCoreVersion(rawValue: 0x30).description == "version 0x30")
        #expect(BluetoothCoreVersion.v5_0 > .v4_2)
    }
}
