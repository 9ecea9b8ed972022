import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import Logging
import Testing

@testable import BeaconFleet

@Suite("The scoped live scan stops and closes however its body ends", .timeLimit(.minutes(1)))
struct LiveScanScopeTests {
    static let logger = Logger(label: "live-scan-scope-tests") { _ in SwiftLogNoOpLogHandler() }

    struct BodyFailure: Error, Equatable {}

    /// Scanning was enabled, then disabled (LE Set Scan Enable, Core v5.4 Vol 4 Part E
    /// 7.8.11: `01 00` then `00 00`), and the link is closed: the controller can send nothing more.
    static func expectStoppedAndClosed(_ controller: ScriptedController) async throws {
        try await controller.waitFor(.leSetScanEnable, count: 2)
        #expect(controller.parameters(of: .leSetScanEnable) == [[0x01, 0x00], [0x00, 0x00]])
        await #expect(throws: HCITransportError.self) {
            try await controller.send(.le(.advertisingReport([])))
        }
    }

    @Test("a body that returns: its value, then scanning disabled and the link closed")
    func bodyReturns() async throws {
        let controller = legacyScanController()
        let family = try await withScriptedScan(controller) { scan in scan.family }
        #expect(family == .legacy)
        try await Self.expectStoppedAndClosed(controller)
    }

    @Test("a body that throws: its error as it is, after scanning was disabled and the link closed")
    func bodyThrows() async throws {
        let controller = legacyScanController()
        await #expect(throws: BodyFailure()) {
            try await withScriptedScan(controller) { _ in throw BodyFailure() }
        }
        try await Self.expectStoppedAndClosed(controller)
    }

    @Test("a cancelled body: scanning is still disabled, and the link closed")
    func bodyCancelled() async throws {
        let controller = legacyScanController()
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let scanning = Task {
            try await withScriptedScan(controller) { scan in
                startedSignal.yield()
                // As a use case does: read sightings until the stream ends (cancellation ends it).
                for try await _ in scan.sightings {}
                try Task.checkCancellation()
            }
        }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        scanning.cancel()
        await #expect(throws: CancellationError.self) { try await scanning.value }
        try await Self.expectStoppedAndClosed(controller)
    }

    @Test("a controller that refuses to scan: LiveScanError.refused, the body never runs, the link closed")
    func refusedBringUp() async throws {
        let controller = legacyScanController()
        controller.refuse(.leSetScanEnable, with: .commandDisallowed)
        var ran = false
        do {
            try await withScriptedScan(controller) { _ in ran = true }
            Issue.record("the scan started on a controller that refused it")
        } catch let error as LiveScanError {
            guard case .refused = error else {
                Issue.record("expected a refusal, got \(error)")
                return
            }
        }
        #expect(!ran)
        await #expect(throws: HCITransportError.self) {
            try await controller.send(.le(.advertisingReport([])))
        }
    }

    @Test("a controller that cannot be opened: LiveScanError.unreachable, the body never runs")
    func unreachable() async throws {
        var ran = false
        do {
            try await LiveScan.with(
                opening: { () async throws(HCITransportError) -> any HCITransport in
                    throw HCITransportError(.ioFailure, "memory: no such controller")
                },
                controller: "memory", commandTimeout: .seconds(60), configuration: ScanConfiguration(access: .exclusive),
                logger: Self.logger, clock: TestClock()
            ) { _ in ran = true }
            Issue.record("the scan started without a transport")
        } catch let error as LiveScanError {
            guard case .unreachable(let controller, _) = error else {
                Issue.record("expected unreachable, got \(error)")
                return
            }
            #expect(controller == "memory")
        }
        #expect(!ran)
    }
}
