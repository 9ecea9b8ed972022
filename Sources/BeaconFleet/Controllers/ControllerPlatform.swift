import BeaconCore
import HCI
import HCITransports
import LECentral

/// What the use cases need of the concrete transports beneath them, handed in as a value
/// (as NIOCore's code takes an event loop group and NIOPosix makes one): opening the
/// controller a transport spec names, what the kernel says about its own controllers, and a
/// connection the kernel makes. The `BeaconPlatform` module provides the real one (kernel
/// sockets, TCP, serial, the virtual radio); the command line and the benchmarks hand it
/// down, and tests may pass their own.
public protocol ControllerPlatform: Sendable {
    /// Opens the controller `spec` names.
    func openTransport(_ spec: HCITransportSpec) async throws(HCITransportError) -> any HCITransport

    /// The controllers the kernel knows, by index; `bluetoothUnsupported` when the kernel
    /// has no Bluetooth at all.
    func kernelControllers() throws(HCITransportError) -> [KernelController]

    /// The advertising sets bluetoothd holds on the kernel's controller `hci<index>`, from
    /// the kernel's management interface.
    func occupiedAdvertisingSets(index: UInt16, timeout: Duration) async throws(HCITransportError) -> OccupiedAdvertisingSets

    /// An ATT bearer to `address` on a link the kernel makes from `hci<controller>` (an
    /// L2CAP socket on the ATT channel), for a controller shared with bluetoothd.
    func connectThroughKernel(
        controller: UInt16, to address: BluetoothAddress, type: PeerAddressType, timeout: Duration
    ) async throws(LECentralError) -> KernelATTLink
}

/// A controller the kernel knows, as `beaconctl controllers` lists it.
public struct KernelController: Hashable, Sendable {
    public var index: UInt16
    public var name: String
    /// Most significant byte first, e.g. "00:1A:7D:DA:71:13".
    public var address: String
    public var isUp: Bool
    public var bus: String

    public init(index: UInt16, name: String, address: String, isUp: Bool, bus: String) {
        self.index = index
        self.name = name
        self.address = address
        self.isUp = isUp
        self.bus = bus
    }

    /// The spec that opens it through the RAW channel, e.g. `hci0`.
    public var transportSpec: HCITransportSpec { .kernelSocket(device: index) }
}

/// An ATT bearer on a link the kernel made: the PDUs, whether the link has ended, and how
/// to close it.
public struct KernelATTLink: Sendable {
    public let bearer: any ATTBearer
    public let hasEnded: @Sendable () -> Bool
    public let close: @Sendable () -> Void

    public init(bearer: any ATTBearer, hasEnded: @escaping @Sendable () -> Bool, close: @escaping @Sendable () -> Void) {
        self.bearer = bearer
        self.hasEnded = hasEnded
        self.close = close
    }
}
