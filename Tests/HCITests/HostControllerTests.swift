import BeaconCore
import ClockTestKit
import HCITestKit
import Testing
@testable import HCI

@Suite(.timeLimit(.minutes(1))) struct HostControllerTests {
    let controllerAddress = BluetoothAddress(littleEndianBytes: [0x00, 0x17, 0xDE, 0x10, 0x4C, 0xDA]) ?? .zero

    /// The commands these tests answer are answered at once: the default timeout is a safety
    /// net; the tests of timeouts pass their own. Timeouts run on `clock`, which only the
    /// test moves: a command times out when the test says, never because the machine is slow.
    func makeHost(
        timeout: Duration = .seconds(60), clock: TestClock = TestClock()
    ) -> (HostController, ScriptedController, CountingTransport) {
        let script = ScriptedController(name: "hci0", configuration: .manual)
        let counting = CountingTransport(script.hostEnd)
        return (HostController(transport: counting, defaultTimeout: timeout, clock: clock), script, counting)
    }

    /// Answers the two informational commands used by the concurrent tests.
    func answer(_ command: HCICommandPacket, on script: ScriptedController, credits: UInt8 = 1) async throws {
        switch command.opcode {
        case .readBDADDR: try await script.complete(ReadBDADDR.self, credits: credits, returning: controllerAddress)
        case .leReadNumberOfSupportedAdvertisingSets:
            try await script.complete(LEReadNumberOfSupportedAdvertisingSets.self, credits: credits, returning: 16)
        case .leReadMaximumAdvertisingDataLength:
            try await script.complete(LEReadMaximumAdvertisingDataLength.self, credits: credits, returning: 512)
        default: throw TestFailure("unexpected \(command)")
        }
    }

    @Test func sendsTheCommandAndReturnsItsResult() async throws {
        let (host, script, _) = makeHost()
        async let address = host.send(ReadBDADDR())
        let command = try await script.nextCommand()
        #expect(command.packet.h4Bytes == hex("01 09 10 00"))
        try await script.complete(ReadBDADDR.self, returning: controllerAddress)
        #expect(try await address == controllerAddress)
        #expect(await host.pendingCommandCount == 0)
        await host.close()
    }

    @Test func secondCommandWaitsUntilTheCreditReturns() async throws {
        let clock = TestClock()
        let (host, script, counting) = makeHost(clock: clock)
        async let address = host.send(ReadBDADDR())
        async let sets = host.send(LEReadNumberOfSupportedAdvertisingSets())
        let first = try await script.nextCommand()
        // Both commands are with the host once both their timeouts run.
        try await clock.sleepers(atLeast: 2)
        // One credit at start: the other command stays with the host, for as long as its
        // timeout lets it wait (a millisecond short of the 60 s).
        clock.advance(by: .seconds(60) - .milliseconds(1))
        #expect(await host.pendingCommandCount == 2)
        #expect(counting.sentCount == 1)
        #expect(await host.commandCredits == 0)

        try await answer(first, on: script)
        let second = try await script.nextCommand()
        #expect(second.opcode != first.opcode)
        #expect(counting.sentCount == 2)
        try await answer(second, on: script)
        #expect(try await address == controllerAddress)
        #expect(try await sets == 16)
        await host.close()
    }

    @Test func creditsComeFromEveryCommandCompleteIncludingNOP() async throws {
        let clock = TestClock()
        let (host, script, counting) = makeHost(clock: clock)
        try await grant(0, to: host, from: script)
        async let sets = host.send(LEReadNumberOfSupportedAdvertisingSets())
        try await clock.sleepers(atLeast: 1)
        // No credit: nothing goes out while the command may wait (a millisecond short of 60 s).
        clock.advance(by: .seconds(60) - .milliseconds(1))
        #expect(await host.pendingCommandCount == 1)
        #expect(counting.sentCount == 0)

        try await script.grantCredits(1)
        let command = try await script.nextCommand()
        #expect(command.opcode == .leReadNumberOfSupportedAdvertisingSets)
        try await answer(command, on: script, credits: 1)
        #expect(try await sets == 16)
        await host.close()
    }

    @Test func severalCreditsAllowSeveralCommandsInFlight() async throws {
        let (host, script, _) = makeHost()
        try await grant(3, to: host, from: script)
        async let address = host.send(ReadBDADDR())
        async let sets = host.send(LEReadNumberOfSupportedAdvertisingSets())
        async let length = host.send(LEReadMaximumAdvertisingDataLength())
        // All three arrive before any answer.
        let commands = [try await script.nextCommand(), try await script.nextCommand(), try await script.nextCommand()]
        #expect(Set(commands.map(\.opcode)).count == 3)
        // Answered in reverse order: each result reaches its own caller (matched by opcode).
        for command in commands.reversed() {
            try await answer(command, on: script, credits: 3)
        }
        #expect(try await address == controllerAddress)
        #expect(try await sets == 16)
        #expect(try await length == 512)
        await host.close()
    }

    @Test func commandWithoutAnswerTimesOutAndGivesItsCreditBack() async throws {
        let clock = TestClock()
        let (host, script, _) = makeHost(timeout: .milliseconds(100), clock: clock)
        let sent = Task { try await host.send(ReadBDADDR()) }
        _ = try await script.nextCommand()
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(99))
        #expect(await host.pendingCommandCount == 1, "99 ms of 100: still waiting for the answer")
        clock.advance(by: .milliseconds(1))
        let error = await #expect(throws: HCIError.self) { try await sent.value }
        #expect(error?.kind == .timeout(.milliseconds(100), waitingForCredit: false))
        #expect(error?.description.hasPrefix("hci0: no answer to Read BD_ADDR within 100 ms") == true)

        // The host can go on: the lost answer's credit was restored.
        #expect(await host.commandCredits == 1)
        async let sets = host.send(LEReadNumberOfSupportedAdvertisingSets(), timeout: .seconds(60))
        try await answer(try await script.nextCommand(), on: script)
        #expect(try await sets == 16)
        await host.close()
    }

    @Test func commandWaitingForACreditTimesOut() async throws {
        let clock = TestClock()
        let (host, script, counting) = makeHost(timeout: .milliseconds(100), clock: clock)
        try await grant(0, to: host, from: script)
        let sent = Task { try await host.send(Reset()) }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(100))
        let error = await #expect(throws: HCIError.self) { try await sent.value }
        #expect(error?.kind == .timeout(.milliseconds(100), waitingForCredit: true))
        #expect(counting.sentCount == 0)
        await host.close()
    }

    @Test func refusalCarriesTheStatusAndCommand() async throws {
        let (host, script, _) = makeHost()
        let parameters = try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault)
        let result = Task { try await host.send(parameters) }
        _ = try await script.nextCommand()
        // RootCanal 1.10.0's answer when extended advertising was used before.
        try await script.send(packet("04 0e 04 01 06 20 0c"))
        let error = await #expect(throws: HCIError.self) { try await result.value }
        #expect(error?.kind == .commandFailed(.commandDisallowed))
        #expect(error?.description == "hci0: LE Set Advertising Parameters was refused (0x0C Command Disallowed)")
        #expect(error?.opcode == .leSetAdvertisingParameters)
        #expect(error?.controller == "hci0")
        await host.close()
    }

    @Test func commandStatusAnswersStatusCommands() async throws {
        let (host, script, _) = makeHost()
        async let accepted: Void = host.send(StatusAnsweredCommand())
        _ = try await script.nextCommand()
        try await script.send(.commandStatus(.init(status: .success, numHCICommandPackets: 1, opcode: StatusAnsweredCommand.opcode)))
        try await accepted

        let refused = Task { try await host.send(StatusAnsweredCommand()) }
        _ = try await script.nextCommand()
        try await script.send(.commandStatus(.init(status: .commandDisallowed, numHCICommandPackets: 1, opcode: StatusAnsweredCommand.opcode)))
        let error = await #expect(throws: HCIError.self) { try await refused.value }
        #expect(error?.kind == .commandFailed(.commandDisallowed))
        await host.close()
    }

    @Test func commandCompleteCommandRefusedThroughCommandStatus() async throws {
        // Controllers may answer a command they do not know with Command Status 0x01.
        let (host, script, _) = makeHost()
        let count = Task { try await host.send(LEReadNumberOfSupportedAdvertisingSets()) }
        _ = try await script.nextCommand()
        try await script.send(.commandStatus(.init(status: .unknownHCICommand, numHCICommandPackets: 1, opcode: .leReadNumberOfSupportedAdvertisingSets)))
        let error = await #expect(throws: HCIError.self) { try await count.value }
        #expect(error?.kind == .commandFailed(.unknownHCICommand))

        // Success in Command Status cannot carry return parameters.
        let again = Task { try await host.send(LEReadNumberOfSupportedAdvertisingSets()) }
        _ = try await script.nextCommand()
        try await script.send(.commandStatus(.init(status: .success, numHCICommandPackets: 1, opcode: .leReadNumberOfSupportedAdvertisingSets)))
        let unexpected = await #expect(throws: HCIError.self) { try await again.value }
        if case .unexpectedAnswer? = unexpected?.kind {} else { Issue.record("got \(String(describing: unexpected))") }
        await host.close()
    }

    @Test func rawCommandsReturnTheAnswerAsItCame() async throws {
        let (host, script, _) = makeHost()
        async let answer = host.send(try HCICommandPacket(opcode: .readBDADDR))
        _ = try await script.nextCommand()
        try await script.send(packet("04 0e 04 01 09 10 01"))
        #expect(try await answer == .complete(returnParameters: [0x01]))
        #expect(try await answer.status == .unknownHCICommand)
        await host.close()
    }

    @Test func malformedReturnParametersAreReported() async throws {
        let (host, script, _) = makeHost()
        let address = Task { try await host.send(ReadBDADDR()) }
        _ = try await script.nextCommand()
        try await script.send(packet("04 0e 06 01 09 10 00 17 de"))
        let error = await #expect(throws: HCIError.self) { try await address.value }
        #expect(error?.kind == .malformedAnswer(.truncated(structure: "Read BD_ADDR return parameters", offset: 0, needed: 6, available: 2)))
        await host.close()
    }

    @Test func unencodableCommandIsNotSent() async throws {
        let (host, _, counting) = makeHost()
        let error = await #expect(throws: HCIError.self) { try await host.send(OversizedCommand()) }
        if case .invalidCommand? = error?.kind {} else { Issue.record("got \(String(describing: error))") }
        #expect(counting.sentCount == 0)
        await host.close()
    }

    @Test func hardwareErrorFailsTheWaitingCommandAndIsDelivered() async throws {
        let (host, script, _) = makeHost()
        let events = await host.events()
        let address = Task { try await host.send(ReadBDADDR()) }
        _ = try await script.nextCommand()
        try await script.send(.hardwareError(code: 0x2A))
        let error = await #expect(throws: HCIError.self) { try await address.value }
        #expect(error?.kind == .hardwareError(code: 0x2A))
        #expect(await collect(1, from: events) == [.event(.hardwareError(code: 0x2A))])
        // A credit is left to send Reset with.
        #expect(await host.commandCredits == 1)
        await host.close()
    }

    @Test func linkDropWhileWaiting() async throws {
        let (host, script, _) = makeHost()
        let events = await host.events()
        let address = Task { try await host.send(ReadBDADDR()) }
        _ = try await script.nextCommand()
        let drop = HCITransportError(.ioFailure, "hci0: the controller vanished (ENODEV); plug it back in")
        script.dropLink(with: drop)
        let error = await #expect(throws: HCIError.self) { try await address.value }
        #expect(error?.kind == .transport(drop))
        #expect(error?.description == "hci0: Read BD_ADDR did not complete: hci0: the controller vanished (ENODEV); plug it back in")

        var received: [HostControllerEvent] = []
        for await element in events { received.append(element) }
        #expect(received == [.transportEnded(drop)])

        let later = await #expect(throws: HCIError.self) { try await host.send(Reset()) }
        #expect(later?.kind == .transport(drop))
        await host.close()
    }

    @Test func controllerClosingTheLinkEndsTheStreams() async throws {
        let (host, script, _) = makeHost()
        let events = await host.events()
        await script.closeLink()
        let received = await collect(1, from: events)
        guard case .transportEnded(let error?)? = received.first else {
            Issue.record("got \(received)")
            return
        }
        #expect(error.kind == .closed)
        await host.close()
    }

    @Test func everySubscriberSeesEveryEventInOrder() async throws {
        let (host, script, _) = makeHost()
        let streams = [await host.events(), await host.events(), await host.events()]
        #expect(await host.subscriberCount == 3)
        let report = HCIEvent.le(.advertisingReport([LEAdvertisingReport(
            eventType: .advNonconnInd, addressType: .random, address: .randomStatic(), data: iBeaconData, rssi: -60)]))
        let vendor = HCIEvent.unknown(code: .vendorSpecific, parameters: [0x01])
        try await script.send(report)
        try await script.send(vendor)
        for stream in streams {
            #expect(await collect(2, from: stream) == [.event(report), .event(vendor)])
        }
        await host.close()
    }

    @Test func unsolicitedResetIsANotice() async throws {
        let (host, script, _) = makeHost()
        let events = await host.events()
        let address = Task { try await host.send(ReadBDADDR()) }
        _ = try await script.nextCommand()
        // Another program reset the controller: our pending command dies with it.
        try await script.complete(Reset.self)
        let error = await #expect(throws: HCIError.self) { try await address.value }
        #expect(error?.kind == .controllerReset)
        let received = await collect(2, from: events)
        #expect(received.last == .unsolicitedReset)
        await host.close()
    }

    @Test func ownResetIsNotANotice() async throws {
        let (host, script, _) = makeHost()
        let events = await host.events()
        async let reset: Void = host.send(Reset())
        _ = try await script.nextCommand()
        try await script.complete(Reset.self)
        try await reset
        let marker = HCIEvent.unknown(code: .vendorSpecific, parameters: [0x55])
        try await script.send(marker)
        let received = await collect(2, from: events)
        #expect(received == [.event(.commandComplete(.init(numHCICommandPackets: 1, answering: Reset.self))), .event(marker)])
        await host.close()
    }

    @Test func malformedPacketIsReportedAndSkipped() async throws {
        let (host, script, _) = makeHost()
        let events = await host.events()
        let bad = packet("04 0e 05 01 09")
        try await script.send(bad)
        let received = await collect(1, from: events)
        guard case .malformedPacket(let packet, .lengthMismatch)? = received.first else {
            Issue.record("got \(received)")
            return
        }
        #expect(packet == bad)
        // The host keeps working.
        async let address = host.send(ReadBDADDR())
        _ = try await script.nextCommand()
        try await script.complete(ReadBDADDR.self, returning: controllerAddress)
        #expect(try await address == controllerAddress)
        await host.close()
    }

    @Test func closeFailsPendingCommandsAndEndsStreams() async throws {
        let (host, script, _) = makeHost()
        let events = await host.events()
        let address = Task { try await host.send(ReadBDADDR()) }
        _ = try await script.nextCommand()
        await host.close()
        let error = await #expect(throws: HCIError.self) { try await address.value }
        #expect(error?.kind == .closed)
        var received: [HostControllerEvent] = []
        for await element in events { received.append(element) }
        #expect(received == [.transportEnded(nil)])

        let later = await #expect(throws: HCIError.self) { try await host.send(Reset()) }
        #expect(later?.kind == .closed)
        var afterClose: [HostControllerEvent] = []
        for await element in await host.events() { afterClose.append(element) }
        #expect(afterClose == [.transportEnded(nil)])
        await host.close()
    }

    @Test func cancellingTheCallerCancelsTheCommand() async throws {
        let (host, script, _) = makeHost()
        let task = Task { try await host.send(ReadBDADDR()) }
        _ = try await script.nextCommand()
        task.cancel()
        let result = await task.result
        guard case .failure(let error as HCIError) = result else {
            Issue.record("got \(result)")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(await host.pendingCommandCount == 0)
        await host.close()
    }

    @Test func foreignAnswersArePassedOnNotMatched() async throws {
        // On a shared kernel socket the answers to bluetoothd's commands arrive too.
        let (host, script, _) = makeHost()
        let events = await host.events()
        let foreign = HCIEvent.commandComplete(.init(numHCICommandPackets: 1, opcode: HCIOpcode(rawValue: 0x0C14), returnParameters: [0]))
        try await script.send(foreign)
        #expect(await collect(1, from: events) == [.event(foreign)])
        #expect(await host.pendingCommandCount == 0)
        await host.close()
    }
}
