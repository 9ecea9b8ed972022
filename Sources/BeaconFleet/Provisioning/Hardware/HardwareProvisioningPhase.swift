import BeaconCore
import BeaconProfiles
import Synchronization

/// A step of one beacon's provisioning, announced as it begins, so that an observer (the
/// provisioning benchmark) can say where the time goes. The steps follow one another on one
/// beacon; the beacon's `finished` event ends the last.
public enum HardwareProvisioningPhase: String, Hashable, Sendable, CaseIterable {
    /// From the beacon's turn until its connection is there: for a beacon connected to ahead,
    /// while the one before it was written, what was left of that wait.
    case connecting
    /// Finding the profile on the connection: GATT discovery, MTU, notifications.
    case openingProfile = "opening-profile"
    /// The password's one attempt.
    case authenticating
    /// Reading what the beacon holds.
    case reading
    /// Writing the fields that differ.
    case writing
    /// Reading back what was written.
    case readingBack = "reading-back"
    /// Setting the new password, last.
    case changingPassword = "changing-password"
    /// Disconnect until Disconnection Complete.
    case disconnecting
    /// Writing `mac:` into the manifest (`--assign nearest`).
    case recordingAddress = "recording-address"
}

/// A profile that announces each call to `phase` before making it on `profile`: the
/// second read, once fields were written, is the read-back.
struct PhaseAnnouncingProfile: BeaconProfile {
    let profile: any BeaconProfile
    let phase: @Sendable (HardwareProvisioningPhase) -> Void
    private let wrote = AnnouncedWrites()

    init(_ profile: any BeaconProfile, phase: @escaping @Sendable (HardwareProvisioningPhase) -> Void) {
        self.profile = profile
        self.phase = phase
    }

    var name: String { profile.name }
    var context: String { profile.context }
    var writableFields: Set<BeaconField> { profile.writableFields }
    func whyNotWritable(_ field: BeaconField) -> String { profile.whyNotWritable(field) }
    func problem(with password: BeaconPassword) -> String? { profile.problem(with: password) }

    func authenticate(_ password: BeaconPassword) async throws(BeaconProfileError) -> AuthenticationOutcome {
        phase(.authenticating)
        return try await profile.authenticate(password)
    }

    func read() async throws(BeaconProfileError) -> BeaconReading {
        phase(wrote.happened ? .readingBack : .reading)
        return try await profile.read()
    }

    func write(_ fields: [BeaconField], of target: BeaconSettings, current: BeaconReading) async throws(BeaconProfileError) {
        phase(.writing)
        wrote.note()
        try await profile.write(fields, of: target, current: current)
    }

    func changePassword(to newPassword: BeaconPassword) async throws(BeaconProfileError) {
        phase(.changingPassword)
        try await profile.changePassword(to: newPassword)
    }
}

/// Whether a write was made on this connection (set once, read by the next `read`).
private final class AnnouncedWrites: Sendable {
    private let flag = Atomic<Bool>(false)
    func note() { flag.store(true, ordering: .relaxed) }
    var happened: Bool { flag.load(ordering: .relaxed) }
}
