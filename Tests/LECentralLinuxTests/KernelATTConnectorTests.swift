#if os(Linux)
import BeaconCore
import Glibc
import HCI
import HCITransports
import LECentral
import Testing

@testable import LECentralLinux

/// The connector and the bearer against a scripted kernel whose L2CAP socket is one end of a
/// Unix socket pair (``FakeKernelL2CAPSyscalls``): the addresses and the security level the
/// kernel is given, PDUs both ways, the MTU limit, and every way the attempt or link ends.
@Suite("the kernel ATT connector and bearer on a scripted socket", .timeLimit(.minutes(1)))
struct KernelATTConnectorTests {
    static let controller = BluetoothAddress("00:1A:7D:DA:71:13") ?? .zero
    static let peer = BluetoothAddress("F0:4C:0A:00:00:31") ?? .zero

    static func connect(
        _ syscalls: FakeKernelL2CAPSyscalls, timeout: Duration = .seconds(30),
        controllerAddress: @escaping @Sendable (UInt16) throws(HCITransportError) -> BluetoothAddress = { _ in controller }
    ) async throws(LECentralError) -> KernelATTBearer {
        try await KernelATTConnector.connect(
            controller: 0, to: peer, type: .random, timeout: timeout, syscalls: syscalls, controllerAddress: controllerAddress)
    }

    @Test("binds to the controller's public address on channel 4, asks for security low, connects to the peer's random address")
    func connects() async throws {
        let kernel = try FakeKernelL2CAPSyscalls()
        let bearer = try await Self.connect(kernel)
        defer { bearer.close() }
        #expect(kernel.log.bound == [KernelL2CAPAddress(address: Self.controller, kind: .lePublic)])
        #expect(kernel.log.securityLevels == [1])
        #expect(kernel.log.connected == [KernelL2CAPAddress(address: Self.peer, kind: .leRandom)])
        #expect(bearer.context == "hci0: peripheral F0:4C:0A:00:00:31")
        #expect(bearer.peer == Self.peer)
        #expect(bearer.largestPDU == 672)
    }

    @Test("PDUs both ways, one per datagram; the peripheral's hang-up ends incoming with the reason in words and closes the socket")
    func pdusAndHangUp() async throws {
        let kernel = try FakeKernelL2CAPSyscalls()
        let bearer = try await Self.connect(kernel)
        try await bearer.send([0x0A, 0x03, 0x00])
        #expect(kernel.peerReceives() == [0x0A, 0x03, 0x00])
        kernel.peerSends([0x0B, 0x42])
        kernel.peerSends([0x1B, 0x05, 0x00, 0x01])
        var iterator = bearer.incoming.makeAsyncIterator()
        #expect(try await iterator.next() == [0x0B, 0x42])
        #expect(try await iterator.next() == [0x1B, 0x05, 0x00, 0x01])
        kernel.peerHangsUp()
        await #expect(throws: LECentralError(
            context: bearer.context,
            kind: .socket("the kernel closed the ATT channel (the link ended; the kernel gave no reason)"))
        ) {
            _ = try await iterator.next()
        }
        #expect(kernel.log.closed == [kernel.socketEnd])
        #expect(bearer.hasEnded)
        await #expect(throws: LECentralError.self) { try await bearer.send([0x0A, 0x03, 0x00]) }
    }

    @Test("close() ends incoming, says it was closed on this host, and closes the socket")
    func closing() async throws {
        let kernel = try FakeKernelL2CAPSyscalls()
        let bearer = try await Self.connect(kernel)
        bearer.close()
        var iterator = bearer.incoming.makeAsyncIterator()
        await #expect(throws: LECentralError(context: bearer.context, kind: .socket("the link was closed on this host"))) {
            _ = try await iterator.next()
        }
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("the ATT client asks for no more than the socket's MTU")
    func mtuLimit() async throws {
        let kernel = try FakeKernelL2CAPSyscalls(.init(mtu: KernelL2CAPMTU(receive: 100, send: 672)))
        let bearer = try await Self.connect(kernel)
        defer { bearer.close() }
        let client = ATTClient(bearer: bearer)
        async let exchanged = client.exchangeMTU()
        // The request is on its way once the client sent it; the peripheral answers 247.
        let request = try await Self.nextPDU(at: kernel)
        #expect(request == [0x02, 100, 0x00])
        kernel.peerSends([0x03, 0xF7, 0x00])
        #expect(try await exchanged == 100)
    }

    @Test("a refused connection says why and closes the socket")
    func refused() async throws {
        let kernel = try FakeKernelL2CAPSyscalls(.init(pendingError: ECONNREFUSED))
        let error = await #expect(throws: LECentralError.self) { _ = try await Self.connect(kernel) }
        #expect(error?.description
            == "hci0: peripheral F0:4C:0A:00:00:31: the connection failed: the peripheral refused the connection (limited resources, security, or an address it does not accept) (ECONNREFUSED)")
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("connect() itself refused: no route from the controller")
    func noRoute() async throws {
        let kernel = try FakeKernelL2CAPSyscalls(.init(connectError: EHOSTUNREACH))
        let error = await #expect(throws: LECentralError.self) { _ = try await Self.connect(kernel) }
        #expect(error?.description.contains("no LE controller with this address to connect from") == true)
        #expect(error?.description.hasSuffix("(EHOSTUNREACH)") == true)
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("a controller that is down is reported as the transport's error, before any socket is opened")
    func controllerDown() async throws {
        let kernel = try FakeKernelL2CAPSyscalls()
        let down = HCITransportError(.deviceDown, "hci0: hci0 is down", cause: .controllerDown(device: 0))
        let error = await #expect(throws: LECentralError.self) {
            _ = try await Self.connect(kernel) { (_) throws(HCITransportError) -> BluetoothAddress in throw down }
        }
        #expect(error?.kind == .transport(down))
        #expect(kernel.log.bound.isEmpty && kernel.log.connected.isEmpty)
    }

    @Test("cancelling the waiting task ends the attempt and closes the socket")
    func cancelled() async throws {
        let kernel = try FakeKernelL2CAPSyscalls(.init(neverConnects: true))
        let attempt = Task { () async throws(LECentralError) -> KernelATTBearer in
            try await Self.connect(kernel, timeout: .seconds(3600))
        }
        attempt.cancel()
        let result = await attempt.result
        #expect(throws: LECentralError(context: "hci0: peripheral F0:4C:0A:00:00:31", kind: .cancelled)) { _ = try result.get() }
        #expect(kernel.log.closed.count == kernel.log.connected.count)
    }

    @Test("the deadline ends an attempt the kernel never completes")
    func deadline() async throws {
        let kernel = try FakeKernelL2CAPSyscalls(.init(neverConnects: true))
        // The wait is a real poll on a real descriptor, which no test clock can advance: the
        // deadline is short, and the assertion only needs it to have passed.
        let error = await #expect(throws: LECentralError.self) { _ = try await Self.connect(kernel, timeout: .milliseconds(20)) }
        #expect(error?.kind == .connectionTimeout(.milliseconds(20)))
        #expect(kernel.log.closed.count == 1)
    }

    /// The next PDU at the peripheral's end, waiting for it on a thread of its own: for the
    /// event (the descriptor readable), however long a busy machine takes to send it. The two
    /// minutes are a safety net that turns a hang into a failure, never a measure of speed.
    static func nextPDU(at kernel: FakeKernelL2CAPSyscalls) async throws -> [UInt8] {
        let peerEnd = kernel.peerEnd
        let readable = try await POSIXThread.run { () -> Bool in
            var descriptors = [pollfd(fd: peerEnd, events: Int16(POLLIN), revents: 0)]
            return Glibc.poll(&descriptors, 1, 120_000) > 0
        }
        try #require(readable, "no PDU reached the peripheral within two minutes (a hang?)")
        return kernel.peerReceives()
    }
}
#endif
