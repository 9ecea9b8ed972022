import ArgumentParser
import BeaconFleet
import BeaconMQTT
import HCI
import HCITransports

/// The exit codes every command uses (documented in the README):
/// 0 all good; 1 findings (invalid manifest, failed verification); 2 usage or unreadable
/// input; 3 controller or transport failure.
public enum ExitStatus: Int32, Sendable {
    case clean = 0
    case findings = 1
    case usageOrInput = 2
    case controller = 3

    var exitCode: ExitCode { ExitCode(rawValue) }

    /// The status of an error that no command turned into a `CommandFailure`: a controller,
    /// transport or broker failing is 3, anything else is input the command could not use, 2.
    /// Never 1, which says the command ran and found something.
    static func unexpected(_ error: any Error) -> ExitStatus {
        switch error {
        case is HCIError, is HCITransportError, is HCIDecodingError, is POSIXCallError,
             is ScanError, is LiveScanError, is AdvertisingError, is MQTTError:
            .controller
        default:
            .usageOrInput
        }
    }

    /// The words for an error no command worded itself: a controller's refusal or failure
    /// with what to do about it (`ControllerAdvice`), anything else as it describes itself.
    static func message(for error: any Error) -> String {
        switch error {
        case let error as HCIError: error.advisedMessage
        case let error as HCITransportError: error.advisedMessage
        default: "\(error)"
        }
    }
}

/// An error a command reports to the user: the message is printed as `beaconctl: error: …`
/// and the process exits with `status`.
public struct CommandFailure: Error, CustomStringConvertible, Sendable {
    public var status: ExitStatus
    public var message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
