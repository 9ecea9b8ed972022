import BeaconCore
import HCI
import HCITransports
import VirtualBeacons
import VirtualRadio

#if os(Linux)
import HCILinux
#endif

/// Opens the controller a transport spec names: every concrete transport, chosen by its
/// spec (`SystemPlatform.openTransport`).
public enum ControllerTransports {
    public static func open(_ spec: HCITransportSpec) async throws(HCITransportError) -> any HCITransport {
        #if os(Linux)
        switch spec {
        case .kernelSocket(let device):
            return try await KernelHCISocketTransport.open(device: device, channel: .raw)
        case .kernelUserChannel(let device):
            return try await KernelHCISocketTransport.open(device: device, channel: .user)
        case .tcpClient(let host, let port):
            return try await TCPClientTransport.connect(host: host, port: port)
        case .serial(let path, let baudRate, let hardwareFlowControl):
            return try await SerialTransport.open(
                path: path, baudRate: baudRate, hardwareFlowControl: hardwareFlowControl)
        case .virtual(let scenario):
            return try await openVirtualRadio(scenario: scenario, spec: spec)
        }
        #else
        if case .virtual(let scenario) = spec {
            return try await openVirtualRadio(scenario: scenario, spec: spec)
        }
        throw HCITransportError(
            .unsupported, "\(spec): kernel, TCP and serial transports are only built on Linux")
        #endif
    }

    /// A controller on the in-process virtual radio, on the air and at the place the
    /// scenario names (``VirtualControllerSpec`` gives the grammar), with the battery beacons
    /// it asks for. The air is created on first use unless a scenario (``VirtualScenario``)
    /// registered it.
    private static func openVirtualRadio(
        scenario: String?, spec: HCITransportSpec
    ) async throws(HCITransportError) -> any HCITransport {
        let placement: VirtualControllerSpec
        do {
            placement = try VirtualControllerSpec(parsing: scenario)
        } catch {
            throw HCITransportError(.invalidSpec, "invalid transport \"\(spec)\": \(error.message)")
        }
        if placement.batteryBeacons != nil || placement.eddystoneBeacons != nil {
            // Once per air: the same spec opened again finds its beacons there.
            VirtualBatteryBeacons.ensure(
                kbeacons: placement.batteryBeacons ?? 0, eddystones: placement.eddystoneBeacons ?? 0,
                batteryPercent: placement.batteryPercent, on: VirtualAirRegistry.air(named: placement.airName, creatingWith: .live),
                around: placement.point ?? PlanPoint(x: 0, y: 0))
        }
        do {
            return try VirtualAirRegistry.openController(placement, transportName: spec.description)
        } catch {
            throw HCITransportError(.noSuchDevice, error.message)
        }
    }
}
