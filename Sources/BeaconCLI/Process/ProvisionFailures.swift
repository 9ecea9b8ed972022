import BeaconFleet

/// The exit status and words of a `provision` run that failed.
enum ProvisionFailures {
    static func failure(for error: ProvisionError) -> CommandFailure {
        switch error {
        case .plan(let message):
            return CommandFailure(.usageOrInput, message)
        case .advertising(.invalidRequest(let message)):
            return CommandFailure(.usageOrInput, message)
        case .advertising, .scanning:
            return CommandFailure(.controller, error.description)
        case .stoppedBeforeStart:
            return CommandFailure(.findings, "stopped before the beacons were on the air: nothing was verified")
        }
    }
}
