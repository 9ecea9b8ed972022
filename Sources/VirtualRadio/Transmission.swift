import BeaconCore
import HCI

/// One PDU on a primary advertising channel, as every receiver on the air sees it.
struct Transmission {
    var transmitter: Int
    var time: AirTime
    var durationMicroseconds: UInt64
    var channel: UInt8
    var phy: LEPhy
    var properties: AdvertisingEventProperties
    var address: BluetoothAddress
    var addressType: LEAddressType
    /// TargetA of a directed PDU: only that device takes it.
    var target: BluetoothAddress?
    var data: [UInt8]
    var txPower: Int8
    var sid: UInt8
    var secondaryPHY: LEPhy
    /// Where it was sent from.
    var position: PlanPoint

    var isLegacy: Bool { properties.contains(.legacy) }
}

/// What became of a transmission at one receiver.
enum ReceptionOutcome {
    /// Not scanning, another channel, outside the window, or a PDU it does not take.
    case notListening
    /// Packet loss or below sensitivity.
    case lost
    case duplicate
    case masked
    /// Received: the report events to send the host.
    case reported([HCIPacket])
}

extension ControllerState {
    /// The address this controller scans from, which a directed PDU must name as TargetA.
    private var scanningAddress: BluetoothAddress {
        switch scan.ownAddressType {
        case .public, .resolvableOrPublic: return publicAddress
        case .random, .resolvableOrRandom: return randomAddress ?? .zero
        }
    }

    /// Receives `transmission` if the scanner listens on its channel at that moment, draws
    /// its fate and RSSI from the propagation model, applies the duplicate filter and the
    /// event masks, and returns the reports.
    mutating func receive(_ transmission: Transmission, model: PropagationModel) -> ReceptionOutcome {
        guard transmission.transmitter != slot,
            scan.listeningChannel(
                at: transmission.time, durationMicroseconds: transmission.durationMicroseconds, phy: transmission.phy)
                == transmission.channel
        else { return .notListening }
        // Legacy scanning only understands legacy PDUs (ADV_EXT_IND is an unknown PDU type to it).
        if scan.format == .legacy && !transmission.isLegacy { return .notListening }
        if let target = transmission.target, target != scanningAddress { return .notListening }

        guard let rssi = model.sampleRSSI(
            txPower: Double(transmission.txPower), from: transmission.position, to: position(at: transmission.time),
            using: &receptionGenerator)
        else { return .lost }
        // Reports carry whole dBm, −127…+20 (Core v5.4 Vol 4 Part E 7.7.65.2).
        let reportedRSSI = Int8(min(max(rssi.rounded(), -127), 20))

        switch scan.format {
        case .legacy:
            let eventType = Self.legacyEventType(transmission.properties)
            guard scan.shouldReport(Self.duplicateKey(transmission, eventType: UInt16(eventType.rawValue)), at: transmission.time) else {
                return .duplicate
            }
            guard allows(.advertisingReport) else { return .masked }
            let report = LEAdvertisingReport(
                eventType: eventType, addressType: transmission.addressType, address: transmission.address,
                data: transmission.data, rssi: reportedRSSI)
            return .reported(Self.packets([.le(.advertisingReport([report]))]))
        case .extended:
            let reports = extendedReports(transmission, rssi: reportedRSSI)
            let eventType = reports.first?.eventType.rawValue ?? 0
            guard scan.shouldReport(Self.duplicateKey(transmission, eventType: eventType), at: transmission.time) else {
                return .duplicate
            }
            guard allows(.extendedAdvertisingReport) else { return .masked }
            return .reported(Self.packets(reports.map { .le(.extendedAdvertisingReport([$0])) }))
        }
    }

    private static func duplicateKey(_ transmission: Transmission, eventType: UInt16) -> ScanState.DuplicateKey {
        ScanState.DuplicateKey(
            address: transmission.address.value, addressType: transmission.addressType.rawValue,
            eventType: eventType, data: transmission.data)
    }

    /// Event_Type of a legacy report (Core v5.4 Vol 4 Part E 7.7.65.2) for legacy PDU properties.
    static func legacyEventType(_ properties: AdvertisingEventProperties) -> LEAdvertisingReport.EventType {
        if properties.contains(.directed) { return .advDirectInd }
        if properties.contains(.connectable) { return .advInd }
        if properties.contains(.scannable) { return .advScanInd }
        return .advNonconnInd
    }

    /// The most data one extended report can carry: an event holds 255 parameter bytes,
    /// of which the subevent code, Num_Reports and the 24 bytes before Data take 26.
    static let extendedReportDataLimit = 229

    /// The extended reports of one reception (Core v5.4 Vol 4 Part E 7.7.65.13): one for a
    /// legacy PDU, and for extended advertising as many as the data needs, every one but
    /// the last marked "incomplete, more data to come".
    private func extendedReports(_ transmission: Transmission, rssi: Int8) -> [LEExtendedAdvertisingReport] {
        let properties = transmission.properties
        let anonymous = properties.contains(.anonymous) && !transmission.isLegacy
        let target = transmission.target
        func report(_ data: [UInt8], status: LEExtendedAdvertisingReport.EventType.DataStatus) -> LEExtendedAdvertisingReport {
            // Legacy PDUs report their properties as they are (0x10, 0x12, 0x13, 0x15);
            // extended ones their connectable, scannable and directed bits.
            let eventType = LEExtendedAdvertisingReport.EventType(
                connectable: properties.contains(.connectable), scannable: properties.contains(.scannable),
                directed: properties.contains(.directed), legacy: transmission.isLegacy, dataStatus: status)
            return LEExtendedAdvertisingReport(
                eventType: eventType,
                addressType: anonymous ? .anonymous : transmission.addressType,
                address: anonymous ? .zero : transmission.address,
                primaryPHY: transmission.phy,
                secondaryPHY: transmission.isLegacy ? nil : transmission.secondaryPHY,
                sid: transmission.isLegacy ? nil : transmission.sid,
                txPower: !transmission.isLegacy && properties.contains(.includeTxPower) ? transmission.txPower : nil,
                rssi: rssi,
                directAddressType: target == nil ? .public : (scan.ownAddressType == .public ? .public : .random),
                directAddress: target ?? .zero,
                data: data)
        }
        let data = transmission.data
        guard data.count > Self.extendedReportDataLimit else { return [report(data, status: .complete)] }
        var reports: [LEExtendedAdvertisingReport] = []
        var start = data.startIndex
        while start < data.endIndex {
            let end = min(start + Self.extendedReportDataLimit, data.endIndex)
            reports.append(report(Array(data[start..<end]), status: end == data.endIndex ? .complete : .incompleteMoreToCome))
            start = end
        }
        return reports
    }

    /// Events as packets. Every event built here fits in 255 parameter bytes by
    /// construction (legacy data ≤ 31 bytes, extended fragments ≤ 229); one that did not
    /// would be dropped rather than sent malformed.
    static func packets(_ events: [HCIEvent]) -> [HCIPacket] {
        events.compactMap { try? $0.packet() }
    }
}
