import BeaconCore
import HCI

/// What `BeaconProvisioner.run` reports while it runs, in order.
public enum ProvisionEvent: Sendable {
    /// From the advertiser: started (with what the controller accepted), warnings, faults,
    /// restarts, stop.
    case advertiser(AdvertiserEvent)
    /// The verification started listening on the second controller (`controller`, as its
    /// transport spec) for `expected` beacons.
    case verifying(expected: Int, controller: String)
    /// The verification's progress and what it just decided.
    case verification(VerificationProgress, [VerificationEvent])
    /// The verification is over; the beacons stay on the air unless the run was `once`.
    case verified(VerificationResult)
}

/// Why provisioning could not run to its report.
public enum ProvisionError: Error, Sendable, CustomStringConvertible {
    /// The manifest gives this host nothing to do, or a beacon no controller accepts.
    case plan(String)
    /// The beacons could not be put on the air (or went off it for good).
    case advertising(AdvertisingError)
    /// The controller that listens failed; `controller` names it.
    case scanning(controller: String, any Error)
    /// The advertiser ended before the beacons were on the air, without an error: the run
    /// was cancelled during bring-up.
    case stoppedBeforeStart

    public var description: String {
        switch self {
        case .plan(let message):
            return message
        case .advertising(let error):
            return error.description
        case .scanning(let controller, let error):
            return "\(controller): listening for the beacons failed: \(error)"
        case .stoppedBeforeStart:
            return "stopped before the beacons were on the air"
        }
    }
}
