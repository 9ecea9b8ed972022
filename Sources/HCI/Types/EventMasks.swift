/// The events the controller may send, for Set Event Mask (Core v5.4 Vol 4 Part E 7.3.1).
/// Bit n enables the event with code n + 1.
public struct HCIEventMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The mask bit of the event with `code`; `nil` for codes page 1 does not cover
    /// (0x00 and above 0x40, which Set Event Mask Page 2 controls).
    public init?(eventCode code: UInt8) {
        guard (0x01...0x40).contains(code) else { return nil }
        self.rawValue = 1 << UInt64(code - 1)
    }

    public static let disconnectionComplete = HCIEventMask(rawValue: 1 << 4)
    public static let encryptionChange = HCIEventMask(rawValue: 1 << 7)
    public static let readRemoteVersionInformationComplete = HCIEventMask(rawValue: 1 << 11)
    /// Hardware Error: the watchdog needs it to notice a controller that restarted.
    public static let hardwareError = HCIEventMask(rawValue: 1 << 15)
    /// Number Of Completed Packets (0x13): the ACL credits an LE central lives on.
    public static let numberOfCompletedPackets = HCIEventMask(rawValue: 1 << 18)
    public static let dataBufferOverflow = HCIEventMask(rawValue: 1 << 25)
    public static let encryptionKeyRefreshComplete = HCIEventMask(rawValue: 1 << 47)
    /// LE Meta: without it no LE subevent (advertising reports, set terminated) arrives.
    public static let leMeta = HCIEventMask(rawValue: 1 << 61)

    /// The controller's mask after Reset (0x00001FFFFFFFFFFF): LE Meta is off.
    public static let specDefault = HCIEventMask(rawValue: 0x0000_1FFF_FFFF_FFFF)

    /// What a beacon host needs: the spec default plus LE Meta.
    public static let beaconHost: HCIEventMask = specDefault.union(.leMeta)
}

/// The LE subevents the controller may send, for LE Set Event Mask
/// (Core v5.4 Vol 4 Part E 7.8.1). Bit n enables the subevent with code n + 1.
public struct LEEventMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The mask bit of the LE subevent with `code`; `nil` for 0x00 and above 0x40.
    public init?(subeventCode code: UInt8) {
        guard (0x01...0x40).contains(code) else { return nil }
        self.rawValue = 1 << UInt64(code - 1)
    }

    public static let connectionComplete = LEEventMask(rawValue: 1 << 0)
    public static let advertisingReport = LEEventMask(rawValue: 1 << 1)
    public static let connectionUpdateComplete = LEEventMask(rawValue: 1 << 2)
    public static let readRemoteFeaturesComplete = LEEventMask(rawValue: 1 << 3)
    public static let longTermKeyRequest = LEEventMask(rawValue: 1 << 4)
    public static let enhancedConnectionComplete = LEEventMask(rawValue: 1 << 9)
    public static let extendedAdvertisingReport = LEEventMask(rawValue: 1 << 12)
    public static let scanTimeout = LEEventMask(rawValue: 1 << 16)
    public static let advertisingSetTerminated = LEEventMask(rawValue: 1 << 17)
    public static let scanRequestReceived = LEEventMask(rawValue: 1 << 18)

    /// The controller's mask after Reset (0x000000000000001F).
    public static let specDefault = LEEventMask(rawValue: 0x1F)

    /// What an LE central needs beyond the beacon host's: both connection-complete forms
    /// and the connection update.
    public static let central: LEEventMask = [.connectionComplete, .enhancedConnectionComplete, .connectionUpdateComplete]

    /// What beaconctl listens to: both report kinds, set terminated, scan timeout.
    public static let beaconHost: LEEventMask = [
        .advertisingReport, .extendedAdvertisingReport, .advertisingSetTerminated, .scanTimeout,
    ]
}
