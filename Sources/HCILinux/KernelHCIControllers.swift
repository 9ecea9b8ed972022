#if os(Linux)
import Glibc
import HCI
import HCITransports

/// A controller the kernel knows, as `beaconctl controllers` shows it.
public struct KernelHCIController: Hashable, Sendable {
    public var info: KernelHCIDeviceInfo

    /// The spec that opens it through the RAW channel, e.g. `hci0`.
    public var transportSpec: HCITransportSpec { .kernelSocket(device: info.index) }
    public var name: String { info.name }
    /// Most significant byte first, e.g. "00:1A:7D:DA:71:13".
    public var address: String { info.address }
    public var isUp: Bool { info.isUp }
    public var bus: String { info.bus }
}

/// Lists the kernel's controllers (`HCIGETDEVLIST`, then `HCIGETDEVINFO` for each), by index.
public enum KernelHCIControllers {
    public static func list(
        syscalls: any KernelHCISyscalls = LinuxKernelHCISyscalls()
    ) throws(HCITransportError) -> [KernelHCIController] {
        let prefix = "kernel controllers"
        let socket: Int32
        do {
            socket = try syscalls.openHCISocket()
        } catch {
            if error.code == EAFNOSUPPORT { throw KernelHCIFailures.noBluetoothSupport(prefix) }
            throw HCITransportError(.ioFailure, "\(prefix): cannot open a Bluetooth socket: \(error)")
        }
        defer { syscalls.close(socket) }
        let indices: [UInt16]
        do {
            indices = try syscalls.deviceList(socket)
        } catch {
            throw HCITransportError(.ioFailure, "\(prefix): cannot list controllers: \(error)")
        }
        var controllers: [KernelHCIController] = []
        // The kernel lists the newest controller first; people expect hci0, hci1, ….
        for index in indices.sorted() {
            do {
                controllers.append(KernelHCIController(info: try syscalls.deviceInfo(socket, device: index)))
            } catch where error.code == ENODEV {
                // Unplugged between the two calls: it is simply not there any more.
                continue
            } catch {
                throw HCITransportError(
                    .ioFailure, "\(prefix): cannot read the state of hci\(index): \(error)")
            }
        }
        return controllers
    }

    /// The state of `hciN` when it is up, for a caller that uses the controller through the
    /// kernel (an L2CAP socket needs its address); otherwise the error that says it is
    /// missing or down, as opening `hciN` would.
    public static func upController(
        _ device: UInt16, syscalls: any KernelHCISyscalls = LinuxKernelHCISyscalls()
    ) throws(HCITransportError) -> KernelHCIDeviceInfo {
        let failures = KernelHCIFailures(device: device, channel: .raw)
        let socket: Int32
        do {
            socket = try syscalls.openHCISocket()
        } catch {
            throw failures.socketFailed(error)
        }
        defer { syscalls.close(socket) }
        return try upState(socket, device: device, syscalls: syscalls, failures: failures)
    }

    /// The state of `device` read on an open HCI `socket`, when the device is up; the
    /// failure that says it is down otherwise. Opening the RAW channel asks the same.
    static func upState(
        _ socket: Int32, device: UInt16, syscalls: any KernelHCISyscalls, failures: KernelHCIFailures
    ) throws(HCITransportError) -> KernelHCIDeviceInfo {
        let info: KernelHCIDeviceInfo
        do {
            info = try syscalls.deviceInfo(socket, device: device)
        } catch {
            throw failures.setupFailed("read the state", error)
        }
        guard info.isUp else { throw failures.deviceDown() }
        return info
    }
}
#endif
