import BeaconCore
import HCI

/// What a virtual controller is: its identity, what it supports, where it stands.
///
/// Defaults describe a Bluetooth 5.3 LE-only controller with extended advertising,
/// 16 advertising sets, 1650 bytes of advertising data per set and TX power from −20 to
/// +10 dBm, standing at the origin of the plan.
public struct VirtualControllerConfiguration: Hashable, Sendable {
    /// The public address Read BD_ADDR returns and legacy advertising uses; `nil` for the
    /// deterministic address of the controller's slot on its air (``defaultAddress(slot:)``).
    public var address: BluetoothAddress?
    public var motion: Motion
    /// The LE features reported (Core v5.4 Vol 6 Part B 4.6). Only the extended
    /// advertising bit (12) changes behaviour: without it the extended command family is
    /// unknown to the controller (Unknown HCI Command), as on a Bluetooth 4.x controller.
    public var leFeatures: LEFeatures
    /// How many advertising sets exist at once (LE Read Number of Supported Advertising
    /// Sets); clamped to 1…240, the handles there are.
    public var advertisingSetCount: Int
    /// LE Read Maximum Advertising Data Length; clamped to 31…1650 (Core v5.4 Vol 4 Part E 7.8.57).
    public var maximumAdvertisingDataLength: Int
    /// The TX power legacy advertising uses, which LE Read Advertising Physical Channel Tx
    /// Power reports; clamped into `txPowerRange`.
    public var legacyTxPower: Int8
    /// The powers an advertising set can be given. A request above the range gets the
    /// maximum, one below it the minimum (the controller cannot go lower, and says so in
    /// Selected_Tx_Power).
    public var txPowerRange: ClosedRange<Int8>
    /// The power of an advertising set whose host has no preference (0x7F).
    public var defaultTxPower: Int8
    /// What Read Local Version Information returns.
    public var version: ReadLocalVersionInformation.ReturnParameters

    public init(
        address: BluetoothAddress? = nil,
        motion: Motion = .origin,
        leFeatures: LEFeatures = [.extendedAdvertising],
        advertisingSetCount: Int = 16,
        maximumAdvertisingDataLength: Int = 1650,
        legacyTxPower: Int8 = 0,
        txPowerRange: ClosedRange<Int8> = -20...10,
        defaultTxPower: Int8 = 0,
        version: ReadLocalVersionInformation.ReturnParameters = VirtualControllerConfiguration.virtualControllerVersion
    ) {
        self.address = address
        self.motion = motion
        self.leFeatures = leFeatures
        self.advertisingSetCount = advertisingSetCount
        self.maximumAdvertisingDataLength = maximumAdvertisingDataLength
        self.legacyTxPower = legacyTxPower
        self.txPowerRange = txPowerRange
        self.defaultTxPower = defaultTxPower
        self.version = version
    }

    /// A controller at `position`.
    public static func at(_ position: PlanPoint) -> VirtualControllerConfiguration {
        VirtualControllerConfiguration(motion: .fixed(position))
    }

    /// Whether the extended advertising command family exists on this controller.
    public var supportsExtendedAdvertising: Bool {
        get { leFeatures.contains(.extendedAdvertising) }
        set {
            if newValue { leFeatures.insert(.extendedAdvertising) } else { leFeatures.remove(.extendedAdvertising) }
        }
    }

    /// Bluetooth 5.3 (HCI and LMP version 0x0C), subversions 0x0001, and company
    /// identifier 0xFFFF, which the Bluetooth SIG leaves unassigned for tests: no real
    /// manufacturer's controller reports it, so a log shows at once that it was virtual.
    public static let virtualControllerVersion = ReadLocalVersionInformation.ReturnParameters(
        hciVersion: .v5_3, hciSubversion: 0x0001, lmpVersion: .v5_3,
        companyIdentifier: 0xFFFF, lmpSubversion: 0x0001)

    /// `06:BE:AC:00:00:01` for the first controller of an air, `…:02` for the second:
    /// deterministic, so runs and logs compare. The first octet has the IEEE
    /// locally-administered bit (0x02) set and the group bit (0x01) clear, so the address
    /// can be no manufacturer's registered one.
    public static func defaultAddress(slot: Int) -> BluetoothAddress {
        let prefix: UInt64 = 0x06_BE_AC << 24
        return BluetoothAddress(value: prefix | (UInt64(truncatingIfNeeded: slot + 1) & 0xFF_FFFF)) ?? .zero
    }

    /// The configuration with every number brought into its documented range.
    var normalized: VirtualControllerConfiguration {
        var copy = self
        copy.advertisingSetCount = min(max(advertisingSetCount, 1), 240)
        copy.maximumAdvertisingDataLength = min(max(maximumAdvertisingDataLength, 31), 1650)
        copy.legacyTxPower = min(max(legacyTxPower, txPowerRange.lowerBound), txPowerRange.upperBound)
        copy.defaultTxPower = min(max(defaultTxPower, txPowerRange.lowerBound), txPowerRange.upperBound)
        return copy
    }
}
