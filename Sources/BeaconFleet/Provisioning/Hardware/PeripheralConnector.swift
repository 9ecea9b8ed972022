import BeaconCore
import HCI
import LECentral

/// One beacon connected for its profile: its GATT client and how to hang up.
struct PeripheralLink: Sendable {
    let peer: BluetoothAddress
    let gatt: GATTClient
    /// Whether the link is still up (a link made ahead may have dropped while it waited).
    let isUp: @Sendable () -> Bool
    /// Ends the link; errors are not actionable then (the beacon's result is decided).
    let disconnect: @Sendable () async -> Void
}

/// How `provision --hardware` reaches beacons from its controller. On a controller beaconctl
/// has to itself (`hci-user:N`, `tcp-client:`, `serial:`, `virtual`) its own `Central` makes
/// the connections with HCI commands; on `hciN`, which the kernel owns beside bluetoothd, the
/// kernel makes them for an L2CAP socket on the ATT channel (the platform's
/// `connectThroughKernel`), and no connection command is sent on the shared RAW channel.
enum PeripheralConnector: Sendable {
    case hostStack(Central)
    case kernel(controller: UInt16, platform: any ControllerPlatform, clock: any Clock<Duration>)

    /// The connector for `access`; the host stack's central is started here.
    static func prepare(
        access: ControllerAccess, host: HostController, platform: any ControllerPlatform, clock: any Clock<Duration>
    ) async throws(LECentralError) -> PeripheralConnector {
        switch access {
        case .sharedWithKernel(let index):
            return .kernel(controller: index, platform: platform, clock: clock)
        case .exclusive:
            let central = Central(host: host, clock: clock)
            try await central.start()
            return .hostStack(central)
        }
    }

    func connect(to address: BluetoothAddress, type: PeerAddressType, timeout: Duration) async throws(LECentralError) -> PeripheralLink {
        switch self {
        case .hostStack(let central):
            let connection = try await central.connect(to: address, type: type, timeout: timeout)
            return PeripheralLink(
                peer: connection.peer, gatt: connection.gatt, isUp: { connection.disconnectionReason == nil },
                disconnect: { _ = try? await connection.disconnect() })
        case .kernel(let controller, let platform, let clock):
            let link = try await platform.connectThroughKernel(controller: controller, to: address, type: type, timeout: timeout)
            let gatt = GATTClient(att: ATTClient(bearer: link.bearer, clock: clock))
            return PeripheralLink(peer: address, gatt: gatt, isUp: { !link.hasEnded() }, disconnect: { link.close() })
        }
    }
}
