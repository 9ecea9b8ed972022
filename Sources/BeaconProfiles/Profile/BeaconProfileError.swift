import LECentral

/// Why a profile could not finish: what happened, with which beacon, and (in `description`)
/// what to do next. A refused password is not an error but an outcome
/// (`AuthenticationOutcome.refused`), so that no caller retries it by accident.
public struct BeaconProfileError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// The link or an attribute request failed (ATT Error Responses are worded there).
        case link(LECentralError)
        /// The beacon does not offer what this profile needs (`what` names it).
        case notThisProfile(String)
        /// The beacon did not answer a step of the profile within the deadline.
        case noAnswer(step: String, after: Duration)
        /// The beacon answered with something the profile's source document does not allow.
        case malformed(String)
        /// The beacon refused a configuration message; `cause` is the vendor's code.
        case refused(step: String, cause: Int)
        /// The target asks for a value this profile or this beacon cannot hold.
        case invalidValue(BeaconField, String)
        /// The profile cannot write this field at all (`why` says so).
        case unsupported(BeaconField, String)
        /// A new password this beacon would not accept (the reason, never the password).
        case invalidPassword(String)
        /// A step that needs an accepted password came before one.
        case notAuthenticated
        /// The profile allows one password attempt per connection, and it was made.
        case authenticationAlreadyAttempted
        /// After writing, the beacon reads back other values for these fields.
        case notApplied([BeaconField])
        /// OpenSSL's libcrypto would not compute what the authentication needs.
        case cryptography(String)
        /// The calling task was cancelled.
        case cancelled
    }

    /// `kbeacon: tcp-client:127.0.0.1:6402: peripheral F0:…`, for messages.
    public var context: String
    public var kind: Kind

    public init(context: String, kind: Kind) {
        self.context = context
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .link(let error):
            return "\(error)"
        case .notThisProfile(let what):
            return "\(context): \(what); this beacon is not configured with this profile: choose another profile"
        case .noAnswer(let step, let after):
            return "\(context): the beacon did not answer \(step) within \(after); disconnect, wake the beacon "
                + "(a button press on many models) and try again"
        case .malformed(let what):
            return "\(context): the beacon answered with something its profile does not allow: \(what)"
        case .refused(let step, let cause):
            return "\(context): the beacon refused \(step) (vendor cause \(cause)); it kept its previous settings "
                + "for that message: check the values against the beacon's model"
        case .invalidValue(let field, let why):
            return "\(context): \(field): \(why)"
        case .unsupported(let field, let why):
            return "\(context): \(field) cannot be written with this profile: \(why)"
        case .invalidPassword(let why):
            return "\(context): the new password was not sent: \(why)"
        case .notAuthenticated:
            return "\(context): the beacon has not accepted a password on this connection yet; authenticate first"
        case .authenticationAlreadyAttempted:
            return "\(context): a password was already tried on this connection; beacons lock out after failed "
                + "attempts, so beaconctl tries once"
        case .notApplied(let fields):
            return "\(context): the beacon accepted the writes but reads back other values for "
                + "\(fields.map(\.rawValue).joined(separator: ", ")); it may round or limit them: read its settings"
        case .cryptography(let what):
            return "\(context): \(what)"
        case .cancelled:
            return "\(context): cancelled"
        }
    }

    /// Wraps a central's error in this profile's context (its own message already names the
    /// peripheral and the controller).
    static func link(_ error: LECentralError, context: String) -> BeaconProfileError {
        if error.kind == .cancelled { return BeaconProfileError(context: context, kind: .cancelled) }
        return BeaconProfileError(context: context, kind: .link(error))
    }
}
