import BeaconCore
import BeaconFleet
import BeaconTestKit
import HCI
import HCITransports
import LECentral
import Synchronization

/// A `ControllerPlatform` a test scripts: each spec opens the scripted controller it was
/// given, the kernel lists what the test says (or fails as it says), and every connection
/// asked of the kernel is recorded and refused with the test's error.
final class ScriptedPlatform: ControllerPlatform {
    let controllers: [HCITransportSpec: ScriptedController]
    let kernelList: Result<[KernelController], HCITransportError>
    let kernelConnectRequests = Mutex<[(controller: UInt16, address: BluetoothAddress)]>([])

    init(
        controllers: [HCITransportSpec: ScriptedController] = [:],
        kernelList: Result<[KernelController], HCITransportError> = .success([])
    ) {
        self.controllers = controllers
        self.kernelList = kernelList
    }

    func openTransport(_ spec: HCITransportSpec) async throws(HCITransportError) -> any HCITransport {
        guard let controller = controllers[spec] else { throw HCITransportError(.noSuchDevice, "\(spec): not scripted") }
        return controller.hostEnd
    }

    func kernelControllers() throws(HCITransportError) -> [KernelController] { try kernelList.get() }

    func occupiedAdvertisingSets(index: UInt16, timeout: Duration) async throws(HCITransportError) -> OccupiedAdvertisingSets {
        OccupiedAdvertisingSets(instances: [])
    }

    func connectThroughKernel(
        controller: UInt16, to address: BluetoothAddress, type: PeerAddressType, timeout: Duration
    ) async throws(LECentralError) -> KernelATTLink {
        kernelConnectRequests.withLock { $0.append((controller, address)) }
        throw LECentralError(context: "hci\(controller): peripheral \(address)", kind: .invalidRequest("scripted: no kernel here"))
    }
}
