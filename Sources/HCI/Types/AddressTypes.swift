/// The type of an address reported by the controller in advertising reports
/// (Core v5.4 Vol 4 Part E 7.7.65.2 and 7.7.65.13).
///
/// Open-ended on purpose: a report with a type this code does not know is still a report,
/// so unknown values are kept rather than rejected.
public struct LEAddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let `public` = LEAddressType(rawValue: 0x00)
    public static let random = LEAddressType(rawValue: 0x01)
    /// A public identity address resolved by the controller from a resolvable private address.
    public static let publicIdentity = LEAddressType(rawValue: 0x02)
    /// A static random identity address resolved by the controller.
    public static let randomIdentity = LEAddressType(rawValue: 0x03)
    /// A resolvable private address the controller could not resolve (extended reports only).
    public static let unresolvedResolvable = LEAddressType(rawValue: 0xFE)
    /// No address was sent: anonymous advertising (extended reports only).
    public static let anonymous = LEAddressType(rawValue: 0xFF)

    public var description: String {
        switch self {
        case .public: return "public"
        case .random: return "random"
        case .publicIdentity: return "public identity"
        case .randomIdentity: return "random identity"
        case .unresolvedResolvable: return "unresolved resolvable"
        case .anonymous: return "anonymous"
        default: return "address type \(HexText.code(rawValue))"
        }
    }
}

/// Which address the controller puts in the packets it sends (Own_Address_Type,
/// Core v5.4 Vol 4 Part E 7.8.5).
public enum OwnAddressType: UInt8, Hashable, Sendable, CaseIterable {
    case `public` = 0x00
    /// The address set with LE Set Random Address (legacy) or LE Set Advertising Set Random
    /// Address (extended).
    case random = 0x01
    case resolvableOrPublic = 0x02
    case resolvableOrRandom = 0x03
}

/// The type of a peer address in a command (Peer_Address_Type, Core v5.4 Vol 4 Part E 7.8.5).
public enum PeerAddressType: UInt8, Hashable, Sendable, CaseIterable {
    case `public` = 0x00
    case random = 0x01
}
