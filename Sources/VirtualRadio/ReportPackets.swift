import BeaconCore
import HCI

/// The report events a scanner sends, encoded straight into one buffer each: the
/// simulation's hottest output, so no intermediate report values or arrays.
enum ReportPackets {
    private static let leMetaEventCode: UInt8 = 0x3E

    /// LE Advertising Report with one report (Core v5.4 Vol 4 Part E 7.7.65.2):
    /// `subevent 0x02 | num_reports 1 | event_type | address_type | address[6] | length |
    /// data | rssi`. `data` is at most 31 bytes (a legacy PDU), so the event always fits.
    static func legacyReport(
        eventType: UInt8, addressType: UInt8, address: BluetoothAddress, data: [UInt8], rssi: Int8
    ) -> HCIPacket {
        let parameterLength = 2 + 1 + 1 + 6 + 1 + data.count + 1
        var body: [UInt8] = []
        body.reserveCapacity(2 + parameterLength)
        body.append(leMetaEventCode)
        body.append(UInt8(truncatingIfNeeded: parameterLength))
        body.append(LESubeventCode.advertisingReport.rawValue)
        body.append(1)
        body.append(eventType)
        body.append(addressType)
        appendAddress(address, to: &body)
        body.append(UInt8(truncatingIfNeeded: data.count))
        body.append(contentsOf: data)
        body.append(UInt8(bitPattern: rssi))
        return HCIPacket(type: .event, body: body)
    }

    /// The fields of an extended report besides the data.
    struct ExtendedFields {
        /// Event_Type without the data status bits (5–6).
        var eventType: UInt16
        var addressType: UInt8
        var address: BluetoothAddress
        var primaryPHY: UInt8
        /// 0x00 when no packets on the secondary channel.
        var secondaryPHY: UInt8
        /// 0xFF when no ADI field.
        var sid: UInt8
        /// 0x7F when not available.
        var txPower: UInt8
        var rssi: Int8
        var directAddressType: UInt8
        var directAddress: BluetoothAddress
    }

    /// The most data one extended report can carry: an event holds 255 parameter bytes,
    /// of which the subevent code, Num_Reports and the 24 bytes before Data take 26.
    static let extendedReportDataLimit = 229

    /// LE Extended Advertising Report events (Core v5.4 Vol 4 Part E 7.7.65.13), one report
    /// each: `event_type u16 | address_type | address[6] | primary_phy | secondary_phy |
    /// sid | tx_power | rssi | periodic_interval u16 | direct_address_type |
    /// direct_address[6] | length | data`. Data longer than one report takes several,
    /// all but the last with data status "incomplete, more to come" (bits 5–6 = 01).
    static func extendedReports(_ fields: ExtendedFields, data: [UInt8]) -> [HCIPacket] {
        guard data.count > extendedReportDataLimit else {
            return [extendedReport(fields, status: 0b00, data: data[...])]
        }
        var packets: [HCIPacket] = []
        var start = data.startIndex
        while start < data.endIndex {
            let end = min(start + extendedReportDataLimit, data.endIndex)
            packets.append(extendedReport(fields, status: end == data.endIndex ? 0b00 : 0b01, data: data[start..<end]))
            start = end
        }
        return packets
    }

    private static func extendedReport(_ fields: ExtendedFields, status: UInt16, data: ArraySlice<UInt8>) -> HCIPacket {
        let parameterLength = 2 + 24 + data.count
        var body: [UInt8] = []
        body.reserveCapacity(2 + parameterLength)
        body.append(leMetaEventCode)
        body.append(UInt8(truncatingIfNeeded: parameterLength))
        body.append(LESubeventCode.extendedAdvertisingReport.rawValue)
        body.append(1)
        let eventType = fields.eventType | status << 5
        body.append(UInt8(truncatingIfNeeded: eventType))
        body.append(UInt8(truncatingIfNeeded: eventType >> 8))
        body.append(fields.addressType)
        appendAddress(fields.address, to: &body)
        body.append(fields.primaryPHY)
        body.append(fields.secondaryPHY)
        body.append(fields.sid)
        body.append(fields.txPower)
        body.append(UInt8(bitPattern: fields.rssi))
        body.append(0)  // Periodic_Advertising_Interval: none
        body.append(0)
        body.append(fields.directAddressType)
        appendAddress(fields.directAddress, to: &body)
        body.append(UInt8(truncatingIfNeeded: data.count))
        body.append(contentsOf: data)
        return HCIPacket(type: .event, body: body)
    }

    /// Six octets, least significant first (Core v5.4 Vol 4 Part E 5.2).
    private static func appendAddress(_ address: BluetoothAddress, to body: inout [UInt8]) {
        for shift in stride(from: 0, to: 48, by: 8) {
            body.append(UInt8(truncatingIfNeeded: address.value >> UInt64(shift)))
        }
    }
}
