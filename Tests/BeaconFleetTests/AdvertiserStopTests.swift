import BeaconTestKit
import ClockTestKit
import HCI
import Testing

@testable import BeaconFleet

/// "Off the air" only on evidence: a stop the controller did not acknowledge is an error
/// that says the beacons may still be advertising, never a clean stop.
@Suite("Advertiser stop acknowledgement", .timeLimit(.minutes(1)))
struct AdvertiserStopTests {
    /// The command timeout for tests in which a command goes unanswered: a "no answer" can
    /// only be a timeout, which comes when the test advances the advertiser's test clock.
    static let unansweredTimeout: Duration = .seconds(5)

    @Test("a stop the controller never answers ends in stopNotConfirmed, not in a clean stop")
    func unansweredStop() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let clock = TestClock()
        let run = try startAdvertiser(
            on: [controller], requests: [request(minor: 1)], commandTimeout: Self.unansweredTimeout, clock: clock)
        try await run.recorder.waitForSessions()
        controller.leaveUnanswered(.leSetExtendedAdvertisingEnable)
        controller.leaveUnanswered(.leClearAdvertisingSets)

        // Each unanswered command times out when its 5 s have passed on the clock.
        let outcome = try await clock.advancing(by: Self.unansweredTimeout) { await run.stop() }
        guard case .failure(.stopNotConfirmed(_, let reason, let failures)) = outcome else {
            Issue.record("expected stopNotConfirmed, got \(outcome)")
            return
        }
        #expect(reason == .cancelled)
        #expect(failures.count == 2, "\(failures)")
        #expect(!run.recorder.events.contains { if case .stopped = $0 { return true } else { return false } },
                "no `stopped` event: nothing confirmed the beacons went off the air")
        let message = AdvertisingError.stopNotConfirmed(controller: "hci0", reason: reason, failures: failures).description
        #expect(message.contains("did not confirm that the beacons went off the air"), "\(message)")
        #expect(message.contains("may still be advertising"), "\(message)")
    }

    @Test("a refused disable is not a clean stop either")
    func refusedStop() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1)])
        try await run.recorder.waitForSessions()
        controller.refuse(.leSetExtendedAdvertisingEnable, with: .commandDisallowed)

        let outcome = await run.stop()
        guard case .failure(.stopNotConfirmed(_, _, let failures)) = outcome else {
            Issue.record("expected stopNotConfirmed, got \(outcome)")
            return
        }
        #expect(failures.count == 1, "\(failures)")
        #expect(failures.first?.contains("0x0C") == true || failures.first?.contains("Command Disallowed") == true, "\(failures)")
    }

    @Test("an acknowledged stop is still a clean stop")
    func acknowledgedStop() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1)])
        try await run.recorder.waitForSessions()
        let outcome = await run.stop()
        #expect(outcome == .success(.cancelled))
        #expect(run.recorder.events.last == .stopped(.cancelled))
    }

    @Test("legacy: an unanswered disable is reported too")
    func legacyUnansweredStop() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let clock = TestClock()
        let run = try startAdvertiser(
            on: [controller], requests: [request(minor: 1)], family: .legacy, commandTimeout: Self.unansweredTimeout,
            clock: clock)
        try await run.recorder.waitForSessions()
        controller.leaveUnanswered(.leSetAdvertisingEnable)
        let outcome = try await clock.advancing(by: Self.unansweredTimeout) { await run.stop() }
        guard case .failure(.stopNotConfirmed(_, _, let failures)) = outcome else {
            Issue.record("expected stopNotConfirmed, got \(outcome)")
            return
        }
        #expect(failures.count == 1, "\(failures)")
    }
}
