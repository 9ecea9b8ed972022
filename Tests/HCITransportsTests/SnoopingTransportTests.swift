import ClockTestKit
import HCITestKit
import Foundation
import Testing
@testable import HCI
import HCITransports

@Suite(.timeLimit(.minutes(1))) struct SnoopingTransportTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hci-tests-\(UUID().uuidString).btsnoop").path
    }

    @Test func recordsBothDirectionsInOrder() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = ScriptedController(name: "hci0", configuration: .manual)
        let snooping = try SnoopingTransport(wrapping: script.hostEnd, path: path)
        #expect(snooping.name == "hci0")
        // A test clock nobody advances: the scripted controller answers when the test says,
        // so the host's command timeout must never fire on a slow machine (the suite's time
        // limit turns a hang into a failure).
        let host = HostController(transport: snooping, clock: TestClock())

        async let reset: Void = host.send(Reset())
        _ = try await script.nextCommand()
        try await script.complete(Reset.self)
        try await reset
        await host.close()
        #expect(snooping.recordingError == nil)

        var reader = try BTSnoopReader(contentsOf: path)
        let records = try reader.readAll()
        #expect(records.map(\.packet) == [packet("01 03 0c 00"), packet("04 0e 04 01 03 0c 00")])
        #expect(records.map(\.direction) == [.hostToController, .controllerToHost])
        #expect(records[0].unixMicroseconds <= records[1].unixMicroseconds)
    }

    @Test func recordingFailureDoesNotDisturbTraffic() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = ScriptedController(name: "hci0", configuration: .manual)
        let writer = try BTSnoopWriter(path: path)
        writer.close()  // every write now fails, as on a full disk
        let snooping = SnoopingTransport(wrapping: script.hostEnd, writer: writer)
        // A test clock nobody advances: the scripted controller answers when the test says,
        // so the host's command timeout must never fire on a slow machine (the suite's time
        // limit turns a hang into a failure).
        let host = HostController(transport: snooping, clock: TestClock())

        async let sets = host.send(LEReadNumberOfSupportedAdvertisingSets())
        _ = try await script.nextCommand()
        try await script.complete(LEReadNumberOfSupportedAdvertisingSets.self, returning: 4)
        #expect(try await sets == 4)
        #expect(snooping.recordingError != nil)
        await host.close()
    }

    @Test func linkFailurePassesThrough() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (hostEnd, controllerEnd) = InMemoryHCITransport.pair(name: "hci0")
        let snooping = try SnoopingTransport(wrapping: hostEnd, path: path)
        let failure = HCITransportError(.ioFailure, "hci0: link lost")
        controllerEnd.drop(with: failure)
        await #expect(throws: HCITransportError.self) {
            for try await _ in snooping.incoming {}
        }
        await snooping.close()
    }
}

@Suite(.timeLimit(.minutes(1))) struct InMemoryTransportTests {
    @Test func packetsCrossInOrderBothWays() async throws {
        let (host, controller) = InMemoryHCITransport.pair(name: "hci9")
        #expect(host.name == "hci9")
        #expect(controller.name == "hci9 (controller side)")
        for index in 0..<50 {
            try await host.send(HCIPacket(type: .command, body: [UInt8(index)]))
        }
        try await controller.send(packet("04 10 01 00"))
        var received: [UInt8] = []
        for try await packet in controller.incoming {
            received += packet.body
            if received.count == 50 { break }
        }
        #expect(received == (0..<50).map(UInt8.init))
        var hostIterator = host.incoming.makeAsyncIterator()
        #expect(try await hostIterator.next() == packet("04 10 01 00"))
    }

    @Test func closeEndsBothStreamsAndRefusesSends() async throws {
        let (host, controller) = InMemoryHCITransport.pair()
        await host.close()
        for try await _ in controller.incoming {}
        for try await _ in host.incoming {}
        await #expect(throws: HCITransportError.self) { try await controller.send(packet("04 10 01 00")) }
        let error = await #expect(throws: HCITransportError.self) { try await host.send(packet("01 03 0c 00")) }
        #expect(error?.kind == .closed)
        await controller.close()
    }

    @Test func dropFailsBothStreams() async throws {
        let (host, controller) = InMemoryHCITransport.pair()
        let failure = HCITransportError(.ioFailure, "memory: gone")
        host.drop(with: failure)
        let hostError = await #expect(throws: HCITransportError.self) { for try await _ in host.incoming {} }
        #expect(hostError == failure)
        let controllerError = await #expect(throws: HCITransportError.self) { for try await _ in controller.incoming {} }
        #expect(controllerError == failure)
    }
}
