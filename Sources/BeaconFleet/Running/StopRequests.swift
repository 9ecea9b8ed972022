/// How a front end lets its user stop a long run (Ctrl-C or SIGTERM on the command line).
/// A use case runs the part of its work the user may stop through `stoppable`; what comes
/// before (opening a controller) and after (a publisher's last messages, the final counts) is
/// not cancelled with it, so a stop ends the run the way its end would.
public protocol StopRequests: Sendable {
    /// Runs `operation`, cancelling it when the user asks to stop. Returns its value and, when
    /// the user stopped it, why (worded for a message: "interrupted by SIGINT").
    func stoppable<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) async -> (value: Value, stop: UserStop?)
}

/// Why a run was stopped, worded for the user ("interrupted by SIGTERM").
public struct UserStop: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension StopRequests {
    /// `stoppable` for a throwing `operation`: its value, or its error; a stop throws the
    /// `UserStop` whatever the operation returned, as what it gathered is partial.
    public func stoppableThrowing<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let (outcome, stop) = await stoppable { () -> Result<Value, any Error> in
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        if let stop { throw stop }
        return try outcome.get()
    }
}

/// No user to stop the run: it ends on its own, or when its task is cancelled.
public struct NoStopRequests: StopRequests {
    public init() {}

    public func stoppable<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) async -> (value: Value, stop: UserStop?) {
        (await operation(), nil)
    }
}
