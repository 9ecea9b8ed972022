/// Advertising_Type of LE Set Advertising Parameters (Core v5.4 Vol 4 Part E 7.8.5).
public enum LegacyAdvertisingType: UInt8, Hashable, Sendable, CaseIterable {
    /// ADV_IND
    case connectableUndirected = 0x00
    /// ADV_DIRECT_IND, high duty cycle
    case connectableDirectedHighDutyCycle = 0x01
    /// ADV_SCAN_IND
    case scannableUndirected = 0x02
    /// ADV_NONCONN_IND: what a beacon sends.
    case nonConnectableUndirected = 0x03
    /// ADV_DIRECT_IND, low duty cycle
    case connectableDirectedLowDutyCycle = 0x04
}

/// Advertising_Channel_Map: which of the three primary advertising channels to use
/// (Core v5.4 Vol 4 Part E 7.8.5). At least one bit must be set.
public struct AdvertisingChannelMap: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let channel37 = AdvertisingChannelMap(rawValue: 1 << 0)
    public static let channel38 = AdvertisingChannelMap(rawValue: 1 << 1)
    public static let channel39 = AdvertisingChannelMap(rawValue: 1 << 2)
    public static let all: AdvertisingChannelMap = [.channel37, .channel38, .channel39]

    /// Non-empty and no reserved bits.
    public var isValid: Bool { rawValue != 0 && rawValue & ~Self.all.rawValue == 0 }
}

/// Advertising_Filter_Policy (Core v5.4 Vol 4 Part E 7.8.5).
public enum AdvertisingFilterPolicy: UInt8, Hashable, Sendable, CaseIterable {
    /// Scan and connection requests from any device.
    case acceptAll = 0x00
    case scanFilterAcceptListConnectAll = 0x01
    case scanAllConnectFilterAcceptList = 0x02
    case filterAcceptListOnly = 0x03
}

/// Advertising_Event_Properties of LE Set Extended Advertising Parameters
/// (Core v5.4 Vol 4 Part E 7.8.53).
public struct AdvertisingEventProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public static let connectable = AdvertisingEventProperties(rawValue: 1 << 0)
    public static let scannable = AdvertisingEventProperties(rawValue: 1 << 1)
    public static let directed = AdvertisingEventProperties(rawValue: 1 << 2)
    public static let highDutyCycleDirected = AdvertisingEventProperties(rawValue: 1 << 3)
    /// Send legacy PDUs from an advertising set: seen by every scanner, at most 31 data bytes.
    public static let legacy = AdvertisingEventProperties(rawValue: 1 << 4)
    public static let anonymous = AdvertisingEventProperties(rawValue: 1 << 5)
    public static let includeTxPower = AdvertisingEventProperties(rawValue: 1 << 6)

    /// 0x0010: ADV_NONCONN_IND from an advertising set, the beacon's choice.
    public static let legacyNonConnectable: AdvertisingEventProperties = [.legacy]
}

/// An LE PHY as advertising sets and extended reports name it (Core v5.4 Vol 4 Part E
/// 7.8.53, 7.7.65.13). Open-ended: reports may carry values added by later Core versions.
public struct LEPhy: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let le1M = LEPhy(rawValue: 0x01)
    public static let le2M = LEPhy(rawValue: 0x02)
    public static let leCoded = LEPhy(rawValue: 0x03)

    public var description: String {
        switch self {
        case .le1M: return "LE 1M"
        case .le2M: return "LE 2M"
        case .leCoded: return "LE Coded"
        default: return "PHY \(HexText.code(rawValue))"
        }
    }
}

/// LE_Scan_Type (Core v5.4 Vol 4 Part E 7.8.10).
public enum ScanType: UInt8, Hashable, Sendable, CaseIterable {
    /// Listen only: a beacon scanner's choice, nothing is sent.
    case passive = 0x00
    /// Send scan requests to get scan responses.
    case active = 0x01
}

/// Scanning_Filter_Policy (Core v5.4 Vol 4 Part E 7.8.10).
public enum ScanFilterPolicy: UInt8, Hashable, Sendable, CaseIterable {
    case basicUnfiltered = 0x00
    case basicFiltered = 0x01
    case extendedUnfiltered = 0x02
    case extendedFiltered = 0x03
}

/// Filter_Duplicates of the scan enable commands (Core v5.4 Vol 4 Part E 7.8.11, 7.8.65).
public enum ScanDuplicateFilter: UInt8, Hashable, Sendable, CaseIterable {
    /// Every advertisement is reported: needed to follow a beacon's RSSI over time.
    case disabled = 0x00
    case enabled = 0x01
    /// Extended scanning only: filter, but forget what was seen at each scan period.
    case enabledResetEachPeriod = 0x02
}

/// Operation of LE Set Extended Advertising Data (Core v5.4 Vol 4 Part E 7.8.54).
public enum AdvertisingDataOperation: UInt8, Hashable, Sendable, CaseIterable {
    case intermediateFragment = 0x00
    case firstFragment = 0x01
    case lastFragment = 0x02
    /// The whole data in one command: what a beacon's 30 bytes use.
    case complete = 0x03
    /// Keep the data, only change the Advertising DID.
    case unchangedData = 0x04
}

/// Fragment_Preference of LE Set Extended Advertising Data (Core v5.4 Vol 4 Part E 7.8.54).
public enum AdvertisingFragmentPreference: UInt8, Hashable, Sendable, CaseIterable {
    case mayFragment = 0x00
    case shouldNotFragment = 0x01
}
