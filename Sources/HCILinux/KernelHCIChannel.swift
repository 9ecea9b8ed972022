/// The HCI socket channels beaconctl binds (`hci_channel` of `sockaddr_hci`).
public enum KernelHCIChannel: UInt16, Sendable {
    /// Shares the controller with the kernel and bluetoothd; the device must be up. LE and
    /// vendor commands need CAP_NET_RAW.
    case raw = 0
    /// Takes the controller for this process alone, bypassing the kernel's own stack; the
    /// device must be down and unused, and binding needs CAP_NET_ADMIN.
    case user = 1
}
