/// How one password attempt ended. A refusal is an outcome, not an error: the caller leaves
/// the beacon alone (no second guess: vendors lock beacons out after failed attempts).
public enum AuthenticationOutcome: Equatable, Sendable, CustomStringConvertible {
    case accepted
    case refused(AuthenticationRefusal)

    public var description: String {
        switch self {
        case .accepted: "the beacon accepted the password"
        case .refused(let refusal): "\(refusal)"
        }
    }
}

/// Why a password was not accepted.
public enum AuthenticationRefusal: Equatable, Sendable, CustomStringConvertible {
    /// The beacon proved it holds another password: its answer to our challenge does not
    /// match. beaconctl stopped before answering the beacon's challenge.
    case passwordMismatch
    /// The beacon refused: a wrong password, or it is locked after earlier failures.
    case refusedByBeacon
    /// The beacon's configuration is locked and this profile has no password to unlock it.
    case locked

    public var description: String {
        switch self {
        case .passwordMismatch:
            "the beacon holds another password (its answer to the challenge does not match): nothing was written; "
                + "find the beacon's password rather than guessing, since beacons lock out after failed attempts"
        case .refusedByBeacon:
            "the beacon refused the password (a wrong password, or it locked itself after earlier failures): "
                + "nothing was written; leave it alone, and if it is locked wait or power-cycle it as its vendor documents"
        case .locked:
            "the beacon's configuration is locked: nothing was written"
        }
    }
}
