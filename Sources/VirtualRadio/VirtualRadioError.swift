/// Why the virtual radio could not do what was asked: an invalid walk, an unknown place,
/// an unreadable `virtual:` transport spec. The message says what is wrong and what to do.
public struct VirtualRadioError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
