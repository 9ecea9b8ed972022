import BeaconCore

/// LE Set Extended Advertising Parameters [v1] (Core v5.4 Vol 4 Part E 7.8.53), 25 octets:
/// `handle u8 | properties u16 | primary_min u24 | primary_max u24 | channel_map u8 |
/// own_addr_type u8 | peer_addr_type u8 | peer_addr[6] | filter_policy u8 | tx_power i8 |
/// primary_phy u8 | secondary_max_skip u8 | secondary_phy u8 | sid u8 | scan_req_notify u8`.
/// Returns `Selected_Tx_Power i8`: the power the controller actually uses, in dBm.
public struct LESetExtendedAdvertisingParameters: HCICommand, Hashable {
    public typealias ReturnParameters = Int8
    public static let opcode = HCIOpcode.leSetExtendedAdvertisingParameters
    /// Advertising_Tx_Power 0x7F: the host has no preference.
    static let noTxPowerPreference: UInt8 = 0x7F
    public static let txPowerRange: ClosedRange<Int8> = -127...20

    public let handle: AdvertisingHandle
    public let properties: AdvertisingEventProperties
    public let intervalMin: AdvertisingInterval
    public let intervalMax: AdvertisingInterval
    public let channelMap: AdvertisingChannelMap
    public let ownAddressType: OwnAddressType
    public let peerAddressType: PeerAddressType
    public let peerAddress: BluetoothAddress
    public let filterPolicy: AdvertisingFilterPolicy
    /// Requested power in dBm, or `nil` for no preference.
    public let txPower: Int8?
    /// LE 1M or LE Coded (the primary channels cannot use LE 2M).
    public let primaryPHY: LEPhy
    public let secondaryMaxSkip: UInt8
    public let secondaryPHY: LEPhy
    /// Advertising SID, 0x0–0xF: tells a scanner which set of an advertiser a packet belongs to.
    public let sid: UInt8
    public let scanRequestNotification: Bool

    public init(
        handle: AdvertisingHandle,
        properties: AdvertisingEventProperties = .legacyNonConnectable,
        intervalMin: AdvertisingInterval,
        intervalMax: AdvertisingInterval,
        channelMap: AdvertisingChannelMap = .all,
        ownAddressType: OwnAddressType = .public,
        peerAddressType: PeerAddressType = .public,
        peerAddress: BluetoothAddress = .zero,
        filterPolicy: AdvertisingFilterPolicy = .acceptAll,
        txPower: Int8? = nil,
        primaryPHY: LEPhy = .le1M,
        secondaryMaxSkip: UInt8 = 0,
        secondaryPHY: LEPhy = .le1M,
        sid: UInt8 = 0,
        scanRequestNotification: Bool = false
    ) throws(HCIParameterError) {
        guard properties.rawValue & ~0x7F == 0 else {
            throw HCIParameterError("advertising event properties \(HexText.code(properties.rawValue, digits: 4)) set reserved bits (only bits 0–6 are defined)")
        }
        guard intervalMin <= intervalMax else {
            throw HCIParameterError("minimum advertising interval \(intervalMin) is above the maximum \(intervalMax)")
        }
        guard channelMap.isValid else {
            throw HCIParameterError("advertising channel map \(HexText.code(channelMap.rawValue)) must select channels among 37, 38 and 39")
        }
        if let txPower, !Self.txPowerRange.contains(txPower) {
            throw HCIParameterError("TX power \(txPower) dBm is outside −127 to +20 dBm")
        }
        guard primaryPHY == .le1M || primaryPHY == .leCoded else {
            throw HCIParameterError("primary advertising PHY must be LE 1M or LE Coded, not \(primaryPHY)")
        }
        guard [LEPhy.le1M, .le2M, .leCoded].contains(secondaryPHY) else {
            throw HCIParameterError("secondary advertising PHY must be LE 1M, LE 2M or LE Coded, not \(secondaryPHY)")
        }
        guard sid <= 0x0F else {
            throw HCIParameterError("advertising SID \(sid) is outside 0 to 15")
        }
        self.handle = handle
        self.properties = properties
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.channelMap = channelMap
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.filterPolicy = filterPolicy
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryMaxSkip = secondaryMaxSkip
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.scanRequestNotification = scanRequestNotification
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(handle.rawValue)
        bytes.appendLittleEndian(properties.rawValue)
        bytes.appendUInt24(intervalMin.units)
        bytes.appendUInt24(intervalMax.units)
        bytes.append(channelMap.rawValue)
        bytes.append(ownAddressType.rawValue)
        bytes.append(peerAddressType.rawValue)
        bytes.appendAddress(peerAddress)
        bytes.append(filterPolicy.rawValue)
        bytes.append(txPower.map { UInt8(bitPattern: $0) } ?? Self.noTxPowerPreference)
        bytes.append(primaryPHY.rawValue)
        bytes.append(secondaryMaxSkip)
        bytes.append(secondaryPHY.rawValue)
        bytes.append(sid)
        bytes.append(scanRequestNotification ? 0x01 : 0x00)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetExtendedAdvertisingParameters {
        let structure = "\(name) parameters"
        var reader = HCIByteReader(bytes, structure: structure)
        let handle = try reader.readAdvertisingHandle()
        let properties = AdvertisingEventProperties(rawValue: try reader.readUInt16())
        let minimum = try reader.readAdvertisingInterval24(field: "Primary_Advertising_Interval_Min")
        let maximum = try reader.readAdvertisingInterval24(field: "Primary_Advertising_Interval_Max")
        let channelMap = AdvertisingChannelMap(rawValue: try reader.readUInt8())
        let ownAddressType = try reader.readEnumeration(OwnAddressType.self, field: "Own_Address_Type")
        let peerAddressType = try reader.readEnumeration(PeerAddressType.self, field: "Peer_Address_Type")
        let peerAddress = try reader.readAddress()
        let filterPolicy = try reader.readEnumeration(AdvertisingFilterPolicy.self, field: "Advertising_Filter_Policy")
        let rawTxPower = try reader.readUInt8()
        let primaryPHY = LEPhy(rawValue: try reader.readUInt8())
        let secondaryMaxSkip = try reader.readUInt8()
        let secondaryPHY = LEPhy(rawValue: try reader.readUInt8())
        let sid = try reader.readUInt8()
        let scanRequestNotification = try reader.readBoolean(field: "Scan_Request_Notification_Enable")
        try reader.expectEnd()
        do {
            return try LESetExtendedAdvertisingParameters(
                handle: handle, properties: properties, intervalMin: minimum, intervalMax: maximum,
                channelMap: channelMap, ownAddressType: ownAddressType, peerAddressType: peerAddressType,
                peerAddress: peerAddress, filterPolicy: filterPolicy,
                txPower: rawTxPower == noTxPowerPreference ? nil : Int8(bitPattern: rawTxPower),
                primaryPHY: primaryPHY, secondaryMaxSkip: secondaryMaxSkip, secondaryPHY: secondaryPHY,
                sid: sid, scanRequestNotification: scanRequestNotification)
        } catch {
            throw .inconsistentParameters(structure: structure, reason: error.message)
        }
    }

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> Int8 {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return try reader.readInt8()
    }

    public static func encodeReturnParameters(_ value: Int8, into bytes: inout [UInt8]) {
        bytes.append(UInt8(bitPattern: value))
    }
}
