import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("Virtual controller: commands and their answers", .timeLimit(.minutes(1)))
struct ControllerCommandTests {
    let air = VirtualAir(name: "commands")

    @Test("identity: version 5.3 from company 0xFFFF, a deterministic address per controller, LE features")
    func identity() async throws {
        let first = await TestHost(on: air)
        let second = await TestHost(on: air)
        try await first.bringUp()
        let version = try await first.host.send(ReadLocalVersionInformation())
        #expect(version == VirtualControllerConfiguration.virtualControllerVersion)
        #expect(version.hciVersion == .v5_3 && version.companyIdentifier == 0xFFFF)
        #expect(try await first.host.send(ReadBDADDR()) == BluetoothAddress("06:BE:AC:00:00:01"))
        #expect(try await second.host.send(ReadBDADDR()) == BluetoothAddress("06:BE:AC:00:00:02"))
        #expect(try await first.host.send(LEReadLocalSupportedFeatures()) == [.extendedAdvertising])
        let buffers = try await first.host.send(LEReadBufferSize())
        #expect(buffers.aclDataPacketLength == 27 && buffers.totalACLDataPackets == 15)
        #expect(try await first.host.send(LEReadNumberOfSupportedAdvertisingSets()) == 16)
        #expect(try await first.host.send(LEReadMaximumAdvertisingDataLength()) == 1650)
    }

    @Test("Read Local Supported Commands lists what is implemented, the extended family only when present")
    func supportedCommands() async throws {
        let modern = await TestHost(on: air)
        let commands = try await modern.host.send(ReadLocalSupportedCommands())
        #expect(commands.contains(octet: 5, bit: 7))  // Reset
        #expect(commands.contains(octet: 25, bit: 5))  // LE Set Advertising Parameters
        #expect(commands.contains(octet: 36, bit: 2))  // LE Set Extended Advertising Parameters
        #expect(!commands.contains(octet: 26, bit: 0))  // LE Set Scan Response Data: not implemented

        var legacyOnly = VirtualControllerConfiguration()
        legacyOnly.supportsExtendedAdvertising = false
        let old = await TestHost(on: air, legacyOnly)
        let oldCommands = try await old.host.send(ReadLocalSupportedCommands())
        #expect(oldCommands.contains(octet: 25, bit: 5))
        #expect(!oldCommands.contains(octet: 36, bit: 2))
        #expect(try await old.host.send(LEReadLocalSupportedFeatures()) == [])
    }

    @Test("a controller without extended advertising does not know the extended commands (0x01)")
    func legacyOnlyController() async throws {
        var configuration = VirtualControllerConfiguration()
        configuration.supportsExtendedAdvertising = false
        let old = await TestHost(on: air, configuration)
        try await old.bringUp()
        #expect(await old.refusal(LEReadNumberOfSupportedAdvertisingSets()) == .unknownHCICommand)
        #expect(await old.refusal(try LESetExtendedAdvertisingParameters(
            handle: try #require(AdvertisingHandle(rawValue: 0)), intervalMin: .beaconDefault, intervalMax: .beaconDefault))
            == .unknownHCICommand)
        // Legacy commands work, and nothing stops them: there is no other family.
        try await old.advertiseLegacy(iBeaconData(minor: 1))
    }

    @Test("an opcode the controller does not implement: Command Complete with Unknown HCI Command")
    func unknownOpcode() async throws {
        let host = await TestHost(on: air)
        for opcode: UInt16 in [0x0C7F, 0x20FE, 0xFC77, 0x2009] {
            #expect(try await host.raw(opcode, [0x01, 0x02]) == .complete(returnParameters: [0x01]))
        }
    }

    @Test("a malformed command packet is answered with Invalid HCI Command Parameters, never a crash")
    func malformedPackets() async throws {
        let transport = air.attachController()
        var incoming = transport.incoming.makeAsyncIterator()
        // Length octet 5, two bytes present.
        try await transport.send(HCIPacket(type: .command, body: [0x06, 0x20, 0x05, 0x01, 0x02]))
        #expect(try await incoming.next()?.body == [0x0E, 0x04, 0x01, 0x06, 0x20, 0x12])
        // Not even an opcode: a bare credit (NOP) keeps the host able to send.
        try await transport.send(HCIPacket(type: .command, body: [0x06]))
        #expect(try await incoming.next()?.body == [0x0E, 0x03, 0x01, 0x00, 0x00])
        // Data packets are ignored; the next command is answered normally.
        try await transport.send(HCIPacket(type: .acl, body: [0x01, 0x00, 0x00, 0x00]))
        try await transport.send(HCIPacket(type: .command, body: [0x03, 0x0C, 0x00]))
        #expect(try await incoming.next()?.body == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        await transport.close()
        #expect(try await incoming.next() == nil)
    }

    @Test("parameters out of range or contradicting each other: Invalid HCI Command Parameters (0x12)")
    func invalidParameters() async throws {
        let host = await TestHost(on: air)
        try await host.bringUp()
        let invalid = HCICommandAnswer.complete(returnParameters: [0x12])
        // LE Set Advertising Parameters: interval 0x0010 (10 ms) below 0x0020; min above max;
        // empty channel map; advertising type 0x05 reserved; 14 bytes instead of 15.
        #expect(try await host.raw(0x2006, [0x10, 0, 0x10, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0]) == invalid)
        #expect(try await host.raw(0x2006, [0xA0, 0, 0x90, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0]) == invalid)
        #expect(try await host.raw(0x2006, [0xA0, 0, 0xA0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == invalid)
        #expect(try await host.raw(0x2006, [0xA0, 0, 0xA0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0]) == invalid)
        #expect(try await host.raw(0x2006, [0xA0, 0, 0xA0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 7]) == invalid)
        // LE Set Scan Parameters: window (0x20) longer than interval (0x10); interval 0x0002.
        #expect(try await host.raw(0x200B, [0, 0x10, 0, 0x20, 0, 0, 0]) == invalid)
        #expect(try await host.raw(0x200B, [0, 0x02, 0, 0x02, 0, 0, 0]) == invalid)
        // LE Set Advertising Data: a length of 32.
        #expect(try await host.raw(0x2008, [32] + [UInt8](repeating: 0, count: 31)) == invalid)
        // Set Event Mask with 7 bytes.
        #expect(try await host.raw(0x0C01, [UInt8](repeating: 0xFF, count: 7)) == invalid)
    }

    @Test("legacy and extended families exclude each other until Reset (Command Disallowed)")
    func familiesAreExclusive() async throws {
        let host = await TestHost(on: air)
        try await host.bringUp()
        let handle = try #require(AdvertisingHandle(rawValue: 0))
        let extended = try LESetExtendedAdvertisingParameters(handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault)

        try await host.host.send(try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        #expect(await host.refusal(extended) == .commandDisallowed)
        #expect(await host.refusal(LEReadNumberOfSupportedAdvertisingSets()) == .commandDisallowed)
        #expect(await host.refusal(try LESetExtendedScanParameters(le1M: try .init(
            interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10)))) == .commandDisallowed)
        // Commands outside both families are unaffected.
        #expect(try await host.host.send(ReadBDADDR()) == host.transport.address)

        try await host.host.send(Reset())
        #expect(try await host.host.send(extended) == 0)
        #expect(await host.refusal(try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
            == .commandDisallowed)
        #expect(await host.refusal(LEReadAdvertisingPhysicalChannelTxPower()) == .commandDisallowed)
        #expect(await host.refusal(LESetScanEnable(false)) == .commandDisallowed)

        // The first command of a family chooses it even when it fails.
        try await host.host.send(Reset())
        #expect(try await host.raw(0x2006, [0x10, 0, 0x10, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0])
            == .complete(returnParameters: [0x12]))
        #expect(await host.refusal(extended) == .commandDisallowed)
    }

    @Test("legacy advertising: parameters and random address refused while enabled, data allowed")
    func legacyWhileEnabled() async throws {
        let host = await TestHost(on: air)
        try await host.bringUp()
        #expect(try await host.host.send(LEReadAdvertisingPhysicalChannelTxPower()) == 0)
        try await host.advertiseLegacy(iBeaconData(minor: 1))
        // Enabling again changes nothing and succeeds.
        try await host.host.send(LESetAdvertisingEnable(true))
        #expect(await host.refusal(try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
            == .commandDisallowed)
        #expect(await host.refusal(LESetRandomAddress(address: .randomStatic())) == .commandDisallowed)
        try await host.host.send(try LESetAdvertisingData(data: iBeaconData(minor: 2)))
        try await host.host.send(LESetAdvertisingEnable(false))
        try await host.host.send(LESetAdvertisingEnable(false))
        try await host.host.send(try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
    }

    @Test("a random own address needs LE Set Random Address before enabling (0x12)")
    func randomAddressRequired() async throws {
        let host = await TestHost(on: air)
        try await host.bringUp()
        try await host.host.send(try LESetAdvertisingParameters(
            intervalMin: .beaconDefault, intervalMax: .beaconDefault, ownAddressType: .random))
        #expect(await host.refusal(LESetAdvertisingEnable(true)) == .invalidHCICommandParameters)
        try await host.host.send(LESetRandomAddress(address: .randomStatic()))
        try await host.host.send(LESetAdvertisingEnable(true))

        try await host.host.send(Reset())
        let handle = try #require(AdvertisingHandle(rawValue: 3))
        _ = try await host.host.send(try LESetExtendedAdvertisingParameters(
            handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault, ownAddressType: .random))
        #expect(await host.refusal(try LESetExtendedAdvertisingEnable(enabling: [handle])) == .invalidHCICommandParameters)
        try await host.host.send(LESetAdvertisingSetRandomAddress(handle: handle, address: .randomStatic()))
        try await host.host.send(try LESetExtendedAdvertisingEnable(enabling: [handle]))
    }

    @Test("extended sets: TX power clamped into −20…+10 dBm, 0x7F gets the default")
    func txPowerSelection() async throws {
        let host = await TestHost(on: air)
        try await host.bringUp()
        let requests: [(Int8?, Int8)] = [(nil, 0), (20, 10), (10, 10), (-5, -5), (-20, -20), (-127, -20)]
        for (index, (requested, selected)) in requests.enumerated() {
            let handle = try #require(AdvertisingHandle(rawValue: UInt8(index)))
            #expect(try await host.host.send(LESetExtendedAdvertisingParameters(
                handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault, txPower: requested)) == selected)
        }
    }

    @Test("extended sets: unknown sets (0x42), capacity (0x07), refusals while enabled (0x0C)")
    func extendedSetRules() async throws {
        let host = await TestHost(on: air)
        try await host.bringUp()
        let set0 = try #require(AdvertisingHandle(rawValue: 0))
        let set9 = try #require(AdvertisingHandle(rawValue: 9))
        func parameters(_ handle: AdvertisingHandle) throws -> LESetExtendedAdvertisingParameters {
            try LESetExtendedAdvertisingParameters(handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault)
        }
        #expect(await host.refusal(try LESetExtendedAdvertisingData(handle: set9, data: [2, 1, 6])) == .unknownAdvertisingIdentifier)
        #expect(await host.refusal(LESetAdvertisingSetRandomAddress(handle: set9, address: .randomStatic())) == .unknownAdvertisingIdentifier)
        #expect(await host.refusal(try LESetExtendedAdvertisingEnable(enabling: [set9])) == .unknownAdvertisingIdentifier)
        #expect(await host.refusal(LERemoveAdvertisingSet(handle: set9)) == .unknownAdvertisingIdentifier)

        try await host.advertiseExtended([iBeaconData(minor: 1)])
        #expect(await host.refusal(try parameters(set0)) == .commandDisallowed)
        #expect(await host.refusal(LESetAdvertisingSetRandomAddress(handle: set0, address: .randomStatic())) == .commandDisallowed)
        #expect(await host.refusal(LERemoveAdvertisingSet(handle: set0)) == .commandDisallowed)
        #expect(await host.refusal(LEClearAdvertisingSets()) == .commandDisallowed)
        // Complete data may change on the air; fragments may not.
        try await host.host.send(try LESetExtendedAdvertisingData(handle: set0, data: iBeaconData(minor: 2)))
        #expect(await host.refusal(try LESetExtendedAdvertisingData(handle: set0, operation: .firstFragment, data: [2, 1, 6]))
            == .commandDisallowed)
        // A legacy-PDU set holds at most 31 bytes.
        #expect(await host.refusal(try LESetExtendedAdvertisingData(handle: set0, data: [UInt8](repeating: 0, count: 32)))
            == .invalidHCICommandParameters)

        try await host.host.send(LESetExtendedAdvertisingEnable.disableAll)
        try await host.host.send(LERemoveAdvertisingSet(handle: set0))
        #expect(await host.refusal(try LESetExtendedAdvertisingEnable(enabling: [set0])) == .unknownAdvertisingIdentifier)

        for raw in 0..<16 {
            _ = try await host.host.send(try parameters(try #require(AdvertisingHandle(rawValue: UInt8(raw)))))
        }
        #expect(await host.refusal(try parameters(try #require(AdvertisingHandle(rawValue: 16)))) == .memoryCapacityExceeded)
        try await host.host.send(LEClearAdvertisingSets())
        _ = try await host.host.send(try parameters(try #require(AdvertisingHandle(rawValue: 16))))
    }

    @Test("extended sets: property combinations and the enable command with no set (0x12)")
    func extendedParameterValidation() async throws {
        let host = await TestHost(on: air)
        try await host.bringUp()
        let invalid = HCICommandAnswer.complete(returnParameters: [0x12, 0x00])
        // Handle 0, properties 0x0011 (legacy connectable but not scannable: not in Table 7.2).
        var parameters: [UInt8] = [0, 0x11, 0x00, 0xA0, 0, 0, 0xA0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 1, 0, 1, 0, 0]
        #expect(try await host.raw(0x2036, parameters) == invalid)
        // Extended PDUs both connectable and scannable (0x0003).
        parameters[1] = 0x03
        #expect(try await host.raw(0x2036, parameters) == invalid)
        // Primary interval 0x000010: below 0x000020.
        parameters[1] = 0x10
        parameters[3] = 0x10
        parameters[6] = 0x10
        #expect(try await host.raw(0x2036, parameters) == invalid)
        // LE Set Extended Advertising Enable: enable with Num_Sets 0.
        #expect(try await host.raw(0x2039, [1, 0]) == .complete(returnParameters: [0x12]))
        // LE Coded primary PHY on a controller without it: 0x11.
        #expect(await host.refusal(try LESetExtendedAdvertisingParameters(
            handle: try #require(AdvertisingHandle(rawValue: 0)), intervalMin: .beaconDefault, intervalMax: .beaconDefault,
            primaryPHY: .leCoded)) == .unsupportedFeatureOrParameterValue)
    }

    @Test("extended data in fragments is assembled; a set with data still arriving cannot start")
    func fragmentedData() async throws {
        let host = await TestHost(on: air)
        try await host.bringUp()
        let handle = try #require(AdvertisingHandle(rawValue: 0))
        _ = try await host.host.send(try LESetExtendedAdvertisingParameters(
            handle: handle, properties: [], intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        #expect(await host.refusal(try LESetExtendedAdvertisingData(handle: handle, operation: .lastFragment, data: [1]))
            == .invalidHCICommandParameters)
        let payload = (0..<600).map { UInt8(truncatingIfNeeded: $0) }
        try await host.host.send(try LESetExtendedAdvertisingData(handle: handle, operation: .firstFragment, data: Array(payload[0..<251])))
        #expect(await host.refusal(try LESetExtendedAdvertisingEnable(enabling: [handle])) == .commandDisallowed)
        try await host.host.send(try LESetExtendedAdvertisingData(handle: handle, operation: .intermediateFragment, data: Array(payload[251..<502])))
        try await host.host.send(try LESetExtendedAdvertisingData(handle: handle, operation: .lastFragment, data: Array(payload[502...])))
        try await host.host.send(try LESetExtendedAdvertisingEnable(enabling: [handle]))

        // An extended scanner receives the 600 bytes in 229-byte reports, all but the last
        // marked "more to come".
        let scanner = await TestHost.at(1, 0, on: air)
        try await scanner.bringUp()
        try await scanner.scanExtended()
        air.advance(by: .milliseconds(150))
        let reports = try await scanner.extendedReports()
        let firstEvent = Array(reports.prefix(3))
        #expect(firstEvent.map(\.data.count) == [229, 229, 142])
        #expect(firstEvent.map(\.eventType.dataStatus) == [.incompleteMoreToCome, .incompleteMoreToCome, .complete])
        #expect(firstEvent.flatMap(\.data) == payload)
        #expect(firstEvent.allSatisfy { !$0.eventType.isLegacy && $0.sid == 0 && $0.secondaryPHY == .le1M })
    }
}
