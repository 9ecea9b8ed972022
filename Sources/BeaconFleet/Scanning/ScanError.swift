import BeaconCore
import HCI

/// Why scanning could not start or stopped. `description` is the message for the user:
/// which controller, what happened, what to do.
public struct ScanError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A command was refused or not answered; `step` says what it was for.
        case command(HCIError, step: String)
        /// `--family extended` on a controller without LE feature bit 12.
        case extendedScanningUnsupported
        /// The scan parameters cannot be encoded (e.g. an interval legacy scanning cannot take).
        case invalidParameters(String)
        /// The link to the controller ended while scanning; `nil` when it was closed.
        case transportEnded(HCITransportError?)
    }

    /// The transport spec of the controller, e.g. `hci0`.
    public var controller: String
    public var kind: Kind

    public init(controller: String, kind: Kind) {
        self.controller = controller
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .command(let error, _):
            // HCIError already names the controller, the command and the status.
            return error.advisedMessage
        case .extendedScanningUnsupported:
            return "\(controller): extended scanning was asked for, but the controller does not support it (LE feature bit 12 is clear; it predates Bluetooth 5.0 or has it disabled); use \(UserSetting.family) legacy or auto"
        case .invalidParameters(let reason):
            return "\(controller): cannot scan with these settings: \(reason)"
        case .transportEnded(let error?):
            return "\(controller): the link to the controller ended while scanning (\(error.advisedMessage)); check that it is still plugged in or running, then scan again"
        case .transportEnded(nil):
            return "\(controller): the link to the controller was closed while scanning"
        }
    }
}
