import BeaconCore
import BeaconProfiles
import Synchronization
import Testing

@testable import BeaconFleet

/// The steps `provision --hardware` announces for the provisioning benchmark, through the
/// profile it wraps: the second read after a write is the read-back.
@Suite("Provisioning phases announced through the profile")
struct PhaseAnnouncingProfileTests {
    /// Holds settings in memory; writes take.
    actor MemoryProfile: BeaconProfile {
        nonisolated let name = "memory"
        nonisolated let context = "memory"
        nonisolated let writableFields = Set(BeaconField.allCases)
        private var held: BeaconSettings

        init(holding held: BeaconSettings) { self.held = held }

        func authenticate(_ password: BeaconPassword) async throws(BeaconProfileError) -> AuthenticationOutcome { .accepted }
        func read() async throws(BeaconProfileError) -> BeaconReading { BeaconReading(settings: held) }
        func write(_ fields: [BeaconField], of target: BeaconSettings, current: BeaconReading) async throws(BeaconProfileError) {
            held = target
        }
        func changePassword(to newPassword: BeaconPassword) async throws(BeaconProfileError) {}
    }

    static let target = BeaconSettings(
        identity: BeaconIdentity(uuid: ProximityUUID(high: 1, low: 2), major: 3, minor: 4), measuredPower: -59, txPower: 0,
        advertisingInterval: 350)

    final class Announced: Sendable {
        let phases = Mutex<[HardwareProvisioningPhase]>([])
    }

    func phases(holding held: BeaconSettings, newPassword: BeaconPassword?) async throws -> [HardwareProvisioningPhase] {
        let announced = Announced()
        let profile = PhaseAnnouncingProfile(MemoryProfile(holding: held)) { phase in announced.phases.withLock { $0.append(phase) } }
        _ = try await BeaconProvisioning.run(profile, password: BeaconPassword("0000000000000000"), target: Self.target, newPassword: newPassword)
        return announced.phases.withLock { $0 }
    }

    @Test("written: authenticating, reading, writing, reading-back, then the new password")
    func written() async throws {
        var factory = Self.target
        factory.minor = 1
        #expect(try await phases(holding: factory, newPassword: BeaconPassword("fleet-pass-2026"))
            == [.authenticating, .reading, .writing, .readingBack, .changingPassword])
    }

    @Test("already right: authenticating and reading only")
    func alreadyRight() async throws {
        #expect(try await phases(holding: Self.target, newPassword: nil) == [.authenticating, .reading])
    }
}
