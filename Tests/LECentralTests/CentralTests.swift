import BeaconCore
import ClockTestKit
import HCI
import HCITestKit
import Testing
@testable import LECentral

/// The central against HCITestKit's scripted controller: the connection command's family,
/// the ACL buffers (never more in flight than the controller has), the attempt's deadline,
/// the signalling channel and the Security Manager answered, a link lost under a request.
@Suite struct CentralTests {
    static let peer = BluetoothAddress("C0:11:22:33:44:55") ?? .zero
    static let handle: UInt16 = 0x0040

    static func completion(_ status: HCIStatus = .success) -> HCIEvent {
        .le(.connectionComplete(LEConnectionComplete(
            status: status, connectionHandle: status == .success ? handle : 0, role: .central, peerAddressType: .random,
            peerAddress: status == .success ? peer : .zero, interval: 24, latency: 0, supervisionTimeout: 400)))
    }

    /// A started central on a scripted controller, connected to `peer`. The host's command
    /// answers wait on a test clock nobody advances: a busy machine answering late fails no
    /// test (the suite's time limit catches a hang), where a real 2 s deadline did.
    static func connected(
        _ configuration: ScriptedController.Configuration = .init(), clock: TestClock = TestClock()
    ) async throws -> (ScriptedController, Central, LEConnection) {
        let controller = ScriptedController(configuration: configuration)
        let central = Central(host: HostController(transport: controller.hostEnd, clock: TestClock()), clock: clock)
        try await central.start()
        let connecting = Task { try await central.connect(to: peer, type: .random, timeout: .seconds(5)) }
        try await controller.waitForCommands("a create connection command") {
            $0.contains { $0.opcode == .leCreateConnection || $0.opcode == .leExtendedCreateConnection }
        }
        try await controller.send(completion())
        return (controller, central, try await connecting.value)
    }

    /// One L2CAP frame from the peripheral, in one ACL packet.
    static func fromPeripheral(_ controller: ScriptedController, channel: UInt16, _ payload: [UInt8]) async throws {
        let frame = L2CAPFrame(channel: channel, payload: payload)
        try await controller.send(try ACLDataPacket(handle: handle, boundary: .firstFlushable, data: frame.bytes ?? []).packet())
    }

    @Test func theCommandFamilyFollowsExtendedAdvertisingSupport() async throws {
        let (extended, _, _) = try await Self.connected()
        #expect(extended.opcodes.contains(.leExtendedCreateConnection))
        #expect(!extended.opcodes.contains(.leCreateConnection))
        #expect(extended.opcodes.prefix(3) == [.reset, .setEventMask, .leSetEventMask])

        var legacy = ScriptedController.Configuration()
        legacy.features = []
        // LE buffers of zero: the shared ones of Read Buffer Size apply.
        legacy.leBufferSize = .init(aclDataPacketLength: 0, totalACLDataPackets: 0)
        let (controller, central, _) = try await Self.connected(legacy)
        #expect(controller.opcodes.contains(.leCreateConnection))
        #expect(controller.opcodes.contains(.readBufferSize))
        #expect(await central.aclPacketLength == 1021)
        #expect(await central.aclPacketCount == 8)
        let parameters = try LECreateConnection.decodeParameters(controller.parameters(of: .leCreateConnection)[0][...])
        #expect(parameters.peerAddress == Self.peer && parameters.peerAddressType == .random)
    }

    @Test func neverMoreACLPacketsInFlightThanTheControllerBuffers() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.leBufferSize = .init(aclDataPacketLength: 27, totalACLDataPackets: 2)
        let (controller, central, connection) = try await Self.connected(configuration)
        let exchange = Task { try await connection.att.exchangeMTU() }
        try await controller.waitForACL(count: 1)
        try await controller.send(.numberOfCompletedPackets(.init(entries: [.init(connectionHandle: Self.handle, completedPackets: 1)])))
        try await Self.fromPeripheral(controller, channel: 4, ATTPDU.exchangeMTUResponse(serverMTU: 247).bytes)
        #expect(try await exchange.value == 247)

        // 200 bytes: a 203-byte PDU in a 207-byte frame, 8 fragments of at most 27 bytes.
        let value = (0..<200).map { UInt8($0) }
        let write = Task { try await connection.gatt.write(0x0010, value) }
        for total in [3, 5, 7, 9] {
            try await controller.waitForACL(count: total)
            #expect(await central.packetsInFlight(on: Self.handle) == 2)
            #expect(await central.queuedFragmentCount == 9 - total)
            try await controller.send(.numberOfCompletedPackets(.init(entries: [.init(connectionHandle: Self.handle, completedPackets: 2)])))
        }
        var reassembler = L2CAPReassembler(maximumFrameLength: 517)
        let frames = controller.aclPackets.dropFirst().compactMap { reassembler.receive($0).frame }
        #expect(frames == [L2CAPFrame(channel: 4, payload: ATTPDU.writeRequest(handle: 0x0010, value: value).bytes)])
        #expect(controller.aclPackets.dropFirst().allSatisfy { $0.data.count <= 27 })
        try await Self.fromPeripheral(controller, channel: 4, ATTPDU.writeResponse.bytes)
        try await write.value
    }

    @Test func anAttemptPastItsDeadlineIsCancelledOnTheController() async throws {
        let controller = ScriptedController()
        let clock = TestClock()
        let central = Central(host: HostController(transport: controller.hostEnd, clock: TestClock()), clock: clock)
        try await central.start()
        let connecting = Task { try await central.connect(to: Self.peer, type: .random, timeout: .seconds(5)) }
        try await controller.waitFor(.leExtendedCreateConnection)
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(5))
        try await controller.waitFor(.leCreateConnectionCancel)
        // 7.8.13: the cancelled attempt completes with Unknown Connection Identifier.
        try await controller.send(Self.completion(.unknownConnectionIdentifier))
        do {
            _ = try await connecting.value
            Issue.record("the attempt outlived its deadline")
        } catch let error as LECentralError {
            #expect(error.kind == .connectionTimeout(.seconds(5)))
        }
    }

    @Test func aFailedConnectionIsWorded() async throws {
        let controller = ScriptedController()
        let central = Central(host: HostController(transport: controller.hostEnd, clock: TestClock()))
        try await central.start()
        let connecting = Task { try await central.connect(to: Self.peer, type: .random, timeout: .seconds(30)) }
        try await controller.waitFor(.leExtendedCreateConnection)
        try await controller.send(Self.completion(.connectionFailedToBeEstablished))
        do {
            _ = try await connecting.value
            Issue.record("a failed connection was reported as made")
        } catch let error as LECentralError {
            #expect(error.kind == .connectionFailed(.connectionFailedToBeEstablished))
            #expect(error.description == "memory: peripheral C0:11:22:33:44:55: the connection failed: the connection could not be established: the peripheral did not answer after accepting it (interference, or it moved away) (0x3E)")
        }
    }

    @Test func signallingAndSecurityRequestsAreAnswered() async throws {
        let (controller, _, connection) = try await Self.connected()
        let request = ConnectionParameterUpdateRequest(intervalMinimum: 24, intervalMaximum: 36, latency: 0, supervisionTimeout: 400)
        try await Self.fromPeripheral(controller, channel: 5, LESignallingCommand(code: 0x12, identifier: 3, data: request.data).payload)
        try await controller.waitFor(.leConnectionUpdate)
        let update = try LEConnectionUpdate.decodeParameters(controller.parameters(of: .leConnectionUpdate)[0][...])
        #expect(update.connectionHandle == Self.handle)
        #expect(update.connection.intervalMinimum == 24 && update.connection.intervalMaximum == 36)
        try await Self.fromPeripheral(controller, channel: 6, [0x0B, 0x01])
        let sent = try await controller.waitForACL(count: 2)
        #expect(sent.map(\.data) == [hex("06 00 05 00 13 03 02 00 00 00"), hex("02 00 06 00 05 05")])
        #expect(connection.peripheralAskedForSecurity)
    }

    @Test func aLinkLostUnderARequestFailsItWithTheReason() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.leBufferSize = .init(aclDataPacketLength: 27, totalACLDataPackets: 1)
        let (controller, central, connection) = try await Self.connected(configuration)
        let read = Task { try await connection.gatt.read(0x0003) }
        try await controller.waitForACL(count: 1)
        #expect(await central.packetsInFlight(on: Self.handle) == 1)
        try await controller.send(.disconnectionComplete(.init(status: .success, connectionHandle: Self.handle, reason: .connectionTimeout)))
        do {
            _ = try await read.value
            Issue.record("the read outlived its link")
        } catch let error as LECentralError {
            #expect(error.kind == .disconnected(reason: .connectionTimeout))
        }
        #expect(connection.disconnectionReason == .connectionTimeout)
        // The buffer it held counts as free again (Core v5.4 Vol 4 Part E 4.3).
        #expect(await central.packetsInFlight(on: Self.handle) == 0)
        #expect(try await connection.disconnect() == .connectionTimeout)
    }

    @Test func disconnectWaitsForTheControllersConfirmation() async throws {
        let (controller, _, connection) = try await Self.connected()
        let hangingUp = Task { try await connection.disconnect() }
        try await controller.waitFor(.disconnect)
        #expect(try Disconnect.decodeParameters(controller.parameters(of: .disconnect)[0][...]) == Disconnect(connectionHandle: Self.handle))
        try await controller.send(.disconnectionComplete(.init(status: .success, connectionHandle: Self.handle, reason: .connectionTerminatedByLocalHost)))
        #expect(try await hangingUp.value == .connectionTerminatedByLocalHost)
    }

    @Test func incomingFragmentsAreReassembledAndOversizedFramesDropped() async throws {
        let (controller, central, connection) = try await Self.connected()
        let read = Task { try await connection.gatt.read(0x0003) }
        try await controller.waitForACL(count: 1)
        // A frame declaring 600 bytes (over the 517 bound), then the answer in three fragments.
        try await controller.send(try ACLDataPacket(handle: Self.handle, boundary: .firstFlushable, data: hex("58 02 04 00 0b")).packet())
        let answer = L2CAPFrame(channel: 4, payload: ATTPDU.readResponse(value: Array("beacon".utf8)).bytes).bytes ?? []
        for (index, start) in [0, 3, 8].enumerated() {
            let part = Array(answer[start..<min(answer.count, [3, 8, answer.count][index])])
            try await controller.send(try ACLDataPacket(handle: Self.handle, boundary: index == 0 ? .firstFlushable : .continuation, data: part).packet())
        }
        #expect(try await read.value == Array("beacon".utf8))
        #expect(await central.droppedFrames == 1)
    }

    @Test func aCancelledAttemptIsCancelledOnTheController() async throws {
        let controller = ScriptedController()
        let central = Central(host: HostController(transport: controller.hostEnd, clock: TestClock()))
        try await central.start()
        let connecting = Task { try await central.connect(to: Self.peer, type: .random, timeout: .seconds(600)) }
        try await controller.waitFor(.leExtendedCreateConnection)
        connecting.cancel()
        try await controller.waitFor(.leCreateConnectionCancel)
        try await controller.send(Self.completion(.unknownConnectionIdentifier))
        do {
            _ = try await connecting.value
            Issue.record("a cancelled attempt connected")
        } catch let error as LECentralError {
            #expect(error.kind == .cancelled)
        }
    }
}
