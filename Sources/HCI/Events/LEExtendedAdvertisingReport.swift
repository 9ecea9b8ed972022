import BeaconCore

/// One report of an LE Extended Advertising Report event (Core v5.4 Vol 4 Part E 7.7.65.13):
/// `event_type u16 | address_type u8 | address[6] | primary_phy u8 | secondary_phy u8 |
/// sid u8 | tx_power i8 | rssi i8 | periodic_interval u16 | direct_address_type u8 |
/// direct_address[6] | data_length u8 | data` (24 octets before the data).
///
/// An event carries `num_reports` of these back to back, each with its own length.
public struct LEExtendedAdvertisingReport: Hashable, Sendable {
    public var eventType: EventType
    public var addressType: LEAddressType
    /// All zeros for anonymous advertising.
    public var address: BluetoothAddress
    public var primaryPHY: LEPhy
    /// `nil` when no packet was sent on the secondary channel (always so for legacy PDUs).
    public var secondaryPHY: LEPhy?
    /// Advertising SID 0x0–0xF, or `nil` when the packet carried no ADI field.
    public var sid: UInt8?
    /// The advertiser's TX power in dBm, or `nil` when not available.
    public var txPower: Int8?
    /// dBm, or `nil` when not available.
    public var rssi: Int8?
    /// In units of 1.25 ms; 0 when the advertiser has no periodic advertising.
    public var periodicAdvertisingInterval: UInt16
    public var directAddressType: LEAddressType
    public var directAddress: BluetoothAddress
    /// This report's data fragment; see `eventType.dataStatus` for whether more follows.
    public var data: [UInt8]

    static let notAvailable: UInt8 = 0x7F
    static let noADI: UInt8 = 0xFF
    static let noSecondaryPHY: UInt8 = 0x00

    public init(
        eventType: EventType, addressType: LEAddressType, address: BluetoothAddress,
        primaryPHY: LEPhy = .le1M, secondaryPHY: LEPhy? = nil, sid: UInt8? = nil,
        txPower: Int8? = nil, rssi: Int8?, periodicAdvertisingInterval: UInt16 = 0,
        directAddressType: LEAddressType = .public, directAddress: BluetoothAddress = .zero,
        data: [UInt8]
    ) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.txPower = txPower
        self.rssi = rssi
        self.periodicAdvertisingInterval = periodicAdvertisingInterval
        self.directAddressType = directAddressType
        self.directAddress = directAddress
        self.data = data
    }

    /// Event_Type: PDU properties in bits 0–4, data status in bits 5–6.
    public struct EventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt16

        public init(rawValue: UInt16) {
            self.rawValue = rawValue
        }

        public init(
            connectable: Bool = false, scannable: Bool = false, directed: Bool = false,
            scanResponse: Bool = false, legacy: Bool = false, dataStatus: DataStatus = .complete
        ) {
            var raw: UInt16 = 0
            if connectable { raw |= 1 << 0 }
            if scannable { raw |= 1 << 1 }
            if directed { raw |= 1 << 2 }
            if scanResponse { raw |= 1 << 3 }
            if legacy { raw |= 1 << 4 }
            raw |= UInt16(dataStatus.rawValue) << 5
            self.rawValue = raw
        }

        /// 0x0010: a legacy ADV_NONCONN_IND, what an iBeacon sends.
        public static let legacyNonConnectable = EventType(legacy: true)

        public var isConnectable: Bool { rawValue & (1 << 0) != 0 }
        public var isScannable: Bool { rawValue & (1 << 1) != 0 }
        public var isDirected: Bool { rawValue & (1 << 2) != 0 }
        public var isScanResponse: Bool { rawValue & (1 << 3) != 0 }
        /// The report comes from a legacy PDU (bit 4).
        public var isLegacy: Bool { rawValue & (1 << 4) != 0 }
        public var dataStatus: DataStatus { DataStatus(rawValue: UInt8((rawValue >> 5) & 0b11)) ?? .reserved }

        /// Bits 5–6 of Event_Type.
        public enum DataStatus: UInt8, Hashable, Sendable {
            case complete = 0b00
            /// More reports follow with the rest of the data.
            case incompleteMoreToCome = 0b01
            /// The controller gave up: the data is cut short and nothing follows.
            case incompleteTruncated = 0b10
            case reserved = 0b11
        }

        public var description: String {
            var parts: [String] = []
            if isLegacy { parts.append("legacy") }
            if isConnectable { parts.append("connectable") }
            if isScannable { parts.append("scannable") }
            if isDirected { parts.append("directed") }
            if isScanResponse { parts.append("scan response") }
            if parts.isEmpty || parts == ["legacy"] { parts.append("non-connectable") }
            switch dataStatus {
            case .complete: break
            case .incompleteMoreToCome: parts.append("more data to come")
            case .incompleteTruncated: parts.append("data truncated")
            case .reserved: parts.append("reserved data status")
            }
            return parts.joined(separator: ", ")
        }
    }

    static func decodeReports(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> [LEExtendedAdvertisingReport] {
        var reader = HCIByteReader(bytes, structure: "LE Extended Advertising Report event")
        let count = Int(try reader.readUInt8())
        var reports: [LEExtendedAdvertisingReport] = []
        // The smallest report is 24 bytes: never reserve more than the bytes could hold.
        reports.reserveCapacity(min(count, reader.remainingCount / 24))
        for _ in 0..<count {
            let eventType = EventType(rawValue: try reader.readUInt16())
            let addressType = LEAddressType(rawValue: try reader.readUInt8())
            let address = try reader.readAddress()
            let primaryPHY = LEPhy(rawValue: try reader.readUInt8())
            let secondaryPHY = try reader.readUInt8()
            let sid = try reader.readUInt8()
            let txPower = try reader.readUInt8()
            let rssi = try reader.readUInt8()
            let periodicInterval = try reader.readUInt16()
            let directAddressType = LEAddressType(rawValue: try reader.readUInt8())
            let directAddress = try reader.readAddress()
            let length = Int(try reader.readUInt8())
            let data = Array(try reader.readBytes(length))
            reports.append(LEExtendedAdvertisingReport(
                eventType: eventType, addressType: addressType, address: address, primaryPHY: primaryPHY,
                secondaryPHY: secondaryPHY == noSecondaryPHY ? nil : LEPhy(rawValue: secondaryPHY),
                sid: sid == noADI ? nil : sid,
                txPower: txPower == notAvailable ? nil : Int8(bitPattern: txPower),
                rssi: rssi == notAvailable ? nil : Int8(bitPattern: rssi),
                periodicAdvertisingInterval: periodicInterval, directAddressType: directAddressType,
                directAddress: directAddress, data: data))
        }
        try reader.expectEnd()
        return reports
    }

    static func encodeReports(_ reports: [LEExtendedAdvertisingReport], into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: reports.count))
        for report in reports {
            bytes.appendLittleEndian(report.eventType.rawValue)
            bytes.append(report.addressType.rawValue)
            bytes.appendAddress(report.address)
            bytes.append(report.primaryPHY.rawValue)
            bytes.append(report.secondaryPHY?.rawValue ?? noSecondaryPHY)
            bytes.append(report.sid ?? noADI)
            bytes.append(report.txPower.map { UInt8(bitPattern: $0) } ?? notAvailable)
            bytes.append(report.rssi.map { UInt8(bitPattern: $0) } ?? notAvailable)
            bytes.appendLittleEndian(report.periodicAdvertisingInterval)
            bytes.append(report.directAddressType.rawValue)
            bytes.appendAddress(report.directAddress)
            bytes.append(UInt8(truncatingIfNeeded: report.data.count))
            bytes += report.data
        }
    }
}
