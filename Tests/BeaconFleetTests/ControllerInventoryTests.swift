import BeaconTestKit
import HCI
import HCITransports
import Logging
import Testing

@testable import BeaconFleet

/// `controllers`' use case: the kernel's list through the platform, and one controller
/// opened, inspected and closed.
@Suite("Controller inventory", .timeLimit(.minutes(1)))
struct ControllerInventoryTests {
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test("the kernel's controllers as the platform lists them")
    func listed() throws {
        let hci0 = KernelController(index: 0, name: "hci0", address: "00:1A:7D:DA:71:13", isUp: true, bus: "USB")
        let platform = ScriptedPlatform(kernelList: .success([hci0]))
        #expect(try ControllerInventory.kernelControllers(on: platform) == .listed([hci0]))
        #expect(hci0.transportSpec == .kernelSocket(device: 0))
    }

    @Test("a kernel without Bluetooth is a listing of its own, not a failure; any other failure is one")
    func noKernelBluetooth() throws {
        let missing = ScriptedPlatform(kernelList: .failure(HCITransportError(.bluetoothUnsupported, "kernel controllers: no AF_BLUETOOTH")))
        #expect(try ControllerInventory.kernelControllers(on: missing) == .noKernelBluetooth)
        let broken = ScriptedPlatform(kernelList: .failure(HCITransportError(.ioFailure, "kernel controllers: cannot list controllers")))
        #expect(throws: HCITransportError.self) { try ControllerInventory.kernelControllers(on: broken) }
    }

    @Test("--hci SPEC: the controller is opened through the platform, inspected and closed")
    func inspectsThroughThePlatform() async throws {
        let spec = try HCITransportSpec(parsing: exclusiveTestSpec)
        let controller = ScriptedController(name: exclusiveTestSpec)
        let platform = ScriptedPlatform(controllers: [spec: controller])
        let report = try await ControllerInventory.inspect(ControllerConnection(spec, platform: platform, commandTimeout: .seconds(60)), logger: logger)
        #expect(report.family == .extended)
        // Exclusive (tcp-client): reset before use.
        #expect(controller.opcodes.first == .reset)
    }

    @Test("a controller the platform cannot open is an open failure, worded with advice")
    func openFailure() async throws {
        let spec = try HCITransportSpec(parsing: "tcp-client:127.0.0.1:1")
        let connection = ControllerConnection(spec, platform: ScriptedPlatform())
        await #expect {
            _ = try await ControllerInventory.inspect(connection, logger: logger)
        } throws: { error in
            guard let failure = error as? ControllerInspectionError, case .open = failure else { return false }
            return failure.advisedMessage.contains("not scripted")
        }
    }
}
