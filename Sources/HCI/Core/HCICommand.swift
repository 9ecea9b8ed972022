/// Which event answers a command (Core v5.4 Vol 4 Part E 4.4 and each command's
/// "Event(s) generated" section).
public enum HCICommandCompletion: Sendable, Hashable {
    /// Command Complete, carrying the status and the return parameters.
    case commandComplete
    /// Command Status: the controller accepted (or refused) the command; the result comes
    /// later in a command-specific event.
    case commandStatus
}

/// One HCI command as a typed value, both directions: a host encodes its parameters and
/// decodes its return parameters; a virtual controller decodes the parameters and encodes
/// the return parameters.
///
/// Return parameters here are those after the status octet, which the host controller
/// checks before anything else (every Command Complete we use starts with Status).
public protocol HCICommand: Sendable {
    associatedtype ReturnParameters: Sendable

    static var opcode: HCIOpcode { get }
    static var completion: HCICommandCompletion { get }

    /// Appends the command's parameters (not the opcode nor the length octet).
    func encodeParameters(into bytes: inout [UInt8])

    /// Reads the command from its parameters. The length is exact: bytes left over are an
    /// error, as is any reserved value. A virtual controller answers such a command with
    /// Invalid HCI Command Parameters (0x12).
    static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> Self

    /// Reads the return parameters that follow the status octet of a successful
    /// Command Complete. Bytes beyond the known fields are ignored, as the Linux kernel
    /// does, so that a controller built to a later Core version that appends fields works.
    static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReturnParameters

    /// Appends the return parameters that follow the status octet.
    static func encodeReturnParameters(_ value: ReturnParameters, into bytes: inout [UInt8])
}

extension HCICommand {
    public static var completion: HCICommandCompletion { .commandComplete }

    /// The command's name for messages.
    public static var name: String { opcode.displayName }

    /// The parameters as bytes.
    public var encodedParameters: [UInt8] {
        var bytes: [UInt8] = []
        encodeParameters(into: &bytes)
        return bytes
    }
}

/// Commands without parameters.
public protocol HCIParameterlessCommand: HCICommand {
    init()
}

extension HCIParameterlessCommand {
    public func encodeParameters(into bytes: inout [UInt8]) {}

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> Self {
        try HCIByteReader(bytes, structure: "\(name) parameters").expectEnd()
        return Self()
    }
}

extension HCICommand where ReturnParameters == Void {
    /// Status only: anything after it is ignored, like any unknown trailing field.
    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {}

    public static func encodeReturnParameters(_ value: Void, into bytes: inout [UInt8]) {}
}
