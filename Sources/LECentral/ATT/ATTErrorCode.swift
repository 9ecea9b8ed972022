import HCI

/// An ATT error code from an Error Response (Core v5.4 Vol 3 Part F 3.4.1.1, table 3.4),
/// with what it means for the person running beaconctl. Open-ended: codes 0x80–0x9F are the
/// application's (a vendor's own refusals), 0xE0–0xFF common profile codes.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let invalidHandle = ATTErrorCode(rawValue: 0x01)
    public static let readNotPermitted = ATTErrorCode(rawValue: 0x02)
    public static let writeNotPermitted = ATTErrorCode(rawValue: 0x03)
    public static let invalidPDU = ATTErrorCode(rawValue: 0x04)
    public static let insufficientAuthentication = ATTErrorCode(rawValue: 0x05)
    public static let requestNotSupported = ATTErrorCode(rawValue: 0x06)
    public static let invalidOffset = ATTErrorCode(rawValue: 0x07)
    public static let insufficientAuthorization = ATTErrorCode(rawValue: 0x08)
    public static let prepareQueueFull = ATTErrorCode(rawValue: 0x09)
    public static let attributeNotFound = ATTErrorCode(rawValue: 0x0A)
    public static let attributeNotLong = ATTErrorCode(rawValue: 0x0B)
    public static let encryptionKeySizeTooShort = ATTErrorCode(rawValue: 0x0C)
    public static let invalidAttributeValueLength = ATTErrorCode(rawValue: 0x0D)
    public static let unlikelyError = ATTErrorCode(rawValue: 0x0E)
    public static let insufficientEncryption = ATTErrorCode(rawValue: 0x0F)
    public static let unsupportedGroupType = ATTErrorCode(rawValue: 0x10)
    public static let insufficientResources = ATTErrorCode(rawValue: 0x11)
    public static let databaseOutOfSync = ATTErrorCode(rawValue: 0x12)
    public static let valueNotAllowed = ATTErrorCode(rawValue: 0x13)

    /// The spec's name and, after a colon, what it means in plain words.
    public var meaning: String {
        switch rawValue {
        case 0x01: return "Invalid Handle: the beacon has no attribute at that handle"
        case 0x02: return "Read Not Permitted: the beacon does not let this value be read"
        case 0x03: return "Write Not Permitted: the beacon does not let this value be written"
        case 0x04: return "Invalid PDU: the beacon could not parse the request"
        case 0x05: return "Insufficient Authentication: the beacon wants a paired (bonded) link, and beaconctl does not pair"
        case 0x06: return "Request Not Supported: the beacon does not implement this request"
        case 0x07: return "Invalid Offset: the offset is past the end of the value"
        case 0x08: return "Insufficient Authorization: the beacon wants to be unlocked or authorised first"
        case 0x09: return "Prepare Queue Full: the beacon cannot queue a write this long"
        case 0x0A: return "Attribute Not Found: nothing in the handle range asked"
        case 0x0B: return "Attribute Not Long: the value cannot be read with an offset"
        case 0x0C: return "Encryption Key Size Too Short: the link's key is too short for this value"
        case 0x0D: return "Invalid Attribute Value Length: the beacon refused a value of this length"
        case 0x0E: return "Unlikely Error: the beacon failed the request for a reason it does not say"
        case 0x0F: return "Insufficient Encryption: the beacon wants an encrypted (paired) link, and beaconctl does not pair"
        case 0x10: return "Unsupported Group Type: the beacon cannot group attributes of that type"
        case 0x11: return "Insufficient Resources: the beacon ran out of memory for the request"
        case 0x12: return "Database Out Of Sync: the beacon's attributes changed; discover them again"
        case 0x13: return "Value Not Allowed: the beacon refused the value"
        case 0x80...0x9F: return "application error \(HexText.code(rawValue)): a refusal the beacon's vendor defines (often a wrong password or a locked beacon)"
        case 0xFC: return "Write Request Rejected: the beacon refused the write"
        case 0xFD: return "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: return "Procedure Already in Progress"
        case 0xFF: return "Out of Range: the value is outside what the beacon accepts"
        default: return "reserved error code \(HexText.code(rawValue))"
        }
    }

    /// `0x03 Write Not Permitted: …`.
    public var description: String { "\(HexText.code(rawValue)) \(meaning)" }

    /// Whether pairing would have been needed: the link is open but unencrypted.
    public var needsSecurity: Bool {
        self == .insufficientAuthentication || self == .insufficientEncryption || self == .encryptionKeySizeTooShort
    }
}
