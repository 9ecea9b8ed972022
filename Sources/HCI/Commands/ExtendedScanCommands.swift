/// LE Set Extended Scan Parameters (Core v5.4 Vol 4 Part E 7.8.64):
/// `own_addr_type u8 | filter_policy u8 | scanning_phys u8 | {type u8, interval u16,
/// window u16} per PHY bit set`, LE 1M (bit 0) before LE Coded (bit 2).
public struct LESetExtendedScanParameters: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetExtendedScanParameters

    /// How to scan on one PHY.
    public struct PHYParameters: Hashable, Sendable {
        public let type: ScanType
        public let interval: ScanInterval
        public let window: ScanInterval

        public init(type: ScanType = .passive, interval: ScanInterval, window: ScanInterval) throws(HCIParameterError) {
            guard window <= interval else {
                throw HCIParameterError("scan window \(window) is longer than the scan interval \(interval)")
            }
            self.type = type
            self.interval = interval
            self.window = window
        }
    }

    public let ownAddressType: OwnAddressType
    public let filterPolicy: ScanFilterPolicy
    /// Scanning on LE 1M, where every beacon advertises.
    public let le1M: PHYParameters?
    /// Scanning on LE Coded (long range).
    public let leCoded: PHYParameters?

    public init(
        ownAddressType: OwnAddressType = .public,
        filterPolicy: ScanFilterPolicy = .basicUnfiltered,
        le1M: PHYParameters?,
        leCoded: PHYParameters? = nil
    ) throws(HCIParameterError) {
        guard le1M != nil || leCoded != nil else {
            throw HCIParameterError("extended scanning needs parameters for LE 1M, LE Coded or both")
        }
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
        self.le1M = le1M
        self.leCoded = leCoded
    }

    private static let le1MBit: UInt8 = 1 << 0
    private static let leCodedBit: UInt8 = 1 << 2

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(ownAddressType.rawValue)
        bytes.append(filterPolicy.rawValue)
        bytes.append((le1M == nil ? 0 : Self.le1MBit) | (leCoded == nil ? 0 : Self.leCodedBit))
        for phy in [le1M, leCoded].compactMap({ $0 }) {
            bytes.append(phy.type.rawValue)
            bytes.appendLittleEndian(phy.interval.units)
            bytes.appendLittleEndian(phy.window.units)
        }
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetExtendedScanParameters {
        let structure = "\(name) parameters"
        var reader = HCIByteReader(bytes, structure: structure)
        let ownAddressType = try reader.readEnumeration(OwnAddressType.self, field: "Own_Address_Type")
        let filterPolicy = try reader.readEnumeration(ScanFilterPolicy.self, field: "Scanning_Filter_Policy")
        let phys = try reader.readUInt8()
        // Only LE 1M and LE Coded can be scanned; bit 1 (LE 2M) and bits 3–7 are reserved.
        guard phys & ~(le1MBit | leCodedBit) == 0, phys != 0 else {
            throw reader.invalid("Scanning_PHYs", phys, expected: "bit 0 (LE 1M) and/or bit 2 (LE Coded)")
        }
        var le1M: PHYParameters?
        var leCoded: PHYParameters?
        if phys & le1MBit != 0 { le1M = try readPHYParameters(&reader) }
        if phys & leCodedBit != 0 { leCoded = try readPHYParameters(&reader) }
        try reader.expectEnd()
        do {
            return try LESetExtendedScanParameters(ownAddressType: ownAddressType, filterPolicy: filterPolicy, le1M: le1M, leCoded: leCoded)
        } catch {
            throw .inconsistentParameters(structure: structure, reason: error.message)
        }
    }

    private static func readPHYParameters(_ reader: inout HCIByteReader) throws(HCIDecodingError) -> PHYParameters {
        let type = try reader.readEnumeration(ScanType.self, field: "Scan_Type")
        let interval = try reader.readScanInterval(field: "Scan_Interval")
        let window = try reader.readScanInterval(field: "Scan_Window")
        do {
            return try PHYParameters(type: type, interval: interval, window: window)
        } catch {
            throw .inconsistentParameters(structure: reader.structure, reason: error.message)
        }
    }
}

/// LE Set Extended Scan Enable (Core v5.4 Vol 4 Part E 7.8.65):
/// `enable u8 | filter_duplicates u8 | duration u16 | period u16`.
public struct LESetExtendedScanEnable: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetExtendedScanEnable

    public let isEnabled: Bool
    public let filterDuplicates: ScanDuplicateFilter
    /// How long to scan, in units of 10 ms; 0 scans until disabled.
    public let durationIn10ms: UInt16
    /// Restart a scan of `durationIn10ms` every period, in units of 1.28 s; 0 scans once.
    public let periodIn1280ms: UInt16

    public init(
        _ isEnabled: Bool,
        filterDuplicates: ScanDuplicateFilter = .disabled,
        durationIn10ms: UInt16 = 0,
        periodIn1280ms: UInt16 = 0
    ) throws(HCIParameterError) {
        guard filterDuplicates != .enabledResetEachPeriod || (durationIn10ms != 0 && periodIn1280ms != 0) else {
            throw HCIParameterError("resetting duplicate filtering each period needs a non-zero duration and period")
        }
        self.isEnabled = isEnabled
        self.filterDuplicates = filterDuplicates
        self.durationIn10ms = durationIn10ms
        self.periodIn1280ms = periodIn1280ms
    }

    /// Stops extended scanning.
    public static let disable = LESetExtendedScanEnable(isEnabled: false)

    private init(isEnabled: Bool) {
        self.isEnabled = isEnabled
        self.filterDuplicates = .disabled
        self.durationIn10ms = 0
        self.periodIn1280ms = 0
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(isEnabled ? 0x01 : 0x00)
        bytes.append(filterDuplicates.rawValue)
        bytes.appendLittleEndian(durationIn10ms)
        bytes.appendLittleEndian(periodIn1280ms)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetExtendedScanEnable {
        let structure = "\(name) parameters"
        var reader = HCIByteReader(bytes, structure: structure)
        let isEnabled = try reader.readBoolean(field: "Enable")
        let filter = try reader.readEnumeration(ScanDuplicateFilter.self, field: "Filter_Duplicates")
        let duration = try reader.readUInt16()
        let period = try reader.readUInt16()
        try reader.expectEnd()
        do {
            return try LESetExtendedScanEnable(isEnabled, filterDuplicates: filter, durationIn10ms: duration, periodIn1280ms: period)
        } catch {
            throw .inconsistentParameters(structure: structure, reason: error.message)
        }
    }
}
