#if os(Linux)
import BeaconCore
import Glibc
import HCI
import HCITransports

/// Words kernel HCI socket failures as what happened, with the `cause` a front end turns
/// into what to do (BeaconFleet's `ControllerAdvice`). The errnos and where they arise follow
/// the kernel's net/bluetooth/hci_sock.c and hci_core.c.
struct KernelHCIFailures {
    let device: UInt16
    let channel: KernelHCIChannel

    /// The transport spec the user wrote, for the start of every message.
    var name: String {
        switch channel {
        case .raw: HCITransportSpec.kernelSocket(device: device).description
        case .user: HCITransportSpec.kernelUserChannel(device: device).description
        }
    }

    private var controller: String { "hci\(device)" }

    /// What the kernel says when it was built or booted without Bluetooth (EAFNOSUPPORT).
    static func noBluetoothSupport(_ prefix: String) -> HCITransportError {
        HCITransportError(
            .bluetoothUnsupported,
            "\(prefix): this kernel has no Bluetooth support (AF_BLUETOOTH: address family not "
                + "supported)",
            cause: .kernelWithoutBluetooth)
    }

    func socketFailed(_ error: POSIXCallError) -> HCITransportError {
        switch error.code {
        case EAFNOSUPPORT:
            return Self.noBluetoothSupport(name)
        case EPERM, EACCES:
            return HCITransportError(
                .permissionDenied,
                "\(name): not allowed to open a Bluetooth socket (\(error.reason)); a sandbox or "
                    + "security policy forbids AF_BLUETOOTH for this process")
        default:
            return HCITransportError(.ioFailure, "\(name): cannot open a Bluetooth socket: \(error)")
        }
    }

    func bindFailed(_ error: POSIXCallError) -> HCITransportError {
        switch error.code {
        case ENODEV:
            return noSuchController()
        case EPERM, EACCES:
            return HCITransportError(
                .permissionDenied,
                "\(name): the user channel needs the CAP_NET_ADMIN capability", cause: .missingCapability)
        case EBUSY:
            return HCITransportError(
                .deviceBusy,
                "\(name): \(controller) is up or being set up by the kernel, and the user channel "
                    + "needs it down and unused",
                cause: .controllerUpForKernel(device: device))
        case EUSERS, EALREADY:
            return HCITransportError(
                .deviceBusy,
                "\(name): another program already holds the user channel of \(controller)",
                cause: .userChannelHeld(device: device))
        case ERFKILL:
            return rfKilled()
        default:
            return HCITransportError(.ioFailure, "\(name): cannot bind to \(controller): \(error)")
        }
    }

    func noSuchController() -> HCITransportError {
        HCITransportError(
            .noSuchDevice, "\(name): no controller \(controller)", cause: .noSuchController(device: device))
    }

    func deviceDown() -> HCITransportError {
        HCITransportError(
            .deviceDown,
            "\(name): \(controller) is down", cause: .controllerDown(device: device))
    }

    func rfKilled() -> HCITransportError {
        HCITransportError(
            .deviceDown,
            "\(name): \(controller) is blocked by RF-kill", cause: .rfKilled(device: device))
    }

    func setupFailed(_ step: String, _ error: POSIXCallError) -> HCITransportError {
        if error.code == ENODEV { return noSuchController() }
        return HCITransportError(.ioFailure, "\(name): cannot \(step) on \(controller): \(error)")
    }

    /// Without CAP_NET_RAW the kernel silently narrows a RAW socket's filter to a few
    /// classic events (hci_sock.c, `hci_sec_filter`): LE Meta events would never arrive.
    func leEventsFilteredOut() -> HCITransportError {
        HCITransportError(
            .permissionDenied,
            "\(name): the kernel filters LE events out for this process, which lacks the "
                + "CAP_NET_RAW capability",
            cause: .missingCapability)
    }

    func explain(_ failure: LinkFailure) -> HCITransportError {
        switch failure {
        case .writeFailed(let error) where error.code == ENETDOWN:
            return deviceDown()
        case .writeFailed(let error) where error.code == EPERM || error.code == EACCES:
            return HCITransportError(
                .permissionDenied,
                "\(name): the kernel refused the command: LE and vendor commands on the RAW "
                    + "channel need the CAP_NET_RAW capability",
                cause: .missingCapability)
        case .writeFailed(let error) where error.code == EINVAL:
            return HCITransportError(
                .framing,
                "\(name): the kernel refused the packet as invalid (shorter than 4 bytes, larger "
                    + "than the socket's MTU, or of a type this channel does not carry)")
        case .readFailed(let error) where [EPIPE, ENODEV, EBADFD].contains(error.code),
            .writeFailed(let error) where [EPIPE, ENODEV, EBADFD].contains(error.code):
            return removed()
        case .endOfStream:
            return removed()
        case .framing(let error):
            return HCITransportError(.framing, "\(name): bad packet from the kernel: \(error.message)")
        default:
            return PacketLinkConfiguration.genericExplanation(of: failure, name: name)
        }
    }

    private func removed() -> HCITransportError {
        HCITransportError(
            .ioFailure,
            "\(name): \(controller) went away (unplugged, or its driver reset)",
            cause: .controllerRemoved(device: device))
    }
}
#endif
