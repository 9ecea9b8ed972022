import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import LECentral
import Testing

@testable import BeaconFleet

/// Which way `provision --hardware` connects: through the kernel on a controller it shares
/// with the kernel (no HCI command on the shared channel), through its own central otherwise.
@Suite("provision --hardware's connector for each controller access", .timeLimit(.minutes(1)))
struct PeripheralConnectorTests {
    @Test("hciN (shared with the kernel): the kernel's L2CAP socket, and not one command sent on the RAW channel")
    func kernelForSharedControllers() async throws {
        let (controller, host) = scanTestController()
        let connector = try await PeripheralConnector.prepare(
            access: .sharedWithKernel(index: 2), host: host, platform: ScriptedPlatform(), clock: TestClock())
        guard case .kernel(let index, _, _) = connector else {
            Issue.record("expected the kernel's connector, got \(connector)")
            return
        }
        #expect(index == 2)
        #expect(controller.opcodes.isEmpty)
    }

    @Test("a controller of its own: beaconctl's central, started on it")
    func centralForExclusiveControllers() async throws {
        let (controller, host) = scanTestController()
        let connector = try await PeripheralConnector.prepare(access: .exclusive, host: host, platform: ScriptedPlatform(), clock: TestClock())
        guard case .hostStack = connector else {
            Issue.record("expected the host stack's central, got \(connector)")
            return
        }
        #expect(controller.opcodes.contains(.leReadBufferSize))
    }
}

/// On `hciN` the link is asked of the platform (the kernel's L2CAP socket), and what the
/// platform refuses reaches the caller as it said it.
@Suite("provision --hardware's kernel connections through the platform", .timeLimit(.minutes(1)))
struct KernelPeripheralConnectionTests {
    @Test("a connection on hci3 is the platform's kernel connection, to that controller and address")
    func asksThePlatform() async throws {
        let (controller, host) = scanTestController()
        let platform = ScriptedPlatform()
        let connector = try await PeripheralConnector.prepare(
            access: .sharedWithKernel(index: 3), host: host, platform: platform, clock: TestClock())
        let address = try #require(BluetoothAddress(value: 0xC4_5B_BE_00_00_01))
        await #expect {
            _ = try await connector.connect(to: address, type: .public, timeout: .seconds(5))
        } throws: { error in
            (error as? LECentralError)?.description.contains("scripted: no kernel here") == true
        }
        let requests = platform.kernelConnectRequests.withLock { $0 }
        #expect(requests.count == 1 && requests.first?.controller == 3 && requests.first?.address == address)
        #expect(controller.opcodes.isEmpty, "no HCI command on the shared RAW channel")
    }
}
