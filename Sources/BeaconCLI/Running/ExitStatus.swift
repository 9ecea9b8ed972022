import ArgumentParser

/// The exit codes every command uses (documented in the README):
/// 0 all good; 1 findings (invalid manifest, failed verification); 2 usage or unreadable
/// input; 3 controller or transport failure.
public enum ExitStatus: Int32, Sendable {
    case clean = 0
    case findings = 1
    case usageOrInput = 2
    case controller = 3

    var exitCode: ExitCode { ExitCode(rawValue) }
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
