import BeaconTestKit
import ClockTestKit
import HCI
import Logging
import Testing

@testable import BeaconFleet

@Suite("Controller inspection", .timeLimit(.minutes(1)))
struct ControllerInspectorTests {
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A host on a test clock nobody advances: every command is answered in memory, so a
    /// command timeout on wall time could only fire because the machine was busy.
    static func host(on controller: ScriptedController) -> HostController {
        HostController(transport: controller.hostEnd, clock: TestClock())
    }

    @Test("an extended controller: sets, data length, TX power range; no legacy advertising command")
    func extended() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.supportsReadTransmitPower = true
        let controller = ScriptedController(name: exclusiveTestSpec, configuration: configuration)
        let host = Self.host(on: controller)
        let report = try await ControllerInspector.inspect(host, access: .exclusive, logger: logger)
        await host.close()
        #expect(report.family == .extended)
        #expect(report.advertisingSets == 16)
        #expect(report.maximumAdvertisingDataLength == 1650)
        #expect(report.advertisingTxPower == .range(minimum: -20, maximum: 4))
        #expect(report.info.manufacturer == "Google (0x00E0)")
        #expect(report.info.version.hciVersion.description == "5.3")
        #expect(!controller.opcodes.contains { (0x2006...0x200D).contains($0.rawValue) })
    }

    @Test("an extended controller without LE Read Transmit Power reports power per set")
    func extendedWithoutTransmitPower() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let host = Self.host(on: controller)
        let report = try await ControllerInspector.inspect(host, access: .exclusive, logger: logger)
        await host.close()
        #expect(report.advertisingTxPower == .reportedPerSet)
        #expect(report.advertisingTxPower.description == "reported per set when advertising")
        #expect(!controller.opcodes.contains(HCIOpcode(rawValue: 0x204B)))
    }

    @Test("a legacy controller on hci0: no Reset, legacy TX power, no extended command")
    func legacyShared() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.features = []
        configuration.version = .v4_2
        configuration.companyIdentifier = 0x1234
        let controller = ScriptedController(name: "hci0", configuration: configuration)
        let host = Self.host(on: controller)
        let report = try await ControllerInspector.inspect(host, access: .sharedWithKernel(index: 0), logger: logger)
        await host.close()
        #expect(report.family == .legacy)
        #expect(report.advertisingSets == nil)
        #expect(report.advertisingTxPower == .fixed(dBm: -10))
        #expect(report.info.manufacturer == "company 0x1234")
        #expect(controller.opcodes == [
            .readLocalVersionInformation, .readBDADDR, .leReadLocalSupportedFeatures, .leReadAdvertisingPhysicalChannelTxPower,
        ])
    }
}
