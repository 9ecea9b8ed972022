import HCI
import HCITransports

/// Whether this program has the controller to itself, which decides what it may do to it.
///
/// On the kernel's RAW channel (`hci0`, `hci-socket:0`) the kernel and bluetoothd own the
/// controller and keep sending their own commands: beaconctl must not Reset it nor rewrite
/// its event masks, and must only remove what it created. Every other transport (the USER
/// channel, TCP, serial, the virtual radio) is exclusive: beaconctl starts from a Reset.
public enum ControllerAccess: Hashable, Sendable {
    /// Shared with the kernel and bluetoothd through the RAW channel of `hci<index>`.
    case sharedWithKernel(index: UInt16)
    /// This program's alone.
    case exclusive

    public init(_ spec: HCITransportSpec) {
        switch spec {
        case .kernelSocket(let device): self = .sharedWithKernel(index: device)
        case .kernelUserChannel, .tcpClient, .serial, .virtual: self = .exclusive
        }
    }

    public var isExclusive: Bool { self == .exclusive }
}
