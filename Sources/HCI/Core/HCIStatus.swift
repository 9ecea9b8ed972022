/// A status / error code from a Command Complete, Command Status or completion event
/// (Core v5.4 Vol 1 Part F 1.3, "List of error codes").
///
/// Codes this table does not know (reserved today, defined by a later Core version) decode
/// as `.unknown(code)` instead of failing: a controller's answer is never dropped for that.
public enum HCIStatus: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    case success
    case unknownHCICommand
    case unknownConnectionIdentifier
    case hardwareFailure
    case pageTimeout
    case authenticationFailure
    case pinOrKeyMissing
    case memoryCapacityExceeded
    case connectionTimeout
    case connectionLimitExceeded
    case synchronousConnectionLimitExceeded
    case connectionAlreadyExists
    case commandDisallowed
    case connectionRejectedLimitedResources
    case connectionRejectedSecurityReasons
    case connectionRejectedUnacceptableAddress
    case connectionAcceptTimeoutExceeded
    case unsupportedFeatureOrParameterValue
    case invalidHCICommandParameters
    case remoteUserTerminatedConnection
    case remoteDeviceTerminatedLowResources
    case remoteDeviceTerminatedPowerOff
    case connectionTerminatedByLocalHost
    case repeatedAttempts
    case pairingNotAllowed
    case unknownLMPPDU
    case unsupportedRemoteFeature
    case scoOffsetRejected
    case scoIntervalRejected
    case scoAirModeRejected
    case invalidLMPOrLLParameters
    case unspecifiedError
    case unsupportedLMPOrLLParameterValue
    case roleChangeNotAllowed
    case lmpOrLLResponseTimeout
    case lmpOrLLProcedureCollision
    case lmpPDUNotAllowed
    case encryptionModeNotAcceptable
    case linkKeyCannotBeChanged
    case requestedQoSNotSupported
    case instantPassed
    case pairingWithUnitKeyNotSupported
    case differentTransactionCollision
    case qosUnacceptableParameter
    case qosRejected
    case channelClassificationNotSupported
    case insufficientSecurity
    case parameterOutOfMandatoryRange
    case roleSwitchPending
    case reservedSlotViolation
    case roleSwitchFailed
    case extendedInquiryResponseTooLarge
    case secureSimplePairingNotSupportedByHost
    case hostBusyPairing
    case connectionRejectedNoSuitableChannel
    case controllerBusy
    case unacceptableConnectionParameters
    case advertisingTimeout
    case connectionTerminatedMICFailure
    case connectionFailedToBeEstablished
    case coarseClockAdjustmentRejected
    case type0SubmapNotDefined
    case unknownAdvertisingIdentifier
    case limitReached
    case operationCancelledByHost
    case packetTooLong
    /// A code missing from the table below. `init(rawValue:)` never produces `.unknown`
    /// for a known code.
    case unknown(UInt8)

    public init(rawValue: UInt8) {
        self = Self.byCode[rawValue]?.status ?? .unknown(rawValue)
    }

    /// A switch rather than a table lookup: equality and hashing go through `rawValue`,
    /// so it must not hash `HCIStatus` values itself.
    public var rawValue: UInt8 {
        switch self {
        case .success: return 0x00
        case .unknownHCICommand: return 0x01
        case .unknownConnectionIdentifier: return 0x02
        case .hardwareFailure: return 0x03
        case .pageTimeout: return 0x04
        case .authenticationFailure: return 0x05
        case .pinOrKeyMissing: return 0x06
        case .memoryCapacityExceeded: return 0x07
        case .connectionTimeout: return 0x08
        case .connectionLimitExceeded: return 0x09
        case .synchronousConnectionLimitExceeded: return 0x0A
        case .connectionAlreadyExists: return 0x0B
        case .commandDisallowed: return 0x0C
        case .connectionRejectedLimitedResources: return 0x0D
        case .connectionRejectedSecurityReasons: return 0x0E
        case .connectionRejectedUnacceptableAddress: return 0x0F
        case .connectionAcceptTimeoutExceeded: return 0x10
        case .unsupportedFeatureOrParameterValue: return 0x11
        case .invalidHCICommandParameters: return 0x12
        case .remoteUserTerminatedConnection: return 0x13
        case .remoteDeviceTerminatedLowResources: return 0x14
        case .remoteDeviceTerminatedPowerOff: return 0x15
        case .connectionTerminatedByLocalHost: return 0x16
        case .repeatedAttempts: return 0x17
        case .pairingNotAllowed: return 0x18
        case .unknownLMPPDU: return 0x19
        case .unsupportedRemoteFeature: return 0x1A
        case .scoOffsetRejected: return 0x1B
        case .scoIntervalRejected: return 0x1C
        case .scoAirModeRejected: return 0x1D
        case .invalidLMPOrLLParameters: return 0x1E
        case .unspecifiedError: return 0x1F
        case .unsupportedLMPOrLLParameterValue: return 0x20
        case .roleChangeNotAllowed: return 0x21
        case .lmpOrLLResponseTimeout: return 0x22
        case .lmpOrLLProcedureCollision: return 0x23
        case .lmpPDUNotAllowed: return 0x24
        case .encryptionModeNotAcceptable: return 0x25
        case .linkKeyCannotBeChanged: return 0x26
        case .requestedQoSNotSupported: return 0x27
        case .instantPassed: return 0x28
        case .pairingWithUnitKeyNotSupported: return 0x29
        case .differentTransactionCollision: return 0x2A
        case .qosUnacceptableParameter: return 0x2C
        case .qosRejected: return 0x2D
        case .channelClassificationNotSupported: return 0x2E
        case .insufficientSecurity: return 0x2F
        case .parameterOutOfMandatoryRange: return 0x30
        case .roleSwitchPending: return 0x32
        case .reservedSlotViolation: return 0x34
        case .roleSwitchFailed: return 0x35
        case .extendedInquiryResponseTooLarge: return 0x36
        case .secureSimplePairingNotSupportedByHost: return 0x37
        case .hostBusyPairing: return 0x38
        case .connectionRejectedNoSuitableChannel: return 0x39
        case .controllerBusy: return 0x3A
        case .unacceptableConnectionParameters: return 0x3B
        case .advertisingTimeout: return 0x3C
        case .connectionTerminatedMICFailure: return 0x3D
        case .connectionFailedToBeEstablished: return 0x3E
        case .coarseClockAdjustmentRejected: return 0x40
        case .type0SubmapNotDefined: return 0x41
        case .unknownAdvertisingIdentifier: return 0x42
        case .limitReached: return 0x43
        case .operationCancelledByHost: return 0x44
        case .packetTooLong: return 0x45
        case .unknown(let code): return code
        }
    }

    /// Equal when the codes are: `.unknown(0x0C)` equals `.commandDisallowed`.
    public static func == (lhs: HCIStatus, rhs: HCIStatus) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// The specification's name for the code, e.g. `Command Disallowed`.
    public var name: String {
        if case .unknown(let code) = self { return "unknown error code \(HexText.code(code))" }
        return Self.byCode[rawValue]?.name ?? "unknown error code \(HexText.code(rawValue))"
    }

    /// `0x0C Command Disallowed`.
    public var description: String {
        if case .unknown = self { return "\(HexText.code(rawValue)) unknown error code" }
        return "\(HexText.code(rawValue)) \(name)"
    }

    public var isSuccess: Bool { self == .success }

    // Codes 0x2B, 0x31 and 0x33 are reserved, 0x3F is "previously used".
    private static let table: [(code: UInt8, status: HCIStatus, name: String)] = [
        (0x00, .success, "Success"),
        (0x01, .unknownHCICommand, "Unknown HCI Command"),
        (0x02, .unknownConnectionIdentifier, "Unknown Connection Identifier"),
        (0x03, .hardwareFailure, "Hardware Failure"),
        (0x04, .pageTimeout, "Page Timeout"),
        (0x05, .authenticationFailure, "Authentication Failure"),
        (0x06, .pinOrKeyMissing, "PIN or Key Missing"),
        (0x07, .memoryCapacityExceeded, "Memory Capacity Exceeded"),
        (0x08, .connectionTimeout, "Connection Timeout"),
        (0x09, .connectionLimitExceeded, "Connection Limit Exceeded"),
        (0x0A, .synchronousConnectionLimitExceeded, "Synchronous Connection Limit To A Device Exceeded"),
        (0x0B, .connectionAlreadyExists, "Connection Already Exists"),
        (0x0C, .commandDisallowed, "Command Disallowed"),
        (0x0D, .connectionRejectedLimitedResources, "Connection Rejected due to Limited Resources"),
        (0x0E, .connectionRejectedSecurityReasons, "Connection Rejected Due To Security Reasons"),
        (0x0F, .connectionRejectedUnacceptableAddress, "Connection Rejected due to Unacceptable BD_ADDR"),
        (0x10, .connectionAcceptTimeoutExceeded, "Connection Accept Timeout Exceeded"),
        (0x11, .unsupportedFeatureOrParameterValue, "Unsupported Feature or Parameter Value"),
        (0x12, .invalidHCICommandParameters, "Invalid HCI Command Parameters"),
        (0x13, .remoteUserTerminatedConnection, "Remote User Terminated Connection"),
        (0x14, .remoteDeviceTerminatedLowResources, "Remote Device Terminated Connection due to Low Resources"),
        (0x15, .remoteDeviceTerminatedPowerOff, "Remote Device Terminated Connection due to Power Off"),
        (0x16, .connectionTerminatedByLocalHost, "Connection Terminated By Local Host"),
        (0x17, .repeatedAttempts, "Repeated Attempts"),
        (0x18, .pairingNotAllowed, "Pairing Not Allowed"),
        (0x19, .unknownLMPPDU, "Unknown LMP PDU"),
        (0x1A, .unsupportedRemoteFeature, "Unsupported Remote Feature"),
        (0x1B, .scoOffsetRejected, "SCO Offset Rejected"),
        (0x1C, .scoIntervalRejected, "SCO Interval Rejected"),
        (0x1D, .scoAirModeRejected, "SCO Air Mode Rejected"),
        (0x1E, .invalidLMPOrLLParameters, "Invalid LMP Parameters / Invalid LL Parameters"),
        (0x1F, .unspecifiedError, "Unspecified Error"),
        (0x20, .unsupportedLMPOrLLParameterValue, "Unsupported LMP Parameter Value / Unsupported LL Parameter Value"),
        (0x21, .roleChangeNotAllowed, "Role Change Not Allowed"),
        (0x22, .lmpOrLLResponseTimeout, "LMP Response Timeout / LL Response Timeout"),
        (0x23, .lmpOrLLProcedureCollision, "LMP Error Transaction Collision / LL Procedure Collision"),
        (0x24, .lmpPDUNotAllowed, "LMP PDU Not Allowed"),
        (0x25, .encryptionModeNotAcceptable, "Encryption Mode Not Acceptable"),
        (0x26, .linkKeyCannotBeChanged, "Link Key cannot be Changed"),
        (0x27, .requestedQoSNotSupported, "Requested QoS Not Supported"),
        (0x28, .instantPassed, "Instant Passed"),
        (0x29, .pairingWithUnitKeyNotSupported, "Pairing With Unit Key Not Supported"),
        (0x2A, .differentTransactionCollision, "Different Transaction Collision"),
        (0x2C, .qosUnacceptableParameter, "QoS Unacceptable Parameter"),
        (0x2D, .qosRejected, "QoS Rejected"),
        (0x2E, .channelClassificationNotSupported, "Channel Classification Not Supported"),
        (0x2F, .insufficientSecurity, "Insufficient Security"),
        (0x30, .parameterOutOfMandatoryRange, "Parameter Out Of Mandatory Range"),
        (0x32, .roleSwitchPending, "Role Switch Pending"),
        (0x34, .reservedSlotViolation, "Reserved Slot Violation"),
        (0x35, .roleSwitchFailed, "Role Switch Failed"),
        (0x36, .extendedInquiryResponseTooLarge, "Extended Inquiry Response Too Large"),
        (0x37, .secureSimplePairingNotSupportedByHost, "Secure Simple Pairing Not Supported By Host"),
        (0x38, .hostBusyPairing, "Host Busy - Pairing"),
        (0x39, .connectionRejectedNoSuitableChannel, "Connection Rejected due to No Suitable Channel Found"),
        (0x3A, .controllerBusy, "Controller Busy"),
        (0x3B, .unacceptableConnectionParameters, "Unacceptable Connection Parameters"),
        (0x3C, .advertisingTimeout, "Advertising Timeout"),
        (0x3D, .connectionTerminatedMICFailure, "Connection Terminated due to MIC Failure"),
        (0x3E, .connectionFailedToBeEstablished, "Connection Failed to be Established / Synchronization Timeout"),
        (0x40, .coarseClockAdjustmentRejected, "Coarse Clock Adjustment Rejected but Will Try to Adjust Using Clock Dragging"),
        (0x41, .type0SubmapNotDefined, "Type0 Submap Not Defined"),
        (0x42, .unknownAdvertisingIdentifier, "Unknown Advertising Identifier"),
        (0x43, .limitReached, "Limit Reached"),
        (0x44, .operationCancelledByHost, "Operation Cancelled by Host"),
        (0x45, .packetTooLong, "Packet Too Long"),
    ]

    private static let byCode: [UInt8: (status: HCIStatus, name: String)] =
        Dictionary(uniqueKeysWithValues: table.map { ($0.code, ($0.status, $0.name)) })

    /// Every status with a name in the table, in code order.
    public static var allKnown: [HCIStatus] { table.map(\.status) }
}
