import BeaconTestKit
import ClockTestKit
import HCI
import Testing

@testable import BeaconFleet

/// Which way `provision --hardware` connects: through the kernel on a controller it shares
/// with the kernel (no HCI command on the shared channel), through its own central otherwise.
@Suite("provision --hardware's connector for each controller access", .timeLimit(.minutes(1)))
struct PeripheralConnectorTests {
    @Test("hciN (shared with the kernel): the kernel's L2CAP socket, and not one command sent on the RAW channel")
    func kernelForSharedControllers() async throws {
        let (controller, host) = scanTestController()
        let connector = try await PeripheralConnector.prepare(access: .sharedWithKernel(index: 2), host: host, clock: TestClock())
        guard case .kernel(let index, _) = connector else {
            Issue.record("expected the kernel's connector, got \(connector)")
            return
        }
        #expect(index == 2)
        #expect(controller.opcodes.isEmpty)
    }

    @Test("a controller of its own: beaconctl's central, started on it")
    func centralForExclusiveControllers() async throws {
        let (controller, host) = scanTestController()
        let connector = try await PeripheralConnector.prepare(access: .exclusive, host: host, clock: TestClock())
        guard case .hostStack = connector else {
            Issue.record("expected the host stack's central, got \(connector)")
            return
        }
        #expect(controller.opcodes.contains(.leReadBufferSize))
    }
}
