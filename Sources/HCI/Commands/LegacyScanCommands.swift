/// LE Set Scan Parameters (Core v5.4 Vol 4 Part E 7.8.10):
/// `type u8 | interval u16 | window u16 | own_addr_type u8 | filter_policy u8` (7 octets).
public struct LESetScanParameters: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetScanParameters

    public let type: ScanType
    public let interval: ScanInterval
    public let window: ScanInterval
    public let ownAddressType: OwnAddressType
    public let filterPolicy: ScanFilterPolicy

    /// Checks interval and window against 2.5 ms – 10.24 s and window ≤ interval.
    public init(
        type: ScanType = .passive,
        interval: ScanInterval,
        window: ScanInterval,
        ownAddressType: OwnAddressType = .public,
        filterPolicy: ScanFilterPolicy = .basicUnfiltered
    ) throws(HCIParameterError) {
        for value in [interval, window] where !value.isLegacyCompatible {
            throw HCIParameterError("scan interval or window \(value) is outside 2.5 ms to 10240 ms, the range of legacy scanning")
        }
        guard window <= interval else {
            throw HCIParameterError("scan window \(window) is longer than the scan interval \(interval)")
        }
        self.type = type
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(type.rawValue)
        bytes.appendLittleEndian(interval.units)
        bytes.appendLittleEndian(window.units)
        bytes.append(ownAddressType.rawValue)
        bytes.append(filterPolicy.rawValue)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetScanParameters {
        let structure = "\(name) parameters"
        var reader = HCIByteReader(bytes, structure: structure)
        let type = try reader.readEnumeration(ScanType.self, field: "LE_Scan_Type")
        let interval = try reader.readScanInterval(field: "LE_Scan_Interval")
        let window = try reader.readScanInterval(field: "LE_Scan_Window")
        let ownAddressType = try reader.readEnumeration(OwnAddressType.self, field: "Own_Address_Type")
        let filterPolicy = try reader.readEnumeration(ScanFilterPolicy.self, field: "Scanning_Filter_Policy")
        try reader.expectEnd()
        do {
            return try LESetScanParameters(
                type: type, interval: interval, window: window, ownAddressType: ownAddressType, filterPolicy: filterPolicy)
        } catch {
            throw .inconsistentParameters(structure: structure, reason: error.message)
        }
    }
}

/// LE Set Scan Enable (Core v5.4 Vol 4 Part E 7.8.11): `enable u8 | filter_duplicates u8`.
public struct LESetScanEnable: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetScanEnable

    public var isEnabled: Bool
    /// Keep false to follow a beacon's RSSI: with it the controller reports each address once.
    public var filterDuplicates: Bool

    public init(_ isEnabled: Bool, filterDuplicates: Bool = false) {
        self.isEnabled = isEnabled
        self.filterDuplicates = filterDuplicates
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(isEnabled ? 0x01 : 0x00)
        bytes.append(filterDuplicates ? 0x01 : 0x00)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetScanEnable {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let isEnabled = try reader.readBoolean(field: "LE_Scan_Enable")
        let filterDuplicates = try reader.readBoolean(field: "Filter_Duplicates")
        try reader.expectEnd()
        return LESetScanEnable(isEnabled, filterDuplicates: filterDuplicates)
    }
}
