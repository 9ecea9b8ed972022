/// The seam of the test that runs every command with an error no command expects
/// (`UnexpectedErrorTests`): each command passes through `reached(_:)` where its work begins,
/// and a test's hook may answer with an error to throw there. Outside that test the hook is
/// `nil` and this does nothing.
enum UnexpectedErrorProbe {
    /// Given the command's name (`verify --watch`), the error to throw, or `nil` to go on.
    @TaskLocal static var hook: (@Sendable (String) -> (any Error)?)?

    static func reached(_ command: String) throws {
        if let error = hook?(command) { throw error }
    }
}
