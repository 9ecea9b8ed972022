import BeaconCore
import ClockTestKit
import HCITestKit
import Testing
@testable import HCI

/// ACL data packets, the connection commands and events: byte layouts from Core v5.4 Vol 4
/// Part E 5.4.2, 7.1.6, 7.4.5, 7.7.19, 7.7.65.1/.3/.10, 7.8.12/.13/.18/.66; vectors written
/// by hand from those tables.
@Suite struct ConnectionPacketTests {
    static let peer = BluetoothAddress("C0:11:22:33:44:55") ?? .zero

    // MARK: ACL data

    @Test func aclPacketRoundTrip() throws {
        let acl = ACLDataPacket(handle: 0x040, boundary: .continuation, data: [1, 2, 3])
        let packet = try acl.packet()
        // Handle 0x040, PB 0b01 in bits 12–13: 0x1040 little-endian; length 3.
        #expect(packet.h4Bytes == hex("02 40 10 03 00 01 02 03"))
        #expect(try ACLDataPacket(packet: packet) == acl)
    }

    @Test func aclPacketFlagsAndHandleAreSeparated() throws {
        let acl = try ACLDataPacket(packet: packet("02 ff 2e 00 00"))
        #expect(acl.handle == 0xEFF)
        #expect(acl.boundary == .firstFlushable)
        #expect(acl.boundary.startsFrame)
        #expect(acl.broadcast == 0)
        #expect(acl.data.isEmpty)
    }

    @Test func aclPacketWithWrongLengthIsRefused() {
        #expect(throws: HCIDecodingError.lengthMismatch(structure: "ACL data packet", declared: 4, actual: 3)) {
            try ACLDataPacket(packet: packet("02 40 00 04 00 01 02 03"))
        }
        #expect(throws: HCIDecodingError.self) { try ACLDataPacket(packet: packet("02 40")) }
        #expect(throws: HCIDecodingError.self) { try ACLDataPacket(packet: packet("02 ff 0f 00 00")) }  // handle 0xFFF is reserved
        #expect(throws: HCIDecodingError.wrongPacketType(expected: .acl, found: .event)) {
            try ACLDataPacket(packet: packet("04 10 01 2a"))
        }
    }

    // MARK: Commands

    @Test func leCreateConnectionLayout() throws {
        let command = try LECreateConnection(
            scanInterval: .connecting, scanWindow: .connecting, peerAddressType: .random, peerAddress: Self.peer,
            ownAddressType: .public, connection: .quickExchange)
        let bytes = command.encodedParameters
        #expect(bytes == hex("60 00 60 00 00 01 55 44 33 22 11 c0 00 18 00 28 00 00 00 90 01 00 00 00 00"))
        #expect(try LECreateConnection.decodeParameters(bytes[...]) == command)
        #expect(LECreateConnection.completion == .commandStatus)
    }

    @Test func leExtendedCreateConnectionLayout() throws {
        let command = try LEExtendedCreateConnection(
            scanInterval: .connecting, scanWindow: .connecting, peerAddressType: .random, peerAddress: Self.peer,
            ownAddressType: .public, connection: .quickExchange)
        let bytes = command.encodedParameters
        #expect(bytes == hex("00 00 01 55 44 33 22 11 c0 01 60 00 60 00 18 00 28 00 00 00 90 01 00 00 00 00"))
        #expect(try LEExtendedCreateConnection.decodeParameters(bytes[...]) == command)
        #expect(throws: HCIDecodingError.self) { try LEExtendedCreateConnection.decodeParameters(bytes.dropLast()) }
    }

    @Test func disconnectUpdateAndCancel() throws {
        #expect(Disconnect(connectionHandle: 0x0040).encodedParameters == hex("40 00 13"))
        let update = LEConnectionUpdate(connectionHandle: 0x0040, connection: .quickExchange)
        #expect(update.encodedParameters == hex("40 00 18 00 28 00 00 00 90 01 00 00 00 00"))
        #expect(try LEConnectionUpdate.decodeParameters(update.encodedParameters[...]) == update)
        #expect(LECreateConnectionCancel().encodedParameters.isEmpty)
        #expect(HCIOpcode.leCreateConnectionCancel.description == "LE Create Connection Cancel (0x200E)")
    }

    @Test func connectionParametersOutsideTheSpecRangesAreRefused() {
        // Interval below 7.5 ms; timeout not longer than twice the interval with latency.
        #expect(throws: HCIParameterError.self) {
            try LEConnectionParameters(intervalMinimum: 5, intervalMaximum: 40, maximumLatency: 0, supervisionTimeout: 400)
        }
        #expect(throws: HCIParameterError.self) {
            try LEConnectionParameters(intervalMinimum: 40, intervalMaximum: 800, maximumLatency: 4, supervisionTimeout: 100)
        }
        #expect(throws: HCIParameterError.self) {
            try LEConnectionParameters(intervalMinimum: 40, intervalMaximum: 24, maximumLatency: 0, supervisionTimeout: 400)
        }
        #expect(throws: HCIDecodingError.self) {
            // A decoded command with contradicting values is refused the same way.
            try LEConnectionUpdate.decodeParameters(hex("40 00 28 00 18 00 00 00 90 01 00 00 00 00")[...])
        }
    }

    @Test func readBufferSizeReturnParameters() throws {
        let value = try ReadBufferSize.decodeReturnParameters(hex("fd 03 40 08 00 01 00")[...])
        #expect(value == .init(aclDataPacketLength: 1021, totalACLDataPackets: 8))
        var bytes: [UInt8] = []
        ReadBufferSize.encodeReturnParameters(value, into: &bytes)
        #expect(try ReadBufferSize.decodeReturnParameters(bytes[...]) == value)
    }

    // MARK: Events

    @Test func leConnectionComplete() throws {
        let event = try HCIEvent(packet: packet("04 3e 13 01 00 40 00 00 01 55 44 33 22 11 c0 28 00 00 00 90 01 00"))
        let expected = LEConnectionComplete(
            status: .success, connectionHandle: 0x040, role: .central, peerAddressType: .random, peerAddress: Self.peer,
            interval: 40, latency: 0, supervisionTimeout: 400)
        #expect(event == .le(.connectionComplete(expected)))
        #expect(try event.packet() == packet("04 3e 13 01 00 40 00 00 01 55 44 33 22 11 c0 28 00 00 00 90 01 00"))
    }

    @Test func leEnhancedConnectionCompleteKeepsItsForm() throws {
        let bytes = "04 3e 1f 0a 00 41 00 00 00 55 44 33 22 11 c0 00 00 00 00 00 00 00 00 00 00 00 00 18 00 00 00 48 00 01"
        let event = try HCIEvent(packet: packet(bytes))
        guard case .le(.connectionComplete(let complete)) = event else { throw TestFailure("\(event)") }
        #expect(complete.isEnhanced)
        #expect(complete.connectionHandle == 0x041)
        #expect(complete.peerAddressType == .public)
        #expect(complete.interval == 24 && complete.supervisionTimeout == 72 && complete.centralClockAccuracy == 1)
        #expect(try event.packet() == packet(bytes))
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: packet("04 3e 05 0a 00 41 00 00")) }
    }

    @Test func connectionUpdateCompleteAndFailedConnection() throws {
        let update = try HCIEvent(packet: packet("04 3e 0a 03 00 40 00 18 00 00 00 90 01"))
        #expect(update == .le(.connectionUpdateComplete(.init(status: .success, connectionHandle: 0x40, interval: 24, latency: 0, supervisionTimeout: 400))))
        // A cancelled attempt: status Unknown Connection Identifier, the other fields zero.
        let cancelled = try HCIEvent(packet: packet("04 3e 13 01 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"))
        guard case .le(.connectionComplete(let complete)) = cancelled else { throw TestFailure("\(cancelled)") }
        #expect(complete.status == .unknownConnectionIdentifier)
    }

    @Test func numberOfCompletedPackets() throws {
        let event = try HCIEvent(packet: packet("04 13 09 02 40 00 02 00 41 00 01 00"))
        #expect(event == .numberOfCompletedPackets(.init(entries: [
            .init(connectionHandle: 0x40, completedPackets: 2), .init(connectionHandle: 0x41, completedPackets: 1),
        ])))
        #expect(try event.packet() == packet("04 13 09 02 40 00 02 00 41 00 01 00"))
        // Two handles announced, one present.
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: packet("04 13 05 02 40 00 02 00")) }
    }

    @Test func centralEventMasks() {
        #expect(LEEventMask.central.rawValue == 0x0205)
        #expect(HCIEventMask(eventCode: 0x13) == .numberOfCompletedPackets)
    }

    // MARK: The host controller

    @Test func hostControllerDeliversTrafficInOrderAndSendsACL() async throws {
        let controller = ScriptedController()
        let host = HostController(transport: controller.hostEnd, clock: TestClock())
        let traffic = await host.traffic()
        let events = await host.events()
        let disconnection = HCIEvent.disconnectionComplete(.init(status: .success, connectionHandle: 0x40, reason: .connectionTimeout))
        try await controller.send(packet("02 40 20 02 00 aa bb"))
        // A malformed one is reported on the event stream and skipped.
        try await controller.send(packet("02 40 20 05 00 aa"))
        try await controller.send(disconnection)
        try await controller.send(packet("02 40 10 01 00 cc"))
        var iterator = traffic.makeAsyncIterator()
        #expect(await iterator.next() == .acl(ACLDataPacket(handle: 0x40, boundary: .firstFlushable, data: [0xAA, 0xBB])))
        #expect(await iterator.next() == .event(disconnection))
        #expect(await iterator.next() == .acl(ACLDataPacket(handle: 0x40, boundary: .continuation, data: [0xCC])))
        var eventIterator = events.makeAsyncIterator()
        guard case .malformedPacket(_, .lengthMismatch)? = await eventIterator.next() else {
            throw TestFailure("the malformed ACL packet was not reported")
        }
        try await host.send(ACLDataPacket(handle: 0x40, boundary: .firstNonFlushable, data: [9]))
        let sent = try await controller.waitForACL(count: 1)
        #expect(sent == [ACLDataPacket(handle: 0x40, boundary: .firstNonFlushable, data: [9])])
        await host.close()
        #expect(await iterator.next() == .transportEnded(nil))
        #expect(await iterator.next() == nil)
        await #expect(throws: HCITransportError.self) {
            try await host.send(ACLDataPacket(handle: 0x40, boundary: .firstNonFlushable, data: [9]))
        }
    }
}
