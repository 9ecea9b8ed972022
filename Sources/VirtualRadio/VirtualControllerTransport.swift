import BeaconCore
import HCI

/// The host's end of a virtual controller: an ``HCITransport`` whose other end is a
/// simulated controller on a ``VirtualAir``. Hand it to `HostController` like any transport.
///
/// `send` hands the packet to the controller, which answers before `send` returns (the
/// answer is then waiting in `incoming`). Closing takes the controller off the air.
public final class VirtualControllerTransport: HCITransport {
    public let name: String
    public let incoming: AsyncThrowingStream<HCIPacket, any Error>
    public let air: VirtualAir
    public let controller: VirtualControllerID
    /// The controller's public address (what Read BD_ADDR returns).
    public let address: BluetoothAddress

    init(
        name: String, incoming: AsyncThrowingStream<HCIPacket, any Error>, air: VirtualAir,
        controller: VirtualControllerID, address: BluetoothAddress
    ) {
        self.name = name
        self.incoming = incoming
        self.air = air
        self.controller = controller
        self.address = address
    }

    deinit {
        air.detach(controller)
    }

    public func send(_ packet: HCIPacket) async throws(HCITransportError) {
        guard air.isAttached(controller) else {
            throw HCITransportError(.closed, "\(name): the virtual controller was closed or its air shut down")
        }
        air.receive(packet, from: controller)
    }

    /// Takes the controller off the air; `incoming` finishes. Idempotent.
    public func close() async {
        air.detach(controller)
    }

    /// Moves the controller (a walk starts now).
    public func setMotion(_ motion: Motion) {
        air.setMotion(motion, of: controller)
    }
}
