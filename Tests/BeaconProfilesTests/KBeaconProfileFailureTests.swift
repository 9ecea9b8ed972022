import BeaconCore
import ClockTestKit
import HCI
import HCITestKit
import LECentral
import Testing

@testable import BeaconProfiles

/// The kbeacon profile when the beacon misbehaves: silence until the deadline on the test
/// clock, a refused message with its cause, a request for a part already sent, a hang-up in
/// the middle. Each ends with its own typed error, none hangs.
@Suite("kbeacon profile against a misbehaving beacon")
struct KBeaconProfileFailureTests {
    static func open(_ beacon: ScriptedKBeacon, clock: TestClock = TestClock()) async throws -> KBeaconProfile {
        let att = ATTClient(bearer: beacon)
        let options = KBeaconProfile.Options(answerTimeout: .seconds(15), clock: clock, challenge: { [1, 2, 3, 4] })
        return try await KBeaconProfile.open(gatt: GATTClient(att: att), address: ScriptedKBeacon.address, options: options)
    }

    static func kind(of operation: () async throws -> some Any) async -> BeaconProfileError.Kind? {
        do {
            _ = try await operation()
            return nil
        } catch let error as BeaconProfileError {
            return error.kind
        } catch {
            return nil
        }
    }

    @Test("a beacon that never answers the authentication: no answer when the test clock reaches 15 s")
    func silence() async throws {
        let clock = TestClock()
        let profile = try await Self.open(ScriptedKBeacon(behaviour: .refuse(cause: 2), answersAuthentication: false), clock: clock)
        let attempt = Task { await Self.kind { try await profile.authenticate(KBeaconProfile.factoryPassword) } }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(15))
        #expect(await attempt.value == .noAnswer(step: "the authentication request", after: .seconds(15)))
    }

    @Test("a refused message ends with the vendor's cause")
    func refusal() async throws {
        let profile = try await Self.open(ScriptedKBeacon(behaviour: .refuse(cause: 2)))
        #expect(try await profile.authenticate(KBeaconProfile.factoryPassword) == .accepted)
        #expect(await Self.kind { try await profile.read() } == .refused(step: "the configuration read", cause: 2))
    }

    @Test("a beacon asking for a part already sent is malformed, not obeyed in a loop")
    func backwards() async throws {
        let profile = try await Self.open(ScriptedKBeacon(behaviour: .askBackwards))
        #expect(try await profile.authenticate(KBeaconProfile.factoryPassword) == .accepted)
        guard case .malformed(let what) = await Self.kind(of: { try await profile.read() }) else {
            Issue.record("a backward request was not refused")
            return
        }
        #expect(what.contains("asked for offset 0"))
    }

    @Test("a hang-up in the middle of a message ends it with the link's reason")
    func hangUp() async throws {
        let profile = try await Self.open(ScriptedKBeacon(behaviour: .hangUp))
        #expect(try await profile.authenticate(KBeaconProfile.factoryPassword) == .accepted)
        guard case .link(let error) = await Self.kind(of: { try await profile.read() }) else {
            Issue.record("the hang-up was not reported as the link's end")
            return
        }
        #expect(error.kind == .disconnected(reason: .remoteUserTerminatedConnection))
    }

    @Test("nothing is sent for a password the beacon could not hold, and a second attempt is refused")
    func onePasswordAttempt() async throws {
        let profile = try await Self.open(ScriptedKBeacon(behaviour: .refuse(cause: 2)))
        #expect(await Self.kind { try await profile.authenticate(BeaconPassword("short")) } == .invalidPassword("a KBeacon password has 8 to 16 characters, this one has 5"))
        #expect(try await profile.authenticate(KBeaconProfile.factoryPassword) == .accepted)
        #expect(await Self.kind { try await profile.authenticate(KBeaconProfile.factoryPassword) } == .authenticationAlreadyAttempted)
        #expect(await Self.kind { try await profile.changePassword(to: BeaconPassword("x")) } != nil)
    }
}
