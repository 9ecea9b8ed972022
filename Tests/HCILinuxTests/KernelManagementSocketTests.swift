#if os(Linux)
import Glibc
import HCI
import Testing

@testable import HCILinux

/// The management exchange against a scripted kernel: the test reads each command the code
/// sends and answers it as the kernel does (BlueZ doc/mgmt-api.txt).
@Suite("The kernel's management interface: advertising instances", .timeLimit(.minutes(1)))
struct KernelManagementSocketTests {
    /// A script whose "devices" include HCI_DEV_NONE, so that binding the control channel succeeds.
    private static func kernel() throws -> FakeKernelHCISyscalls {
        try FakeKernelHCISyscalls(.init(devices: [.fake(index: 0, isUp: true), .fake(index: 0xFFFF, isUp: true)]))
    }

    /// A mgmt event: code, index, length (little-endian), then the parameters.
    private static func event(_ code: UInt16, index: UInt16, _ parameters: [UInt8]) -> [UInt8] {
        [UInt8(code & 0xFF), UInt8(code >> 8), UInt8(index & 0xFF), UInt8(index >> 8),
         UInt8(parameters.count & 0xFF), UInt8(parameters.count >> 8)] + parameters
    }

    /// Read Controller Information's return parameters with `settings` as Current_Settings.
    private static func controllerInformation(settings: UInt32) -> [UInt8] {
        var parameters = [UInt8](repeating: 0, count: 6 + 1 + 2 + 4)
        parameters += (0..<4).map { UInt8(truncatingIfNeeded: settings >> (8 * UInt32($0))) }
        parameters += [UInt8](repeating: 0, count: 3 + 249 + 11)
        return parameters
    }

    @Test("Read Controller Information, then Read Advertising Features: instances and the Advertising setting")
    func readsInstances() async throws {
        let kernel = try Self.kernel()
        let reading = Task {
            try await KernelManagementSocket.readAdvertisingInstances(index: 0, timeout: .seconds(60), syscalls: kernel)
        }
        #expect(try await kernel.nextSent() == [0x04, 0x00, 0x00, 0x00, 0x00, 0x00])
        // Events for others come first and are passed over: another controller, another command.
        kernel.deliver(Self.event(0x0001, index: 1, [0x04, 0x00, 0x00] + Self.controllerInformation(settings: 0)))
        kernel.deliver(Self.event(0x0006, index: 0, [0x01, 0x00, 0x00, 0x00]))
        // Powered, LE, Advertising (bits 0, 9, 10).
        kernel.deliver(Self.event(0x0001, index: 0, [0x04, 0x00, 0x00] + Self.controllerInformation(settings: 0x601)))
        #expect(try await kernel.nextSent() == [0x3D, 0x00, 0x00, 0x00, 0x00, 0x00])
        // Supported_Flags, Max_Adv_Data_Len, Max_Scan_Rsp_Len, Max_Instances 16, Num_Instances 2: 1 and 2.
        kernel.deliver(Self.event(0x0001, index: 0, [0x3D, 0x00, 0x00, 0xFF, 0x03, 0, 0, 31, 31, 16, 2, 1, 2]))
        let instances = try await reading.value
        #expect(instances == KernelAdvertisingInstances(instances: [1, 2], maximumInstances: 16, advertisingSettingOn: true))
        #expect(kernel.log.binds.map { $0.device } == [0xFFFF])
        #expect(kernel.log.binds.map { $0.channel } == [3])
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("Permission Denied (an untrusted socket, without CAP_NET_ADMIN) names the capability and the fix")
    func permissionDenied() async throws {
        let kernel = try Self.kernel()
        let reading = Task {
            try await KernelManagementSocket.readAdvertisingInstances(index: 0, timeout: .seconds(60), syscalls: kernel)
        }
        _ = try await kernel.nextSent()
        kernel.deliver(Self.event(0x0001, index: 0, [0x04, 0x00, 0x00] + Self.controllerInformation(settings: 1)))
        _ = try await kernel.nextSent()
        kernel.deliver(Self.event(0x0002, index: 0, [0x3D, 0x00, 0x14]))
        let error = try await #require(throws: HCITransportError.self) { try await reading.value }
        #expect(error.kind == .permissionDenied)
        #expect(
            error.message
                == "hci0: the kernel's management interface refused Read Advertising Features (Permission Denied, 0x14): "
                + "beaconctl needs the CAP_NET_ADMIN capability to see which advertising sets bluetoothd holds on hci0")
        #expect(error.cause == .missingCapability)
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("a kernel that never answers: the read ends at its deadline")
    func noAnswer() async throws {
        let kernel = try Self.kernel()
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await KernelManagementSocket.readAdvertisingInstances(
                index: 0, timeout: .milliseconds(50), syscalls: kernel)
        }
        #expect(error.message == "hci0: the kernel's management interface did not answer Read Controller Information in time")
    }

    @Test("a cancelled caller ends the read soon, without waiting for its deadline")
    func cancellation() async throws {
        let kernel = try Self.kernel()
        let reading = Task {
            try await KernelManagementSocket.readAdvertisingInstances(index: 0, timeout: .seconds(600), syscalls: kernel)
        }
        _ = try await kernel.nextSent()
        reading.cancel()
        let error = try await #require(throws: HCITransportError.self) { try await reading.value }
        #expect(error.message == "hci0: reading the kernel's advertising instances was cancelled")
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("answers shorter than their layout are refused, never read past their end")
    func shortAnswers() {
        #expect(KernelManagementMessage.reply([0x01, 0x00, 0x00, 0x00, 0x09, 0x00, 0x3D], to: 0x3D, index: 0) == .malformed)
        #expect(KernelManagementMessage.instances(inAdvertisingFeatures: [0, 0, 0, 0, 31, 31, 16, 3, 1, 2]) == nil)
        #expect(KernelManagementMessage.advertisingSetting(inControllerInformation: [0, 0, 0]) == nil)
        #expect(KernelManagementMessage.reply([0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x3D, 0x00], to: 0x3D, index: 0) == .malformed)
    }
}
#endif
