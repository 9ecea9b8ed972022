#if os(Linux)
import Glibc
import HCI
import HCITransports
import Synchronization

/// Asks the kernel's management interface (BlueZ doc/mgmt-api.txt) which advertising
/// instances and settings hold advertising sets on controller `hciN`, so that a program on
/// the shared RAW channel can keep its own sets clear of them.
///
/// The management socket is an HCI socket bound to HCI_CHANNEL_CONTROL with no device
/// (doc/mgmt-api.txt, "Example"). Read Controller Information answers any socket; Read
/// Advertising Features only a trusted one, which takes CAP_NET_ADMIN.
public enum KernelManagementSocket {
    /// `hci_channel` of the management interface (BlueZ lib/hci.h HCI_CHANNEL_CONTROL).
    static let controlChannel: UInt16 = 3
    /// `hci_dev` for "no controller" (HCI_DEV_NONE): mgmt names the controller per command.
    static let noDevice: UInt16 = 0xFFFF
    /// Enough for any answer read here; longer unrelated events are cut, which is harmless.
    static let bufferSize = 4096

    /// How long one wait in poll lasts at most, so that a cancellation is seen soon.
    static let pollSlice: Int32 = 100

    /// Reads the advertising instances of controller `index`; every wait ends by `timeout`,
    /// or soon after the calling task is cancelled.
    public static func readAdvertisingInstances(
        index: UInt16, timeout: Duration, syscalls: any KernelHCISyscalls = LinuxKernelHCISyscalls()
    ) async throws(HCITransportError) -> KernelAdvertisingInstances {
        let name = HCITransportSpec.kernelSocket(device: index).description
        let cancelled = CancellationFlag()
        let outcome: Result<KernelAdvertisingInstances, HCITransportError>
        do {
            // Blocking socket calls stay off Swift's cooperative threads.
            outcome = try await withTaskCancellationHandler {
                try await POSIXThread.run {
                    exchange(
                        index: index, name: name, deadline: ContinuousClock.now + timeout, cancelled: cancelled,
                        syscalls: syscalls)
                }
            } onCancel: {
                cancelled.set()
            }
        } catch {
            throw HCITransportError(.ioFailure, "\(name): cannot start reading the kernel's advertising instances: \(error)")
        }
        return try outcome.get()
    }

    private static func exchange(
        index: UInt16, name: String, deadline: ContinuousClock.Instant, cancelled: CancellationFlag,
        syscalls: any KernelHCISyscalls
    ) -> Result<KernelAdvertisingInstances, HCITransportError> {
        let socket: Int32
        do {
            socket = try syscalls.openHCISocket()
        } catch {
            return .failure(KernelHCIFailures(device: index, channel: .raw).socketFailed(error))
        }
        defer { syscalls.close(socket) }
        do throws(HCITransportError) {
            do {
                try syscalls.bind(socket, device: noDevice, channel: controlChannel)
            } catch {
                throw HCITransportError(
                    .ioFailure, "\(name): cannot open the kernel's Bluetooth management interface: \(error)")
            }
            let information = try ask(
                KernelManagementMessage.readControllerInformation, "Read Controller Information", index: index,
                name: name, socket: socket, deadline: deadline, cancelled: cancelled, syscalls: syscalls)
            let features = try ask(
                KernelManagementMessage.readAdvertisingFeatures, "Read Advertising Features", index: index,
                name: name, socket: socket, deadline: deadline, cancelled: cancelled, syscalls: syscalls)
            guard let advertisingOn = KernelManagementMessage.advertisingSetting(inControllerInformation: information),
                let listed = KernelManagementMessage.instances(inAdvertisingFeatures: features)
            else {
                throw HCITransportError(
                    .framing, "\(name): the kernel's management interface answered with too few bytes")
            }
            return .success(
                KernelAdvertisingInstances(
                    instances: listed.instances, maximumInstances: listed.maximum, advertisingSettingOn: advertisingOn))
        } catch {
            return .failure(error)
        }
    }

    /// Sends command `code` and returns the parameters of its successful answer.
    private static func ask(
        _ code: UInt16, _ commandName: String, index: UInt16, name: String, socket: Int32,
        deadline: ContinuousClock.Instant, cancelled: CancellationFlag, syscalls: any KernelHCISyscalls
    ) throws(HCITransportError) -> [UInt8] {
        let command = KernelManagementMessage.command(code, index: index)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: command)
        do {
            _ = try syscalls.write(socket, from: UnsafeRawBufferPointer(rebasing: buffer[..<command.count]))
        } catch {
            throw HCITransportError(.ioFailure, "\(name): cannot send \(commandName) to the kernel's management interface: \(error)")
        }
        while true {
            if cancelled.isSet {
                throw HCITransportError(.closed, "\(name): reading the kernel's advertising instances was cancelled")
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                throw HCITransportError(
                    .ioFailure, "\(name): the kernel's management interface did not answer \(commandName) in time")
            }
            let components = remaining.components
            let milliseconds = min(
                pollSlice, Int32(clamping: min(components.seconds, 3600) * 1000 + components.attoseconds / 1_000_000_000_000_000 + 1))
            var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
            let count: Int
            do {
                guard try syscalls.poll(&descriptors, timeoutMilliseconds: milliseconds) > 0 else { continue }
                count = try syscalls.read(socket, into: buffer)
            } catch {
                if error.code == EAGAIN || error.code == EINTR { continue }
                throw HCITransportError(.ioFailure, "\(name): cannot read the kernel's management interface: \(error)")
            }
            let packet = Array(buffer[..<max(0, min(count, buffer.count))])
            switch KernelManagementMessage.reply(packet, to: code, index: index) {
            case .unrelated, .malformed:
                continue
            case .answer(let status, let parameters):
                if status == 0 { return parameters }
                throw refusal(status, commandName, index: index, name: name)
            }
        }
    }

    private static func refusal(_ status: UInt8, _ commandName: String, index: UInt16, name: String) -> HCITransportError {
        let refused = "\(name): the kernel's management interface refused \(commandName) (\(KernelManagementMessage.statusName(status)))"
        if status == KernelManagementMessage.permissionDenied {
            return HCITransportError(
                .permissionDenied,
                "\(refused): beaconctl needs the CAP_NET_ADMIN capability to see which advertising sets bluetoothd "
                    + "holds on hci\(index)",
                cause: .missingCapability)
        }
        return HCITransportError(.ioFailure, refused, cause: .managementRefused(device: index))
    }
}

/// Set by the calling task's cancellation, read by the thread doing the blocking calls.
final class CancellationFlag: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    func set() {
        state.withLock { $0 = true }
    }
}
#endif
