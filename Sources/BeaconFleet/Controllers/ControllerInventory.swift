import HCI
import HCITransports
import Logging

/// The controllers the kernel lists, or why there are none to list.
public enum KernelControllerListing: Hashable, Sendable {
    case listed([KernelController])
    /// The kernel has no Bluetooth at all (`AF_BLUETOOTH` is missing): not a failure, the
    /// other transports still work.
    case noKernelBluetooth
}

/// A controller `controllers --hci SPEC` could not be opened or inspected on.
public enum ControllerInspectionError: Error, Sendable {
    case open(HCITransportError)
    case inspect(HCIError)

    /// What happened, with what to do (`ControllerAdvice`).
    public var advisedMessage: String {
        switch self {
        case .open(let error): return error.advisedMessage
        case .inspect(let error): return error.advisedMessage
        }
    }
}

/// The use case of `beaconctl controllers`: what controllers there are, and what one of
/// them can do.
public enum ControllerInventory {
    /// The kernel's controllers (`hci0`, `hci1`, …), by index.
    public static func kernelControllers(on platform: any ControllerPlatform) throws(HCITransportError) -> KernelControllerListing {
        do {
            return .listed(try platform.kernelControllers())
        } catch where error.kind == .bluetoothUnsupported {
            return .noKernelBluetooth
        }
    }

    /// Opens the controller `connection` reaches, reads what it is and can do
    /// (`ControllerInspector`), and closes it again whatever the inspection gave.
    public static func inspect(_ connection: ControllerConnection, logger: Logger) async throws(ControllerInspectionError) -> ControllerReport {
        let host: HostController
        do {
            host = try await connection.openHost()
        } catch {
            throw .open(error)
        }
        let report: ControllerReport
        do {
            report = try await ControllerInspector.inspect(host, access: ControllerAccess(connection.spec), logger: logger)
        } catch {
            await host.close()
            throw .inspect(error)
        }
        await host.close()
        return report
    }
}
