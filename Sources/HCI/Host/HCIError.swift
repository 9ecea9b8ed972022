import BeaconCore

/// Why a command sent through `HostController` did not produce its result.
///
/// `description` says what happened and where: which controller, which command, and the
/// facts (status, timeout, the transport's failure), e.g.
/// `hci0: LE Set Advertising Parameters was refused (0x0C Command Disallowed)`. What the user
/// should do about it depends on the front end and is chosen above this layer (BeaconFleet's
/// `ControllerAdvice`), from the typed `kind`, `opcode` and `controller`.
public struct HCIError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// The controller answered with a non-success status.
        case commandFailed(HCIStatus)
        /// No answer within `timeout`. `waitingForCredit`: the command was never sent
        /// because the controller had not returned a command credit.
        case timeout(Duration, waitingForCredit: Bool)
        /// The transport failed or closed before the answer arrived.
        case transport(HCITransportError)
        /// The answer arrived but could not be decoded.
        case malformedAnswer(HCIDecodingError)
        /// The answer does not fit the command (e.g. Command Status success for a command
        /// whose result only Command Complete can carry).
        case unexpectedAnswer(String)
        /// A Reset this host did not send completed while the command was pending.
        case controllerReset
        /// The controller sent Hardware Error while the command was pending.
        case hardwareError(code: UInt8)
        /// The command could not be encoded; nothing was sent.
        case invalidCommand(HCIParameterError)
        /// `HostController.close()` was called.
        case closed
        /// The calling task was cancelled before the answer arrived.
        case cancelled
    }

    /// The transport spec of the controller, e.g. `hci0`.
    public var controller: String
    /// The command concerned.
    public var opcode: HCIOpcode
    public var kind: Kind

    public init(controller: String, opcode: HCIOpcode, kind: Kind) {
        self.controller = controller
        self.opcode = opcode
        self.kind = kind
    }

    /// The controller's status when it refused the command.
    public var status: HCIStatus? {
        if case .commandFailed(let status) = kind { return status }
        return nil
    }

    public var description: String {
        let command = opcode.displayName
        switch kind {
        case .commandFailed(let status):
            let verb = Self.isFailure(status) ? "failed" : "was refused"
            return "\(controller): \(command) \(verb) (\(status))"
        case .timeout(let timeout, let waitingForCredit):
            if waitingForCredit {
                return "\(controller): \(command) could not be sent within \(Self.seconds(timeout)): the controller has not finished earlier commands (no command credit)"
            }
            return "\(controller): no answer to \(command) within \(Self.seconds(timeout))"
        case .transport(let error):
            return "\(controller): \(command) did not complete: \(error.message)"
        case .malformedAnswer(let error):
            return "\(controller): the answer to \(command) could not be read (\(error))"
        case .unexpectedAnswer(let detail):
            return "\(controller): \(command) got an answer the specification does not allow: \(detail)"
        case .controllerReset:
            return "\(controller): the controller was reset while \(command) was pending (another program sent Reset, or the controller restarted); its effect is unknown"
        case .hardwareError(let code):
            return "\(controller): the controller reported hardware error \(HexText.code(code)) while \(command) was pending"
        case .invalidCommand(let error):
            return "\(controller): \(command) was not sent: \(error.message)"
        case .closed:
            return "\(controller): \(command) was not completed: the connection to the controller was closed"
        case .cancelled:
            return "\(controller): \(command) was cancelled before its answer arrived"
        }
    }

    /// Statuses that say the controller failed, rather than refused what was asked.
    private static func isFailure(_ status: HCIStatus) -> Bool {
        [.hardwareFailure, .unspecifiedError, .memoryCapacityExceeded].contains(status)
    }

    /// `2 s`, `250 ms`.
    private static func seconds(_ duration: Duration) -> String {
        let components = duration.components
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(milliseconds) ms"
    }
}
