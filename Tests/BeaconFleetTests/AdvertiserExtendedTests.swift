import BeaconTestKit
import BeaconCore
import HCI
import Testing

@testable import BeaconFleet

@Suite("Extended advertising", .timeLimit(.minutes(1)))
struct AdvertiserExtendedTests {
    @Test("16 beacons: one set each, the exact command sequence, one enable for all, then the stop sequence")
    func sixteenBeacons() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let requests = (0..<16).map { request(minor: UInt16(100 + $0), id: "beacon-\($0)", txPower: 0) }
        let run = try startAdvertiser(on: [controller], requests: requests)
        let session = try #require(try await run.recorder.waitForSessions().first)

        let controllerAddress = ScriptedController.Configuration().address
        var expected = try exclusiveBringUp()
        expected.append(try packet(LEReadNumberOfSupportedAdvertisingSets()))
        var handles: [AdvertisingHandle] = []
        for (index, beacon) in requests.enumerated() {
            let handle = try #require(AdvertisingHandle(rawValue: UInt8(index)))
            handles.append(handle)
            expected.append(try packet(LESetExtendedAdvertisingParameters(
                handle: handle, properties: .legacyNonConnectable, intervalMin: beacon.interval,
                intervalMax: beacon.interval, channelMap: .all, ownAddressType: .random, txPower: 0,
                primaryPHY: .le1M, secondaryPHY: .le1M, sid: UInt8(index))))
            expected.append(try packet(LESetAdvertisingSetRandomAddress(
                handle: handle, address: BeaconAddress.staticRandom(controller: controllerAddress, identity: beacon.identity))))
            // The set reported −10 dBm: measured power −51 dBm.
            expected.append(try packet(LESetExtendedAdvertisingData(
                handle: handle, operation: .complete,
                data: IBeaconAdvertisement(identity: beacon.identity, measuredPower: -51).advertisingData)))
        }
        expected.append(try packet(LESetExtendedAdvertisingEnable(enabling: handles)))
        #expect(controller.commands == expected, "\(names(controller.commands))")

        // Set 0's parameters as laid out by Core v5.4 Vol 4 Part E 7.8.53.
        let parameters = controller.commands[7].parameters
        #expect(parameters == [
            0x00,  // handle
            0x10, 0x00,  // properties: legacy PDU, non-connectable, non-scannable
            0xA0, 0x00, 0x00, 0xA0, 0x00, 0x00,  // interval min = max = 100 ms
            0x07,  // channels 37, 38, 39
            0x01,  // own address type: random
            0x00, 0, 0, 0, 0, 0, 0,  // no peer
            0x00,  // filter policy
            0x00,  // TX power asked: 0 dBm
            0x01, 0x00, 0x01,  // primary LE 1M, max skip 0, secondary LE 1M
            0x00, 0x00,  // SID 0, no scan request notifications
        ])

        #expect(session.family == .extended)
        #expect(session.beacons.map(\.handle) == handles)
        #expect(session.beacons.allSatisfy { $0.txPower == -10 && $0.measuredPower == -51 && $0.addressType == .random })
        #expect(Set(session.beacons.map(\.address)).count == 16)
        // Every set asked for 0 dBm and got −10 dBm: one warning per beacon says so.
        #expect(run.recorder.warnings.count == 16)
        #expect(run.recorder.warnings.first == "beacon beacon-0: asked for 0 dBm, tcp-client:127.0.0.1:6402 chose -10 dBm")

        #expect(await run.stop() == .success(.cancelled))
        #expect(Array(controller.commands.dropFirst(expected.count)) == [
            try packet(LESetExtendedAdvertisingEnable.disableAll), try packet(LEClearAdvertisingSets()),
        ])
        // Num_Sets 0 with Enable 0: every set off.
        #expect(controller.commands.dropFirst(expected.count).first?.parameters == [0x00, 0x00])
    }

    @Test("SIDs wrap at 16 and handles keep counting")
    func seventeenthSet() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.advertisingSets = 20
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: configuration)
        let requests = (0..<17).map { request(minor: UInt16($0)) }
        let run = try startAdvertiser(on: [controller], requests: requests)
        try await run.recorder.waitForSessions()
        let parameters = try controller.commands.filter { $0.opcode == .leSetExtendedAdvertisingParameters }
            .map { try $0.decode(as: LESetExtendedAdvertisingParameters.self) }
        #expect(parameters.map(\.handle.rawValue) == Array(0..<17))
        #expect(parameters.map(\.sid) == Array(0..<16) + [0])
        _ = await run.stop()
    }

    @Test("auto measured power follows the TX power each set reports; a calibrated value is kept")
    func measuredPowerPerSet() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.selectedTxPower = nil  // the controller grants what is asked
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: configuration)
        let requests = [
            request(minor: 1, txPower: 4),
            request(minor: 2, txPower: -20),
            request(minor: 3, measuredPower: .dBm(-63), txPower: 8),
        ]
        let run = try startAdvertiser(on: [controller], requests: requests)
        let session = try #require(try await run.recorder.waitForSessions().first)
        #expect(session.beacons.map(\.txPower) == [4, -20, 8])
        #expect(session.beacons.map(\.measuredPower) == [-37, -61, -63])
        #expect(session.beacons.map(\.measuredPowerIsEstimated) == [true, true, false])
        let frames = try controller.commands.filter { $0.opcode == .leSetExtendedAdvertisingData }
            .map { try $0.decode(as: LESetExtendedAdvertisingData.self).data.last }
        #expect(frames == [UInt8(bitPattern: -37), UInt8(bitPattern: -61), UInt8(bitPattern: -63)])
        #expect(run.recorder.warnings.isEmpty)
        _ = await run.stop()
    }

    @Test("more beacons than advertising sets: an error naming both numbers, and nothing created")
    func tooManyBeacons() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.advertisingSets = 4
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: configuration)
        let run = try startAdvertiser(on: [controller], requests: (0..<5).map { request(minor: UInt16($0)) })
        let result = await run.task.value
        #expect(result == .failure(.tooManyBeacons(controller: "tcp-client:127.0.0.1:6402", requested: 5, supported: 4)))
        if case .failure(let error) = result {
            #expect(
                error.description
                    == "tcp-client:127.0.0.1:6402: 5 beacons need 5 advertising sets but the controller has 4; advertise "
                    + "at most 4 here and put the rest on a second controller (another the hci setting), or use the family setting legacy "
                    + "to rotate them on one advertisement")
        }
        #expect(!controller.opcodes.contains(.leSetExtendedAdvertisingParameters))
        #expect(!controller.opcodes.contains(.leSetExtendedAdvertisingEnable))
    }

    @Test("a set refused half way: the sets already made are removed again")
    func partialStartIsUndone() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        controller.refuse(.leSetExtendedAdvertisingData, with: .memoryCapacityExceeded)
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1), request(minor: 2)])
        let result = await run.task.value
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.description.hasPrefix(
            "tcp-client:127.0.0.1:6402: LE Set Extended Advertising Data failed (0x07 Memory Capacity Exceeded): "))
        #expect(error.description.hasSuffix("(while setting the advertising data of set 0 for beacon \(identity(minor: 1)))"))
        #expect(Array(controller.opcodes.suffix(2)) == [.leSetExtendedAdvertisingEnable, .leClearAdvertisingSets])
    }

    @Test("on hci0 the stop touches only this program's sets (the top two of 16): disable them, remove each")
    func sharedKernelStop() async throws {
        let controller = ScriptedController(name: "hci0")
        let run = try startAdvertiser(on: [controller], spec: "hci0", requests: [request(minor: 1), request(minor: 2)])
        try await run.recorder.waitForSessions()
        let before = controller.commands.count
        _ = await run.stop()
        let handles = try [15, 14].map { try #require(AdvertisingHandle(rawValue: $0)) }
        #expect(Array(controller.commands.dropFirst(before)) == [
            try packet(LESetExtendedAdvertisingEnable(false, sets: handles.map { .init(handle: $0) })),
            try packet(LERemoveAdvertisingSet(handle: handles[0])),
            try packet(LERemoveAdvertisingSet(handle: handles[1])),
        ])
        #expect(!controller.opcodes.contains(.leClearAdvertisingSets))
    }
}
