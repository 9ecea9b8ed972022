#if os(Linux)
import BeaconCore
import CBlueZ
import Glibc
import HCI
import HCITestKit
import Testing

@testable import HCILinux

@Suite("Kernel HCI sockets through the syscall seam", .timeLimit(.minutes(1)))
struct KernelHCISocketTransportTests {
    private func openError(
        device: UInt16 = 0, channel: KernelHCIChannel, _ script: FakeKernelHCISyscalls.Script
    ) async throws -> (HCITransportError, FakeKernelHCISyscalls) {
        let kernel = try FakeKernelHCISyscalls(script)
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await KernelHCISocketTransport.open(device: device, channel: channel, syscalls: kernel)
        }
        return (error, kernel)
    }

    // MARK: Opening

    @Test("a kernel without Bluetooth is named plainly, with the cause the ways out are chosen from")
    func noBluetoothInKernel() async throws {
        let (error, _) = try await openError(channel: .raw, .init(socketError: EAFNOSUPPORT))
        #expect(error.kind == .bluetoothUnsupported)
        #expect(error.message == "hci0: this kernel has no Bluetooth support (AF_BLUETOOTH: address family not supported)")
        #expect(error.cause == .kernelWithoutBluetooth)
    }

    @Test("a missing controller is named, and the socket is closed")
    func noSuchController() async throws {
        let (error, kernel) = try await openError(device: 3, channel: .raw, .init())
        #expect(
            error
                == HCITransportError(
                    .noSuchDevice, "hci3: no controller hci3", cause: .noSuchController(device: 3)))
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("a RAW channel on a powered-off controller says it is down")
    func rawDeviceDown() async throws {
        let (error, kernel) = try await openError(
            device: 1, channel: .raw, .init(devices: [.fake(index: 1, isUp: false)]))
        #expect(
            error
                == HCITransportError(
                    .deviceDown,
                    "hci1: hci1 is down", cause: .controllerDown(device: 1)))
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("the RAW filter passes every event and nothing else, in the kernel's layout")
    func rawFilterBytes() async throws {
        let kernel = try FakeKernelHCISyscalls()
        let transport = try await KernelHCISocketTransport.open(device: 0, channel: .raw, syscalls: kernel)
        #expect(kernel.log.binds.map(\.device) == [0])
        #expect(kernel.log.binds.map(\.channel) == [0])
        let option = try #require(kernel.log.socketOptions.first)
        #expect(option.level == SOL_HCI)
        #expect(option.option == HCI_FILTER)
        #if _endian(little)
        // type_mask = 1 << HCI_EVENT_PKT; event_mask[0..1] all ones; opcode 0; padding.
        #expect(option.value == [0x10, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
        #endif
        #expect(option.value.count == MemoryLayout<hci_filter>.size)
        await transport.close()
    }

    @Test("without CAP_NET_RAW the narrowed filter is caught at open, not as silence later")
    func filterNarrowedWithoutCapability() async throws {
        // The kernel's hci_sec_filter keeps these event bits for unprivileged sockets.
        let unprivileged: UInt64 = 0x0000_B00C_1000_D9FE
        let (error, kernel) = try await openError(
            channel: .raw, .init(eventCodesKeptWithoutCapability: unprivileged))
        #expect(
            error
                == HCITransportError(
                    .permissionDenied,
                    "hci0: the kernel filters LE events out for this process, which lacks the CAP_NET_RAW capability",
                    cause: .missingCapability))
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test(
        "each USER channel bind failure says what happened, with the cause advice is chosen from",
        arguments: [
            (
                EPERM,
                HCITransportError(
                    .permissionDenied, "hci-user:0: the user channel needs the CAP_NET_ADMIN capability", cause: .missingCapability)
            ),
            (
                EBUSY,
                HCITransportError(
                    .deviceBusy,
                    "hci-user:0: hci0 is up or being set up by the kernel, and the user channel needs it down and unused",
                    cause: .controllerUpForKernel(device: 0))
            ),
            (
                EUSERS,
                HCITransportError(
                    .deviceBusy, "hci-user:0: another program already holds the user channel of hci0",
                    cause: .userChannelHeld(device: 0))
            ),
            (
                EALREADY,
                HCITransportError(
                    .deviceBusy, "hci-user:0: another program already holds the user channel of hci0",
                    cause: .userChannelHeld(device: 0))
            ),
            (ERFKILL, HCITransportError(.deviceDown, "hci-user:0: hci0 is blocked by RF-kill", cause: .rfKilled(device: 0))),
            (ENODEV, HCITransportError(.noSuchDevice, "hci-user:0: no controller hci0", cause: .noSuchController(device: 0))),
        ])
    func userChannelBindFailures(code: Int32, expected: HCITransportError) async throws {
        let (error, kernel) = try await openError(channel: .user, .init(bindError: code))
        #expect(error == expected)
        #expect(kernel.log.binds.map(\.channel) == [1])
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("the USER channel takes a powered-off controller and installs no filter")
    func userChannelOpens() async throws {
        let kernel = try FakeKernelHCISyscalls(.init(devices: [.fake(index: 2, isUp: false)]))
        let transport = try await KernelHCISocketTransport.open(device: 2, channel: .user, syscalls: kernel)
        #expect(transport.name == "hci-user:2")
        #expect(kernel.log.socketOptions.isEmpty)
        await transport.close()
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    // MARK: Reading

    @Test("each read is one packet; a short one or an unknown indicator ends the stream")
    func readsArePackets() async throws {
        let report: [UInt8] = [0x04, 0x3E, 0x03, 0x02, 0x01, 0x00]
        let cases: [([UInt8], String)] = [
            (
                [0x04, 0x0E, 0x04, 0x01, 0x03],
                "hci0: bad packet from the kernel: received a malformed event packet: its header declares 4 payload bytes, the packet carries 2"
            ),
            (
                [0x04, 0x0E],
                "hci0: bad packet from the kernel: received a malformed event packet: it stops after 1 of its 2 header bytes"
            ),
            (
                [0xFF, 0x01, 0x02],
                "hci0: bad packet from the kernel: received a packet with unknown indicator 0xFF (expected 01 command, 02 ACL, 03 SCO, 04 event or 05 ISO)"
            ),
        ]
        for (bad, message) in cases {
            let kernel = try FakeKernelHCISyscalls()
            let transport = try await KernelHCISocketTransport.open(
                device: 0, channel: .raw, syscalls: kernel)
            kernel.deliver(report)
            kernel.deliver(bad)
            var received: [HCIPacket] = []
            let error = try await #require(throws: HCITransportError.self) {
                for try await packet in transport.incoming { received.append(packet) }
            }
            #expect(received == [HCIPacket(type: .event, body: Array(report.dropFirst()))])
            #expect(error == HCITransportError(.framing, message))
            #expect(kernel.log.closed == [kernel.socketEnd])
        }
    }

    @Test("interrupted polls and reads are retried without losing packets")
    func interruptedReads() async throws {
        let kernel = try FakeKernelHCISyscalls()
        let transport = try await KernelHCISocketTransport.open(device: 0, channel: .raw, syscalls: kernel)
        kernel.script { $0.pendingReadErrors = [EINTR, EAGAIN] }
        kernel.deliver([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        var iterator = transport.incoming.makeAsyncIterator()
        #expect(
            try await iterator.next() == HCIPacket(type: .event, body: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]))
        kernel.script { $0.pendingPollErrors = [EINTR] }
        kernel.deliver([0x04, 0x0F, 0x04, 0x00, 0x01, 0x06, 0x20])
        #expect(
            try await iterator.next() == HCIPacket(type: .event, body: [0x0F, 0x04, 0x00, 0x01, 0x06, 0x20]))
        await transport.close()
    }

    @Test("a controller that goes away ends the stream saying so")
    func controllerRemoved() async throws {
        let kernel = try FakeKernelHCISyscalls()
        let transport = try await KernelHCISocketTransport.open(device: 0, channel: .raw, syscalls: kernel)
        // The kernel reports EPIPE on the socket once the device is unregistered.
        kernel.script { $0.pendingReadErrors = [EPIPE] }
        kernel.deliver([0x04, 0x10, 0x01, 0x00])
        let error = try await #require(throws: HCITransportError.self) {
            for try await _ in transport.incoming {}
        }
        #expect(
            error
                == HCITransportError(
                    .ioFailure, "hci0: hci0 went away (unplugged, or its driver reset)", cause: .controllerRemoved(device: 0)))
    }

    // MARK: Writing

    @Test("a packet goes out as one write, indicator first")
    func sendWritesOnePacket() async throws {
        let kernel = try FakeKernelHCISyscalls()
        let transport = try await KernelHCISocketTransport.open(device: 0, channel: .raw, syscalls: kernel)
        kernel.script { $0.pendingWriteErrors = [EINTR, EAGAIN] }
        try await transport.send(HCIPacket(type: .command, body: [0x0C, 0x20, 0x02, 0x01, 0x00]))
        #expect(try await kernel.nextSent() == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        await transport.close()
    }

    @Test(
        "each send failure says what happened, with the cause advice is chosen from",
        arguments: [
            (ENETDOWN, HCITransportError(.deviceDown, "hci0: hci0 is down", cause: .controllerDown(device: 0))),
            (
                EPERM,
                HCITransportError(
                    .permissionDenied,
                    "hci0: the kernel refused the command: LE and vendor commands on the RAW channel need the "
                        + "CAP_NET_RAW capability", cause: .missingCapability)
            ),
            (
                EINVAL,
                HCITransportError(
                    .framing,
                    "hci0: the kernel refused the packet as invalid (shorter than 4 bytes, larger than the socket's "
                        + "MTU, or of a type this channel does not carry)")
            ),
            (
                ENODEV,
                HCITransportError(
                    .ioFailure, "hci0: hci0 went away (unplugged, or its driver reset)", cause: .controllerRemoved(device: 0))
            ),
            (
                ENOBUFS,
                HCITransportError(.ioFailure, "hci0: sending to the controller failed: write: No buffer space available (errno 105)")
            ),
        ])
    func sendFailures(code: Int32, expected: HCITransportError) async throws {
        let kernel = try FakeKernelHCISyscalls()
        let transport = try await KernelHCISocketTransport.open(device: 0, channel: .raw, syscalls: kernel)
        kernel.script { $0.pendingWriteErrors = [code] }
        let error = try await #require(throws: HCITransportError.self) {
            try await transport.send(HCIPacket(type: .command, body: [0x0C, 0x20, 0x02, 0x01, 0x00]))
        }
        #expect(error == expected)
        await transport.close()
    }

    @Test("close() wakes the reader, closes the socket once and ends the stream cleanly")
    func closeClosesOnce() async throws {
        let kernel = try FakeKernelHCISyscalls()
        let transport = try await KernelHCISocketTransport.open(device: 0, channel: .raw, syscalls: kernel)
        let listener = Task { () throws -> Int in
            var count = 0
            for try await _ in transport.incoming { count += 1 }
            return count
        }
        // The event that matters: the reader thread has reached its poll (close() must wake
        // it there; a close() in the instant before the poll call is seen by the poll too).
        try await kernel.polls.wait(for: "the reader polling") { $0 >= 1 }
        await transport.close()
        await transport.close()
        #expect(try await listener.value == 0)
        #expect(kernel.log.closed == [kernel.socketEnd])
        let error = try await #require(throws: HCITransportError.self) {
            try await transport.send(HCIPacket(type: .command, body: [0x03, 0x0C, 0x00]))
        }
        #expect(error == HCITransportError(.closed, "hci0: the transport is closed"))
    }
}
#endif
