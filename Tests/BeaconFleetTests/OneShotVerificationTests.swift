import BeaconCore
import BeaconTestKit
import Foundation
import Logging
import Synchronization
import Testing

@testable import BeaconFleet

/// `verify` without `--watch` as a use case: which policy each input gets, what the front end
/// is told, and how a bad request fails.
struct OneShotVerificationTests {
    typealias Script = VerificationScript

    /// Counts what a front end is told.
    final class Observer: VerificationObserver {
        let told = Mutex<[String]>([])
        func passStarted(policy: VerificationPolicy) { told.withLock { $0.append("started, timeout \(policy.timeout.map { "\($0.instantSeconds) s" } ?? "none")") } }
        func progressed(_ progress: VerificationProgress) {}
        func passEnded() { told.withLock { $0.append("ended") } }
    }

    static func verification(timeout: Double? = nil, requiredSightings: Int? = nil, observer: Observer = Observer()) throws -> OneShotVerification {
        OneShotVerification(
            plan: try Script.plan([Script.beacon("door", minor: 1), Script.beacon("hall", minor: 2)]), requiredSightings: requiredSightings,
            timeout: timeout, stops: NoStopRequests(), observer: observer, logger: Logger(label: "test"))
    }

    @Test("a recorded file is replayed to its end (no timeout unless asked), and the front end is told of the pass")
    func recordedFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("one-shot-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = Script.train(Script.identity(minor: 1), count: 20).map(SightingJSONLines.encode)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let observer = Observer()
        let result = try await Self.verification(observer: observer).verify(recording: path)
        #expect(result.verdicts.map(\.status) == [.ok, .missing])
        #expect(result.endReason == .inputEnded)
        #expect(observer.told.withLock { $0 } == ["started, timeout none", "ended"])
        #expect(try Self.verification().policy(live: true).timeout == OneShotVerification.liveTimeout)
        #expect(try Self.verification(timeout: 3).policy(live: false).timeout == .seconds(3))
        #expect(try Self.verification(timeout: .infinity).policy(live: true).timeout == nil, "inf: to the end of the input")
        #expect(try Self.verification(timeout: .nan).policy(live: true).problem != nil, "a timeout that is no duration is refused, not taken as none")
    }

    @Test("a policy that cannot be met fails before the pass starts; a malformed file names its line")
    func failures() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("one-shot-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "{\"not\": \"a sighting\"}\n".write(toFile: path, atomically: true, encoding: .utf8)
        await #expect {
            try await Self.verification(requiredSightings: 0).verify(recording: path)
        } throws: { error in
            guard case .policy(let problem) = error as? OneShotVerification.Failure else { return false }
            return problem.contains("required sightings must be at least 1")
        }
        await #expect {
            try await Self.verification().verify(recording: path)
        } throws: { error in
            guard case .input(let failure) = error as? OneShotVerification.Failure else { return false }
            return failure.description.contains("line 1")
        }
    }

    @Test("a pass stopped before its input said anything judges nothing: every beacon unmonitored, said so, the input's failure")
    func stoppedUnseen() throws {
        let result = OneShotVerification.unseen(plan: try Self.verification().plan, policy: VerificationPolicy())
        #expect(result.endReason == .interrupted)
        #expect(result.verdicts.map(\.status) == [.unmonitored, .unmonitored])
        #expect(result.failedOnlyForBlindness)
        #expect(result.warnings.contains { $0.contains("the input delivered nothing before the pass ended: 2 beacons could not be judged") })
    }
}
