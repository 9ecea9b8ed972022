import BeaconFleet

/// The verify use cases (`OneShotVerification`, `AuditWatchService`) as the command line
/// words their failures with its exit statuses.
extension CommandFailure {
    /// A one-shot pass: what the user asked or gave is exit 2, a broker or a controller that
    /// failed exit 3.
    init(_ failure: OneShotVerification.Failure) {
        switch failure {
        case .policy, .input, .nothingArrived: self.init(.usageOrInput, failure.description)
        case .broker, .brokerNeverDelivered: self.init(.controller, failure.description)
        case .source(let error): self.init(.controller, ExitStatus.message(for: error))
        }
    }

    /// The watch's input: a malformed recording is a usage or input error (exit 2), anything
    /// else the controller's or the broker's (exit 3).
    init(watching error: any Error) {
        switch error {
        case let error as SightingStreamError: self.init(.usageOrInput, error.description)
        default: self.init(.controller, ExitStatus.message(for: error))
        }
    }
}
