/// One report of an HCI LE Advertising Report event (Core v5.4 Vol 4 Part E 7.7.65.2),
/// read by hand so that harness tests hold without the project's HCI module.
struct LEAdvertisingReport: Equatable {
    static let leMetaEventCode: UInt8 = 0x3E
    static let subeventCode: UInt8 = 0x02

    /// 0x00 ADV_IND … 0x03 ADV_NONCONN_IND, 0x04 SCAN_RSP.
    let eventType: UInt8
    let addressType: UInt8
    /// Advertiser address, least significant byte first as on the wire.
    let address: [UInt8]
    let data: [UInt8]
    /// Never asserted on: RootCanal's RSSI is synthetic.
    let rssi: Int8

    /// The reports an event carries; nil when it is not an LE Advertising Report or its
    /// lengths do not add up.
    ///
    /// Layout after the subevent code: Num_Reports, then per report Event_Type, Address_Type,
    /// Address[6], Data_Length, Data, RSSI (int8). An event may carry several reports, read
    /// one after the other as BlueZ and Bumble do.
    static func reports(in event: H4TestLink.Event) -> [LEAdvertisingReport]? {
        guard event.code == leMetaEventCode else { return nil }
        var cursor = event.parameters[...]
        guard cursor.popFirst() == subeventCode, let count = cursor.popFirst() else { return nil }
        var reports: [LEAdvertisingReport] = []
        for _ in 0..<count {
            // Event_Type, Address_Type, Address[6], Data_Length: the fixed 9 bytes before Data.
            guard cursor.count >= 9 else { return nil }
            let fixed = Array(cursor.prefix(9))
            cursor = cursor.dropFirst(9)
            let dataLength = Int(fixed[8])
            guard cursor.count >= dataLength + 1 else { return nil }
            let data = Array(cursor.prefix(dataLength))
            cursor = cursor.dropFirst(dataLength)
            guard let rssi = cursor.popFirst() else { return nil }
            reports.append(LEAdvertisingReport(
                eventType: fixed[0], addressType: fixed[1], address: Array(fixed[2..<8]), data: data,
                rssi: Int8(bitPattern: rssi)))
        }
        return cursor.isEmpty ? reports : nil
    }
}
