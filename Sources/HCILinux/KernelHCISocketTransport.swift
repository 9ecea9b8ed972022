#if os(Linux)
import CBlueZ
import Glibc
import HCI
import HCITransports

/// Linux kernel HCI sockets: `hci0` / `hci-socket:0` (RAW channel) and `hci-user:0`
/// (USER channel). Each read from such a socket is one whole packet with its indicator.
///
/// On the RAW channel the kernel and bluetoothd keep using the controller: this socket
/// also sees the Command Complete events of their commands, so the host must match
/// answers by opcode. On the USER channel the controller is this process's alone; the
/// kernel brings it up for us but sends nothing, so the host should start with HCI_Reset.
public enum KernelHCISocketTransport {
    public static func open(
        device: UInt16, channel: KernelHCIChannel,
        syscalls: any KernelHCISyscalls = LinuxKernelHCISyscalls()
    ) async throws(HCITransportError) -> any HCITransport {
        let failures = KernelHCIFailures(device: device, channel: channel)
        // Binding the USER channel opens the device, which may run the driver's whole
        // setup: keep that wait off Swift's cooperative threads.
        let opened: Result<Int32, HCITransportError>
        do {
            opened = try await POSIXThread.run {
                openBoundSocket(device: device, channel: channel, syscalls: syscalls, failures: failures)
            }
        } catch {
            throw HCITransportError(.ioFailure, "\(failures.name): cannot start opening the socket: \(error)")
        }
        let socket = try opened.get()
        let configuration = PacketLinkConfiguration(name: failures.name, framing: .onePacketPerRead) {
            failure in
            failures.explain(failure)
        }
        return try POSIXPacketTransport.start(
            descriptor: socket, io: KernelHCIDescriptorIO(syscalls: syscalls), configuration: configuration)
    }

    private static func openBoundSocket(
        device: UInt16, channel: KernelHCIChannel, syscalls: any KernelHCISyscalls, failures: KernelHCIFailures
    ) -> Result<Int32, HCITransportError> {
        let socket: Int32
        do {
            socket = try syscalls.openHCISocket()
        } catch {
            return .failure(failures.socketFailed(error))
        }
        do throws(HCITransportError) {
            do {
                try syscalls.bind(socket, device: device, channel: channel.rawValue)
            } catch {
                throw failures.bindFailed(error)
            }
            if channel == .raw {
                try prepareRawChannel(socket, device: device, syscalls: syscalls, failures: failures)
            }
            return .success(socket)
        } catch {
            syscalls.close(socket)
            return .failure(error)
        }
    }

    /// The RAW channel needs the device up (sends fail with ENETDOWN otherwise) and a
    /// filter, since a fresh RAW socket receives nothing.
    private static func prepareRawChannel(
        _ socket: Int32, device: UInt16, syscalls: any KernelHCISyscalls, failures: KernelHCIFailures
    ) throws(HCITransportError) {
        _ = try KernelHCIControllers.upState(socket, device: device, syscalls: syscalls, failures: failures)

        let wanted = KernelHCIFilter.allEvents
        let applied: [UInt8]
        do {
            try syscalls.setSocketOption(
                socket, level: SOL_HCI, option: HCI_FILTER, value: wanted.socketOptionBytes)
            // The kernel narrows the filter without an error when CAP_NET_RAW is missing:
            // read back what it kept.
            applied = try syscalls.socketOption(
                socket, level: SOL_HCI, option: HCI_FILTER, length: wanted.socketOptionBytes.count)
        } catch {
            throw failures.setupFailed("set the event filter", error)
        }
        guard let kept = KernelHCIFilter(socketOptionBytes: applied),
            kept.passes(.event), kept.passes(eventCode: KernelHCIFilter.leMetaEventCode)
        else { throw failures.leEventsFilteredOut() }
    }
}
#endif
