import BeaconCore

/// One report of an LE Advertising Report event (Core v5.4 Vol 4 Part E 7.7.65.2):
/// `event_type u8 | address_type u8 | address[6] | data_length u8 | data | rssi i8`.
///
/// An event carries `num_reports` of these back to back (the fields of one report are
/// contiguous, Core v5.4 Vol 4 Part E 5.2), each with its own length.
public struct LEAdvertisingReport: Hashable, Sendable {
    public var eventType: EventType
    public var addressType: LEAddressType
    public var address: BluetoothAddress
    /// The advertising data (or scan response data), 0–31 bytes on a conforming controller.
    public var data: [UInt8]
    /// dBm, or `nil` when the controller reports 127 (not available).
    public var rssi: Int8?

    /// RSSI 127: "not available".
    static let rssiUnavailable: UInt8 = 0x7F

    public init(eventType: EventType, addressType: LEAddressType, address: BluetoothAddress, data: [UInt8], rssi: Int8?) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.data = data
        self.rssi = rssi
    }

    /// Event_Type: which PDU was received. Open-ended, unknown values are kept.
    public struct EventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8

        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        public static let advInd = EventType(rawValue: 0x00)
        public static let advDirectInd = EventType(rawValue: 0x01)
        public static let advScanInd = EventType(rawValue: 0x02)
        /// What an iBeacon sends.
        public static let advNonconnInd = EventType(rawValue: 0x03)
        public static let scanResponse = EventType(rawValue: 0x04)

        public var description: String {
            switch self {
            case .advInd: return "ADV_IND"
            case .advDirectInd: return "ADV_DIRECT_IND"
            case .advScanInd: return "ADV_SCAN_IND"
            case .advNonconnInd: return "ADV_NONCONN_IND"
            case .scanResponse: return "SCAN_RSP"
            default: return "event type \(HexText.code(rawValue))"
            }
        }
    }

    static func decodeReports(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> [LEAdvertisingReport] {
        var reader = HCIByteReader(bytes, structure: "LE Advertising Report event")
        let count = Int(try reader.readUInt8())
        var reports: [LEAdvertisingReport] = []
        // The smallest report is 10 bytes: never reserve more than the bytes could hold.
        reports.reserveCapacity(min(count, reader.remainingCount / 10))
        for _ in 0..<count {
            let eventType = EventType(rawValue: try reader.readUInt8())
            let addressType = LEAddressType(rawValue: try reader.readUInt8())
            let address = try reader.readAddress()
            let length = Int(try reader.readUInt8())
            let data = Array(try reader.readBytes(length))
            let rssi = try reader.readUInt8()
            reports.append(LEAdvertisingReport(
                eventType: eventType, addressType: addressType, address: address, data: data,
                rssi: rssi == rssiUnavailable ? nil : Int8(bitPattern: rssi)))
        }
        try reader.expectEnd()
        return reports
    }

    static func encodeReports(_ reports: [LEAdvertisingReport], into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: reports.count))
        for report in reports {
            bytes.append(report.eventType.rawValue)
            bytes.append(report.addressType.rawValue)
            bytes.appendAddress(report.address)
            bytes.append(UInt8(truncatingIfNeeded: report.data.count))
            bytes += report.data
            bytes.append(report.rssi.map { UInt8(bitPattern: $0) } ?? rssiUnavailable)
        }
    }
}
