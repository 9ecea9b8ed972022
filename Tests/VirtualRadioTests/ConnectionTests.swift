import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

/// A host that sees ACL data as well as events: what a central or a peripheral needs.
final class LinkHost {
    let base: TestHost
    private var traffic: AsyncStream<HostTraffic>.AsyncIterator

    init(on air: VirtualAir, _ configuration: VirtualControllerConfiguration = VirtualControllerConfiguration()) async throws {
        base = await TestHost(on: air, configuration)
        traffic = await base.host.traffic(bufferSize: 1 << 16).makeAsyncIterator()
        try await base.bringUp(
            eventMask: HCIEventMask.beaconHost.union([.disconnectionComplete, .numberOfCompletedPackets]),
            leEventMask: LEEventMask.beaconHost.union(.central))
    }

    var host: HostController { base.host }
    var address: BluetoothAddress { base.transport.address }

    /// Everything received since the last call but command answers, in order (a Read BD_ADDR
    /// closes the batch, as in `TestHost.receivedEvents`).
    func received() async throws -> [HostTraffic] {
        _ = try await host.send(ReadBDADDR())
        var collected: [HostTraffic] = []
        while let element = await traffic.next() {
            switch element {
            case .event(.commandComplete(let complete)):
                if complete.opcode == .readBDADDR { return collected }
            case .event(.commandStatus):
                break
            default:
                collected.append(element)
            }
        }
        return collected
    }

    /// Connectable undirected legacy advertising (ADV_IND) every 100 ms.
    func advertiseConnectably() async throws {
        let interval = try AdvertisingInterval(milliseconds: 100)
        try await host.send(LESetAdvertisingParameters(intervalMin: interval, intervalMax: interval, type: .connectableUndirected))
        try await host.send(LESetAdvertisingData(data: iBeaconData(minor: 7)))
        try await host.send(LESetAdvertisingEnable(true))
    }

    func connect(to peer: BluetoothAddress, extended: Bool = true) async throws {
        let scan = try ScanInterval(milliseconds: 60)
        if extended {
            try await host.send(LEExtendedCreateConnection(
                scanInterval: scan, scanWindow: scan, peerAddressType: .public, peerAddress: peer, ownAddressType: .public,
                connection: .quickExchange))
        } else {
            try await host.send(LECreateConnection(
                scanInterval: scan, scanWindow: scan, peerAddressType: .public, peerAddress: peer, ownAddressType: .public,
                connection: .quickExchange))
        }
    }
}

func connectionCompletes(_ traffic: [HostTraffic]) -> [LEConnectionComplete] {
    traffic.compactMap { if case .event(.le(.connectionComplete(let complete))) = $0 { complete } else { nil } }
}

func disconnections(_ traffic: [HostTraffic]) -> [HCIEvent.DisconnectionComplete] {
    traffic.compactMap { if case .event(.disconnectionComplete(let event)) = $0 { event } else { nil } }
}

func aclPackets(_ traffic: [HostTraffic]) -> [ACLDataPacket] {
    traffic.compactMap { if case .acl(let packet) = $0 { packet } else { nil } }
}

func completedPackets(_ traffic: [HostTraffic]) -> [NumberOfCompletedPackets.Entry] {
    traffic.flatMap { element -> [NumberOfCompletedPackets.Entry] in
        if case .event(.numberOfCompletedPackets(let event)) = element { return event.entries }
        return []
    }
}

@Suite("Virtual controller: connections", .timeLimit(.minutes(1)))
struct ConnectionTests {
    @Test("connect on the peer's next ADV_IND, data both ways with completed packets, then Disconnect on both sides")
    func connectExchangeDisconnect() async throws {
        let air = VirtualAir(name: "links")
        let central = try await LinkHost(on: air)
        let peripheral = try await LinkHost(on: air)
        try await peripheral.advertiseConnectably()
        try await central.connect(to: peripheral.address)
        #expect(connectionCompletes(try await central.received()).isEmpty)  // nothing before the peer advertises

        air.advance(by: .milliseconds(200))
        let made = try #require(connectionCompletes(try await central.received()).first)
        #expect(made.status == .success && made.role == .central && made.peerAddress == peripheral.address)
        #expect(made.isEnhanced)  // the central unmasked the enhanced event (7.7.65.10)
        #expect(made.supervisionTimeout == LEConnectionParameters.quickExchange.supervisionTimeout)
        let accepted = try #require(connectionCompletes(try await peripheral.received()).first)
        #expect(accepted.role == .peripheral && accepted.peerAddress == central.address)
        #expect(accepted.connectionHandle == made.connectionHandle)
        #expect(air.statistics.connectionsMade == 1)

        // The connection stopped the peripheral's advertising (7.8.9).
        let scanner = await TestHost(on: air)
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        air.advance(by: .seconds(1))
        #expect(try await scanner.advertisingReports().isEmpty)

        let handle = made.connectionHandle
        let frame: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00]  // ATT Exchange MTU Request, 247
        try await central.host.send(ACLDataPacket(handle: handle, boundary: .firstNonFlushable, data: frame))
        #expect(completedPackets(try await central.received()) == [.init(connectionHandle: handle, completedPackets: 1)])
        let carried = aclPackets(try await peripheral.received())
        #expect(carried == [ACLDataPacket(handle: handle, boundary: .firstFlushable, data: frame)])

        try await peripheral.host.send(ACLDataPacket(handle: handle, boundary: .firstNonFlushable, data: [0x01, 0x00, 0x04, 0x00]))
        try await peripheral.host.send(ACLDataPacket(handle: handle, boundary: .continuation, data: [0x03]))
        let back = try await central.received()
        #expect(aclPackets(back).map(\.boundary) == [.firstFlushable, .continuation])
        #expect(completedPackets(try await peripheral.received()).count == 2)

        try await central.host.send(Disconnect(connectionHandle: handle))
        #expect(disconnections(try await central.received()).map(\.reason) == [.connectionTerminatedByLocalHost])
        #expect(disconnections(try await peripheral.received()).map(\.reason) == [.remoteUserTerminatedConnection])
        // The link is gone: data on its handle is dropped, and Disconnect no longer knows it.
        let dropped = air.statistics.droppedACLPackets
        try await central.host.send(ACLDataPacket(handle: handle, boundary: .firstNonFlushable, data: frame))
        #expect(completedPackets(try await central.received()).isEmpty)
        #expect(air.statistics.droppedACLPackets == dropped + 1)
        #expect(await central.base.refusal(Disconnect(connectionHandle: handle)) == .unknownConnectionIdentifier)
    }

    @Test("the legacy LE Create Connection on a controller without extended advertising; LE Connection Complete when the enhanced one is masked")
    func legacyCreateConnection() async throws {
        let air = VirtualAir(name: "legacy-links")
        var legacyOnly = VirtualControllerConfiguration()
        legacyOnly.supportsExtendedAdvertising = false
        let central = try await LinkHost(on: air, legacyOnly)
        try await central.host.send(LESetEventMask(mask: LEEventMask.beaconHost.union(.connectionComplete)))
        let peripheral = try await LinkHost(on: air)
        try await peripheral.advertiseConnectably()
        #expect(await central.base.refusal(try LEExtendedCreateConnection(
            scanInterval: try ScanInterval(milliseconds: 60), scanWindow: try ScanInterval(milliseconds: 60),
            peerAddressType: .public, peerAddress: peripheral.address, ownAddressType: .public, connection: .quickExchange))
            == .unknownHCICommand)
        try await central.connect(to: peripheral.address, extended: false)
        air.advance(by: .milliseconds(200))
        let made = try #require(connectionCompletes(try await central.received()).first)
        #expect(made.status == .success && !made.isEnhanced)
    }

    @Test("an attempt to an address nobody advertises connectably stays pending until cancelled; one attempt at a time")
    func pendingUntilCancelled() async throws {
        let air = VirtualAir(name: "pending")
        let central = try await LinkHost(on: air)
        // A non-connectable advertiser at the wanted address does not complete it.
        let bystander = await TestHost(on: air)
        try await bystander.bringUp()
        try await bystander.advertiseLegacy(iBeaconData(minor: 1))
        try await central.connect(to: bystander.transport.address)
        #expect(await central.base.refusal(try LEExtendedCreateConnection(
            scanInterval: try ScanInterval(milliseconds: 60), scanWindow: try ScanInterval(milliseconds: 60),
            peerAddressType: .public, peerAddress: bystander.transport.address, ownAddressType: .public, connection: .quickExchange))
            == .commandDisallowed)
        air.advance(by: .seconds(30))
        #expect(connectionCompletes(try await central.received()).isEmpty)

        try await central.host.send(LECreateConnectionCancel())
        let cancelled = try #require(connectionCompletes(try await central.received()).first)
        #expect(cancelled.status == .unknownConnectionIdentifier && cancelled.peerAddress == bystander.transport.address)
        // Nothing pending any more (7.8.13).
        #expect(await central.base.refusal(LECreateConnectionCancel()) == .commandDisallowed)
        #expect(air.statistics.connectionsMade == 0)
    }

    @Test("Disconnect refuses an unknown handle (0x02) and a reason the command does not take (0x12)")
    func disconnectRefusals() async throws {
        let air = VirtualAir(name: "refusals")
        let central = try await LinkHost(on: air)
        let peripheral = try await LinkHost(on: air)
        try await peripheral.advertiseConnectably()
        try await central.connect(to: peripheral.address)
        air.advance(by: .milliseconds(200))
        let handle = try #require(connectionCompletes(try await central.received()).first).connectionHandle
        #expect(await central.base.refusal(Disconnect(connectionHandle: handle &+ 1)) == .unknownConnectionIdentifier)
        #expect(await central.base.refusal(Disconnect(connectionHandle: handle, reason: .connectionTimeout)) == .invalidHCICommandParameters)
        // A third controller cannot end a link it is not on.
        let stranger = try await LinkHost(on: air)
        #expect(await stranger.base.refusal(Disconnect(connectionHandle: handle)) == .unknownConnectionIdentifier)
        #expect(disconnections(try await peripheral.received()).isEmpty)
    }

    @Test("a peer that leaves the air: Connection Timeout once the supervision timeout has passed on the air's clock")
    func supervisionTimeout() async throws {
        let air = VirtualAir(name: "lost")
        let central = try await LinkHost(on: air)
        let peripheral = try await LinkHost(on: air)
        try await peripheral.advertiseConnectably()
        try await central.connect(to: peripheral.address)
        air.advance(by: .milliseconds(200))
        let made = try #require(connectionCompletes(try await central.received()).first)
        await peripheral.base.close()
        // quickExchange: 400 × 10 ms = 4 s.
        air.advance(by: .milliseconds(3_990))
        #expect(disconnections(try await central.received()).isEmpty)
        air.advance(by: .milliseconds(20))
        let lost = try await central.received()
        #expect(disconnections(lost).map(\.reason) == [.connectionTimeout])
        #expect(disconnections(lost).map(\.connectionHandle) == [made.connectionHandle])
    }

    @Test("the connection commands are listed in Read Local Supported Commands")
    func supportedCommands() async throws {
        let air = VirtualAir(name: "supported")
        let host = await TestHost(on: air)
        let commands = try await host.host.send(ReadLocalSupportedCommands())
        #expect(commands.contains(octet: 0, bit: 5))  // Disconnect
        #expect(commands.contains(octet: 26, bit: 4))  // LE Create Connection
        #expect(commands.contains(octet: 26, bit: 5))  // LE Create Connection Cancel
        #expect(commands.contains(octet: 37, bit: 7))  // LE Extended Create Connection
    }
}
