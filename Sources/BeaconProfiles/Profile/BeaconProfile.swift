/// A vendor's way of configuring a beacon over GATT, on one connection.
///
/// The order is fixed by `BeaconProvisioning`: one `authenticate`, then `read`, `write` of
/// only the fields that differ, a read-back, and last `changePassword`. Implementations
/// bound every wait with a deadline and observe cancellation; none logs or describes a
/// password.
public protocol BeaconProfile: Sendable {
    /// The profile's name as users give it: `kbeacon`, `eddystone-gatt`.
    var name: String { get }

    /// `kbeacon: tcp-client:127.0.0.1:6402: peripheral F0:…`, for messages.
    var context: String { get }

    /// The fields this profile can write; a target that sets another is `unsupported`
    /// before the beacon is touched.
    var writableFields: Set<BeaconField> { get }

    /// Why `field` cannot be written, in a sentence (for a field not in `writableFields`).
    func whyNotWritable(_ field: BeaconField) -> String

    /// Why this beacon would not take `password` as its password, `nil` when it would.
    func problem(with password: BeaconPassword) -> String?

    /// Tries `password` once. A second call on the same connection throws
    /// `authenticationAlreadyAttempted`.
    func authenticate(_ password: BeaconPassword) async throws(BeaconProfileError) -> AuthenticationOutcome

    /// What the beacon holds now.
    func read() async throws(BeaconProfileError) -> BeaconReading

    /// Writes `fields` of `target` (each set there), given what `current` reading says.
    func write(_ fields: [BeaconField], of target: BeaconSettings, current: BeaconReading) async throws(BeaconProfileError)

    /// Sets a new password; the next connection needs it.
    func changePassword(to newPassword: BeaconPassword) async throws(BeaconProfileError)
}

extension BeaconProfile {
    public func whyNotWritable(_ field: BeaconField) -> String {
        "the \(name) profile does not write it"
    }

    public func problem(with password: BeaconPassword) -> String? { nil }
}
