import BeaconCore
import BeaconFleet
import HCI
import HCITransports
import LECentral

#if os(Linux)
import HCILinux
import LECentralLinux
#endif

/// The controllers of the machine beaconctl runs on, wired for the use cases: kernel
/// sockets (RAW and USER channels), TCP, serial and the built-in virtual radio
/// (`ControllerTransports`), the kernel's controller list and management interface, and the
/// kernel's L2CAP sockets for connections on a controller shared with bluetoothd.
public struct SystemPlatform: ControllerPlatform {
    public init() {}

    public func openTransport(_ spec: HCITransportSpec) async throws(HCITransportError) -> any HCITransport {
        try await ControllerTransports.open(spec)
    }

    public func kernelControllers() throws(HCITransportError) -> [KernelController] {
        #if os(Linux)
        try KernelHCIControllers.list().map { controller in
            KernelController(
                index: controller.info.index, name: controller.name, address: controller.address, isUp: controller.isUp,
                bus: controller.bus)
        }
        #else
        throw HCITransportError(.bluetoothUnsupported, "kernel controllers: the kernel's HCI sockets exist on Linux only")
        #endif
    }

    public func occupiedAdvertisingSets(index: UInt16, timeout: Duration) async throws(HCITransportError) -> OccupiedAdvertisingSets {
        try await KernelOccupiedAdvertisingSets.read(index: index, timeout: timeout)
    }

    public func connectThroughKernel(
        controller: UInt16, to address: BluetoothAddress, type: PeerAddressType, timeout: Duration
    ) async throws(LECentralError) -> KernelATTLink {
        #if os(Linux)
        let bearer = try await KernelATTConnector.connect(controller: controller, to: address, type: type, timeout: timeout)
        return KernelATTLink(bearer: bearer, hasEnded: { bearer.hasEnded }, close: { bearer.close() })
        #else
        throw LECentralError(
            context: "hci\(controller): peripheral \(address)",
            kind: .invalidRequest("connections through the kernel's L2CAP sockets exist on Linux only"))
        #endif
    }
}

extension ControllerPlatform where Self == SystemPlatform {
    /// This machine's controllers (`SystemPlatform`).
    public static var system: SystemPlatform { SystemPlatform() }
}
