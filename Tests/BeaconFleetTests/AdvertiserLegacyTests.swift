import BeaconTestKit
import BeaconCore
import ClockTestKit
import HCI
import Testing

@testable import BeaconFleet

@Suite("Legacy advertising", .timeLimit(.minutes(1)))
struct AdvertiserLegacyTests {
    /// A Bluetooth 4.2 controller: no extended advertising.
    static var legacyController: ScriptedController.Configuration {
        var configuration = ScriptedController.Configuration()
        configuration.version = .v4_2
        configuration.features = [.encryption]
        configuration.legacyTxPower = -10
        return configuration
    }

    @Test("one beacon on an exclusive transport: the exact command sequence, then the stop on cancellation")
    func oneBeaconSequence() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: Self.legacyController)
        let beacon = request(minor: 7, id: "door")
        let run = try startAdvertiser(on: [controller], requests: [beacon])
        let session = try #require(try await run.recorder.waitForSessions().first)

        // Auto measured power: the controller's −10 dBm advertising power − 41 dB.
        let frame = IBeaconAdvertisement(identity: beacon.identity, measuredPower: -51).advertisingData
        let expected = try exclusiveBringUp() + [
            try packet(LESetAdvertisingParameters(
                intervalMin: try #require(AdvertisingInterval(units: 160)), intervalMax: try #require(AdvertisingInterval(units: 160)),
                type: .nonConnectableUndirected, ownAddressType: .public, channelMap: .all)),
            try packet(LEReadAdvertisingPhysicalChannelTxPower()),
            try packet(LESetAdvertisingData(data: frame)),
            try packet(LESetAdvertisingEnable(true)),
        ]
        #expect(controller.commands == expected, "\(names(controller.commands))")
        // The parameters as the Core specification lays them out (7.8.5): 100 ms = 0x00A0.
        #expect(controller.commands[6].parameters == [0xA0, 0x00, 0xA0, 0x00, 0x03, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
        // The data command always carries 32 bytes: length 30, the frame, one byte of padding.
        #expect(controller.commands[8].parameters.count == 32)
        #expect(Array(controller.commands[8].parameters.prefix(1)) == [30])
        #expect(controller.commands[8].parameters[30] == 0xCD)  // −51 dBm

        #expect(session.family == .legacy)
        #expect(session.rotationSlot == nil)
        let accepted = try #require(session.beacons.first)
        #expect(accepted.txPower == -10)
        #expect(accepted.measuredPower == -51)
        #expect(accepted.measuredPowerIsEstimated)
        #expect(accepted.address == ScriptedController.Configuration().address)
        #expect(accepted.addressType == .public)
        #expect(accepted.handle == nil)

        let result = await run.stop()
        #expect(result == .success(.cancelled))
        #expect(controller.commands.dropFirst(expected.count).map(\.opcode) == [.leSetAdvertisingEnable])
        #expect(controller.commands.last == (try packet(LESetAdvertisingEnable(false))))
        #expect(run.recorder.events.last == .stopped(.cancelled))
    }

    @Test("on the kernel's shared RAW channel: no Reset and no event masks")
    func sharedKernelChannelIsNotReset() async throws {
        let controller = ScriptedController(name: "hci0", configuration: Self.legacyController)
        let run = try startAdvertiser(on: [controller], spec: "hci0", requests: [request(minor: 1)])
        try await run.recorder.waitForSessions()
        #expect(
            Array(controller.opcodes.prefix(4))
                == [.readLocalVersionInformation, .readBDADDR, .leReadLocalSupportedFeatures, .leSetAdvertisingParameters])
        #expect(!controller.opcodes.contains(.reset))
        #expect(!controller.opcodes.contains(.setEventMask))
        #expect(!controller.opcodes.contains(.leSetEventMask))
        _ = await run.stop()
    }

    @Test("several beacons rotate: the data changes every slot and the effective interval is slot × count")
    func rotation() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: Self.legacyController)
        let beacons = [request(minor: 1, id: "a"), request(minor: 2, id: "b"), request(minor: 3, id: "c")]
        let run = try startAdvertiser(on: [controller], requests: beacons, rotationSlot: .milliseconds(20))
        let session = try #require(try await run.recorder.waitForSessions().first)
        #expect(session.rotationSlot == .milliseconds(20))
        #expect(session.effectiveInterval == .milliseconds(60))

        let dataCommands = try await controller.waitForCommands("seven data changes") { commands in
            commands.filter { $0.opcode == .leSetAdvertisingData }.count >= 7
        }.filter { $0.opcode == .leSetAdvertisingData }
        let frames = try beacons.map { beacon in
            try packet(LESetAdvertisingData(data: IBeaconAdvertisement(identity: beacon.identity, measuredPower: -51).advertisingData))
        }
        for (index, command) in dataCommands.prefix(7).enumerated() {
            #expect(command == frames[index % 3], "data change \(index) is not beacon \(index % 3)")
        }
        // The parameters went out once, before enabling; the rotation only changes the data.
        #expect(controller.opcodes.filter { $0 == .leSetAdvertisingParameters }.count == 1)
        #expect(controller.opcodes.filter { $0 == .leSetAdvertisingEnable }.count == 1)
        #expect(await run.stop() == .success(.cancelled))
        #expect(controller.commands.last == (try packet(LESetAdvertisingEnable(false))))
    }

    @Test("rotation defaults to one advertising interval per slot and uses the shortest interval")
    func rotationDefaults() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: Self.legacyController)
        let beacons = [request(minor: 1, intervalUnits: 320), request(minor: 2, intervalUnits: 160)]
        let run = try startAdvertiser(on: [controller], requests: beacons)
        let session = try #require(try await run.recorder.waitForSessions().first)
        #expect(session.rotationSlot == .milliseconds(100))
        #expect(session.effectiveInterval == .milliseconds(200))
        #expect(session.beacons.allSatisfy { $0.interval.units == 160 })
        #expect(run.recorder.warnings.contains { $0.contains("one interval: 100 ms, the shortest asked") })
        _ = await run.stop()
    }

    @Test("TX power cannot be chosen with legacy advertising: the warning says what the controller uses")
    func legacyTxPowerWarning() async throws {
        var configuration = Self.legacyController
        configuration.legacyTxPower = 4
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: configuration)
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1, txPower: 0)])
        let session = try #require(try await run.recorder.waitForSessions().first)
        #expect(session.beacons.first?.measuredPower == -37)
        #expect(run.recorder.warnings == [
            "legacy advertising cannot choose a TX power: tcp-client:127.0.0.1:6402 advertises at 4 dBm (asked 0 dBm)"
        ])
        _ = await run.stop()
    }

    @Test("a controller without a public address advertises from the derived static random address")
    func noPublicAddress() async throws {
        var configuration = Self.legacyController
        configuration.address = .zero
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: configuration)
        let beacon = request(minor: 9)
        let run = try startAdvertiser(on: [controller], requests: [beacon])
        let session = try #require(try await run.recorder.waitForSessions().first)
        let address = BeaconAddress.staticRandom(controller: .zero, identity: beacon.identity)
        #expect(session.beacons.first?.address == address)
        #expect(session.beacons.first?.addressType == .random)
        #expect(controller.commands.dropFirst(6).first == (try packet(LESetRandomAddress(address: address))))
        let parameters = try #require(controller.commands.first { $0.opcode == .leSetAdvertisingParameters })
        #expect(try parameters.decode(as: LESetAdvertisingParameters.self).ownAddressType == .random)
        _ = await run.stop()
    }

    @Test("Command Disallowed on hci0 becomes the message about bluetoothd, and nothing more is sent")
    func commandDisallowedOnSharedController() async throws {
        var configuration = Self.legacyController
        configuration.refusals[.leSetAdvertisingParameters] = .commandDisallowed
        let controller = ScriptedController(name: "hci0", configuration: configuration)
        let run = try startAdvertiser(on: [controller], spec: "hci0", requests: [request(minor: 1)])
        let result = await run.task.value
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(
            error.description
                == "hci0: LE Set Advertising Parameters was refused (0x0C Command Disallowed): another program "
                + "(usually bluetoothd) is using extended advertising or scanning on this controller (the two "
                + "command families exclude each other until Reset), or advertising is enabled while its parameters "
                + "change; use hci-user:0 or stop bluetoothd (while setting legacy advertising parameters "
                + "(ADV_NONCONN_IND every 100 ms))")
        // Advertising was never enabled: no further legacy command, which would only be refused too.
        #expect(controller.opcodes.last == .leSetAdvertisingParameters)
        #expect(run.recorder.sessions.isEmpty)
    }

    @Test("--family extended on a controller without extended advertising says what to do")
    func extendedForcedOnLegacyController() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: Self.legacyController)
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1)], family: .extended)
        let result = await run.task.value
        #expect(result == .failure(.extendedAdvertisingUnsupported(controller: "tcp-client:127.0.0.1:6402", version: .v4_2)))
        if case .failure(let error) = result {
            #expect(error.description.contains("use the family setting legacy (or auto)"))
        }
        #expect(!controller.opcodes.contains { $0.rawValue >= 0x2005 && $0.rawValue != 0x2003 })
    }

    @Test("--family legacy on an extended controller never sends an extended command")
    func legacyForcedOnExtendedController() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1), request(minor: 2)], family: .legacy)
        let session = try #require(try await run.recorder.waitForSessions().first)
        #expect(session.family == .legacy)
        _ = await run.stop()
        #expect(!controller.opcodes.contains { (0x2035...0x2049).contains($0.rawValue) })
    }

    @Test("the run ends by itself when the duration elapsed, beacons off the air")
    func durationElapses() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: Self.legacyController)
        let clock = TestClock()
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1)], duration: .milliseconds(200), clock: clock)
        try await run.recorder.waitForSessions()
        // On the air, the run waits for its end: 199 ms of 200 pass, and it still waits.
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(199))
        #expect(clock.sleeperCount == 1)
        #expect(!run.recorder.events.contains { if case .stopped = $0 { true } else { false } })
        clock.advance(by: .milliseconds(1))
        #expect(await run.task.value == .success(.durationElapsed))
        #expect(controller.commands.last == (try packet(LESetAdvertisingEnable(false))))
        #expect(run.recorder.events.last == .stopped(.durationElapsed))
    }
}

@Suite("Legacy advertising: failures after enabling", .timeLimit(.minutes(1)))
struct AdvertiserLegacyFailureTests {
    @Test("a rotation whose data change is refused ends the run, and advertising is disabled")
    func rotationFailure() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: AdvertiserLegacyTests.legacyController)
        let run = try startAdvertiser(
            on: [controller], requests: [request(minor: 1), request(minor: 2)], rotationSlot: .milliseconds(20))
        try await run.recorder.waitForSessions()
        controller.refuse(.leSetAdvertisingData, with: .controllerBusy)
        let result = await run.task.value
        guard case .failure(.fault(.commandFailed(let error))) = result else {
            Issue.record("expected the rotation's failure, got \(result)")
            return
        }
        #expect(error.opcode == .leSetAdvertisingData)
        #expect(error.status == .controllerBusy)
        #expect(controller.commands.last == (try packet(LESetAdvertisingEnable(false))))
    }
}
