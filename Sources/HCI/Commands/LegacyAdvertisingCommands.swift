import BeaconCore

/// LE Set Advertising Parameters (Core v5.4 Vol 4 Part E 7.8.5):
/// `min u16 | max u16 | type u8 | own_addr_type u8 | peer_addr_type u8 | peer_addr[6] |
/// channel_map u8 | filter_policy u8` (15 octets).
public struct LESetAdvertisingParameters: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetAdvertisingParameters

    public let intervalMin: AdvertisingInterval
    public let intervalMax: AdvertisingInterval
    public let type: LegacyAdvertisingType
    public let ownAddressType: OwnAddressType
    /// Only used by directed advertising.
    public let peerAddressType: PeerAddressType
    public let peerAddress: BluetoothAddress
    public let channelMap: AdvertisingChannelMap
    public let filterPolicy: AdvertisingFilterPolicy

    /// Checks what the spec requires of the values: intervals within 20 ms – 10.24 s,
    /// minimum not above maximum, at least one channel.
    public init(
        intervalMin: AdvertisingInterval,
        intervalMax: AdvertisingInterval,
        type: LegacyAdvertisingType = .nonConnectableUndirected,
        ownAddressType: OwnAddressType = .public,
        peerAddressType: PeerAddressType = .public,
        peerAddress: BluetoothAddress = .zero,
        channelMap: AdvertisingChannelMap = .all,
        filterPolicy: AdvertisingFilterPolicy = .acceptAll
    ) throws(HCIParameterError) {
        for interval in [intervalMin, intervalMax] where !interval.isLegacyCompatible {
            throw HCIParameterError("advertising interval \(interval) is outside 20 ms to 10240 ms, the range of legacy advertising")
        }
        guard intervalMin <= intervalMax else {
            throw HCIParameterError("minimum advertising interval \(intervalMin) is above the maximum \(intervalMax)")
        }
        guard channelMap.isValid else {
            throw HCIParameterError("advertising channel map \(HexText.code(channelMap.rawValue)) must select channels among 37, 38 and 39")
        }
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.type = type
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        // Both intervals are within 0x0020–0x4000 (checked by init), so 16 bits hold them.
        bytes.appendLittleEndian(UInt16(truncatingIfNeeded: intervalMin.units))
        bytes.appendLittleEndian(UInt16(truncatingIfNeeded: intervalMax.units))
        bytes.append(type.rawValue)
        bytes.append(ownAddressType.rawValue)
        bytes.append(peerAddressType.rawValue)
        bytes.appendAddress(peerAddress)
        bytes.append(channelMap.rawValue)
        bytes.append(filterPolicy.rawValue)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetAdvertisingParameters {
        let structure = "\(name) parameters"
        var reader = HCIByteReader(bytes, structure: structure)
        let minimum = try reader.readAdvertisingInterval16(field: "Advertising_Interval_Min")
        let maximum = try reader.readAdvertisingInterval16(field: "Advertising_Interval_Max")
        let type = try reader.readEnumeration(LegacyAdvertisingType.self, field: "Advertising_Type")
        let ownAddressType = try reader.readEnumeration(OwnAddressType.self, field: "Own_Address_Type")
        let peerAddressType = try reader.readEnumeration(PeerAddressType.self, field: "Peer_Address_Type")
        let peerAddress = try reader.readAddress()
        let channelMap = AdvertisingChannelMap(rawValue: try reader.readUInt8())
        let filterPolicy = try reader.readEnumeration(AdvertisingFilterPolicy.self, field: "Advertising_Filter_Policy")
        try reader.expectEnd()
        do {
            return try LESetAdvertisingParameters(
                intervalMin: minimum, intervalMax: maximum, type: type, ownAddressType: ownAddressType,
                peerAddressType: peerAddressType, peerAddress: peerAddress, channelMap: channelMap,
                filterPolicy: filterPolicy)
        } catch {
            throw .inconsistentParameters(structure: structure, reason: error.message)
        }
    }
}

/// LE Read Advertising Physical Channel Tx Power (Core v5.4 Vol 4 Part E 7.8.6): the power
/// legacy advertising is sent with, in dBm (−127 to +20).
public struct LEReadAdvertisingPhysicalChannelTxPower: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = Int8
    public static let opcode = HCIOpcode.leReadAdvertisingPhysicalChannelTxPower
    public init() {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> Int8 {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return try reader.readInt8()
    }

    public static func encodeReturnParameters(_ value: Int8, into bytes: inout [UInt8]) {
        bytes.append(UInt8(bitPattern: value))
    }
}

/// LE Set Advertising Data (Core v5.4 Vol 4 Part E 7.8.7):
/// `length u8 | data[31]`. The data field is always 31 octets, zero padded: the command
/// always carries 32 parameter octets whatever the length.
public struct LESetAdvertisingData: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetAdvertisingData
    public static let maximumDataLength = 31

    public let data: [UInt8]

    public init(data: [UInt8]) throws(HCIParameterError) {
        guard data.count <= Self.maximumDataLength else {
            throw HCIParameterError("legacy advertising data holds at most 31 bytes; this has \(data.count)")
        }
        self.data = data
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: data.count))
        bytes += data
        bytes += repeatElement(0, count: Self.maximumDataLength - data.count)
    }

    /// Reads the 32 octets; the padding after the significant bytes is not checked, since
    /// the spec gives it no meaning.
    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetAdvertisingData {
        let structure = "\(name) parameters"
        var reader = HCIByteReader(bytes, structure: structure)
        let length = Int(try reader.readUInt8())
        guard length <= maximumDataLength else {
            throw reader.invalid("Advertising_Data_Length", length, expected: "0x00–0x1F")
        }
        let field = try reader.readBytes(maximumDataLength)
        try reader.expectEnd()
        do {
            return try LESetAdvertisingData(data: Array(field.prefix(length)))
        } catch {
            throw .inconsistentParameters(structure: structure, reason: error.message)
        }
    }
}

/// LE Set Advertising Enable (Core v5.4 Vol 4 Part E 7.8.9): `enable u8`.
public struct LESetAdvertisingEnable: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetAdvertisingEnable

    public var isEnabled: Bool

    public init(_ isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(isEnabled ? 0x01 : 0x00)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetAdvertisingEnable {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let isEnabled = try reader.readBoolean(field: "Advertising_Enable")
        try reader.expectEnd()
        return LESetAdvertisingEnable(isEnabled)
    }
}

extension HCIByteReader {
    /// A legacy 2-octet interval; values outside 0x0020–0xFFFF cannot be an `AdvertisingInterval`.
    mutating func readAdvertisingInterval16(field: String) throws(HCIDecodingError) -> AdvertisingInterval {
        let units = try readUInt16()
        guard let interval = AdvertisingInterval(units: UInt32(units)) else {
            throw invalid(field, units, expected: "0x0020–0x4000")
        }
        return interval
    }

    /// An extended 3-octet interval.
    mutating func readAdvertisingInterval24(field: String) throws(HCIDecodingError) -> AdvertisingInterval {
        let units = try readUInt24()
        guard let interval = AdvertisingInterval(units: units) else {
            throw invalid(field, units, expected: "0x000020–0xFFFFFF")
        }
        return interval
    }

    mutating func readScanInterval(field: String) throws(HCIDecodingError) -> ScanInterval {
        let units = try readUInt16()
        guard let interval = ScanInterval(units: units) else {
            throw invalid(field, units, expected: "0x0004–0xFFFF")
        }
        return interval
    }
}
