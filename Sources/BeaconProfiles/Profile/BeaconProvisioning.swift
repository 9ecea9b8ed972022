/// Brings one beacon to a target through a profile, in the one safe order:
/// 0. a target with a field the profile cannot write, or a new password the beacon would not
///    take, is refused before anything is sent;
/// 1. one password attempt; a refusal ends it with nothing written;
/// 2. read what the beacon holds;
/// 3. write only the fields that differ (none when it is already right);
/// 4. read back and compare, so that a write the beacon silently changed is reported;
/// 5. only then, when asked, set a new password: a beacon whose settings could not be
///    applied keeps the password its owner knows.
public enum BeaconProvisioning {
    ///
    /// `review` sees what the beacon holds and the fields that differ before anything is
    /// written; `.stop` ends the run there with nothing written (a dry run, or a beacon that
    /// already carries another beacon's identity).
    public static func run(
        _ profile: some BeaconProfile, password: BeaconPassword, target: BeaconSettings, newPassword: BeaconPassword? = nil,
        review: @Sendable (BeaconReading, [BeaconField]) async -> ProvisioningReview = { _, _ in .proceed }
    ) async throws(BeaconProfileError) -> ProvisioningOutcome {
        // A target the profile cannot reach is said before the password is tried.
        if let field = target.setFields.first(where: { !profile.writableFields.contains($0) }) {
            throw BeaconProfileError(context: profile.context, kind: .unsupported(field, profile.whyNotWritable(field)))
        }
        if let newPassword, let problem = profile.problem(with: newPassword) {
            throw BeaconProfileError(context: profile.context, kind: .invalidPassword(problem))
        }
        let outcome = try await profile.authenticate(password)
        guard outcome == .accepted else {
            if case .refused(let refusal) = outcome { return .refused(refusal) }
            return .refused(.refusedByBeacon)
        }
        let before = try await profile.read()
        let fields = target.differences(from: before.settings)
        if case .stop(let reason) = await review(before, fields) {
            return .stopped(StoppedProvisioning(reading: before, differences: fields, reason: reason))
        }
        var after = before
        if !fields.isEmpty {
            try await profile.write(fields, of: target, current: before)
            after = try await profile.read()
            let notApplied = target.differences(from: after.settings)
            if !notApplied.isEmpty {
                throw BeaconProfileError(context: profile.context, kind: .notApplied(notApplied))
            }
        }
        var passwordChanged = false
        if let newPassword, newPassword != password {
            try await profile.changePassword(to: newPassword)
            passwordChanged = true
        }
        return .provisioned(ProvisioningReport(before: before, written: fields, after: after, passwordChanged: passwordChanged))
    }
}

/// How a provisioning run ended when nothing failed.
public enum ProvisioningOutcome: Equatable, Sendable {
    /// The password was refused; nothing was read or written.
    case refused(AuthenticationRefusal)
    case provisioned(ProvisioningReport)
    /// The caller's review stopped the run after the read; nothing was written.
    case stopped(StoppedProvisioning)
}

/// What a caller's review decides once the beacon was read.
public enum ProvisioningReview: Equatable, Sendable {
    case proceed
    /// Write nothing; `reason` says why (for the caller's report).
    case stop(String)
}

/// A run the review stopped: what the beacon holds and what would have been written.
public struct StoppedProvisioning: Equatable, Sendable {
    public var reading: BeaconReading
    public var differences: [BeaconField]
    public var reason: String

    public init(reading: BeaconReading, differences: [BeaconField], reason: String) {
        self.reading = reading
        self.differences = differences
        self.reason = reason
    }
}

/// What a provisioning run found, wrote and read back.
public struct ProvisioningReport: Equatable, Sendable {
    public var before: BeaconReading
    /// The fields written: empty when the beacon already held the target.
    public var written: [BeaconField]
    /// What the beacon held at the end (read back after writing).
    public var after: BeaconReading
    public var passwordChanged: Bool

    public init(before: BeaconReading, written: [BeaconField], after: BeaconReading, passwordChanged: Bool) {
        self.before = before
        self.written = written
        self.after = after
        self.passwordChanged = passwordChanged
    }
}
