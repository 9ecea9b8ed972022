import BeaconTestKit
import BeaconCore
import ClockTestKit
import HCI
import Logging
import Testing

@testable import BeaconFleet

/// A scripted controller for scanning tests (without extended advertising unless asked)
/// and a host on it. Every command is answered at once: the host's timeout is a safety net.
func scanTestController(
    features: LEFeatures = [], name: String = "memory", answer: ScriptedController.AnswerOverride? = nil
) -> (ScriptedController, HostController) {
    var configuration = ScriptedController.Configuration()
    configuration.features = features
    let controller = ScriptedController(name: name, configuration: configuration, answer: answer)
    return (controller, HostController(transport: controller.hostEnd, defaultTimeout: generousCommandTimeout))
}

/// Bytes from hex such as `"02 01 06"`; whitespace ignored.
func bytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0xEE }
}

func bluetoothAddress(_ text: String) throws -> BluetoothAddress {
    guard let address = BluetoothAddress(text) else { throw TestFailure("bad address \(text)") }
    return address
}

/// The iBeacon of RootCanal's smoke test: UUID 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3,
/// major 1, minor 2, measured power −59 dBm.
let testIBeaconData = bytes("02 01 06 1A FF 4C 00 02 15 89 D6 E9 36 F6 1F 42 27 BC D2 6E 94 C5 A6 B2 E3 00 01 00 02 C5")
let testUUID = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)

/// A scripted controller without extended advertising (legacy scanning), for scoped scans.
func legacyScanController() -> ScriptedController {
    var configuration = ScriptedController.Configuration()
    configuration.features = []
    return ScriptedController(name: "memory", configuration: configuration)
}

/// `LiveScan.with` on `controller` and `clock`, exclusive, without the quiet-controller watch
/// (so that a test's own ticks are the only sleepers on the clock).
func withScriptedScan<Value>(
    _ controller: ScriptedController, clock: TestClock = TestClock(), _ body: (LiveScan) async throws -> Value
) async throws -> Value {
    try await LiveScan.with(
        opening: { () async throws(HCITransportError) -> any HCITransport in controller.hostEnd },
        controller: "memory", commandTimeout: .seconds(60),
        configuration: ScanConfiguration(access: .exclusive, quietAfter: .zero),
        logger: Logger(label: "scripted-scan") { _ in SwiftLogNoOpLogHandler() }, clock: clock, body)
}

/// One legacy advertising report carrying `testIBeaconData` (major 1, minor 2) at −60 dBm.
func testBeaconReport() throws -> HCIEvent {
    .le(.advertisingReport([LEAdvertisingReport(
        eventType: .advNonconnInd, addressType: .random, address: try bluetoothAddress("C4:5B:BE:12:34:56"),
        data: testIBeaconData, rssi: -60)]))
}
