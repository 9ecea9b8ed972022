import BeaconCore

/// Why bytes could not be read as the HCI structure expected. Every case says where: the
/// structure's name and the byte offset inside it.
public enum HCIDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The structure ended early: `needed` bytes were required at `offset`, `available` remained.
    case truncated(structure: String, offset: Int, needed: Int, available: Int)
    /// `count` bytes followed the last field of a structure whose length the spec fixes.
    case trailingBytes(structure: String, offset: Int, count: Int)
    /// A length field disagrees with the number of bytes actually present.
    case lengthMismatch(structure: String, declared: Int, actual: Int)
    /// A field holds a value the spec reserves or forbids.
    case invalidValue(structure: String, field: String, value: Int, expected: String)
    /// The fields are each valid but contradict each other (e.g. minimum above maximum).
    case inconsistentParameters(structure: String, reason: String)
    /// The packet is another kind than the one being decoded (e.g. ACL data given to the event decoder).
    case wrongPacketType(expected: HCIPacketType, found: HCIPacketType)
    /// The command packet carries another opcode than the command type being decoded.
    case wrongOpcode(expected: HCIOpcode, found: HCIOpcode)

    public var description: String {
        switch self {
        case .truncated(let structure, let offset, let needed, let available):
            return "\(structure): cut short at byte \(offset): \(NumberText.count(needed, "more byte")) needed, \(available) left"
        case .trailingBytes(let structure, let offset, let count):
            return "\(structure): \(NumberText.count(count, "unexpected byte")) after the last field (at byte \(offset))"
        case .lengthMismatch(let structure, let declared, let actual):
            return "\(structure): length field says \(declared) bytes but \(actual) are present"
        case .invalidValue(let structure, let field, let value, let expected):
            return "\(structure): \(field) is \(HexText.code(value)), expected \(expected)"
        case .inconsistentParameters(let structure, let reason):
            return "\(structure): \(reason)"
        case .wrongPacketType(let expected, let found):
            return "expected an HCI \(expected) packet, got an HCI \(found) packet"
        case .wrongOpcode(let expected, let found):
            return "expected \(expected), got \(found)"
        }
    }
}

/// Why a command cannot be built from the values given: raised before anything is sent.
public struct HCIParameterError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
