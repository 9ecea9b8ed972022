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
            channel: transmission.channel, using: &receptionGenerator)
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
            return .reported([ReportPackets.legacyReport(
                eventType: eventType.rawValue, addressType: transmission.addressType.rawValue,
                address: transmission.address, data: transmission.data, rssi: reportedRSSI)])
        case .extended:
            let fields = extendedFields(transmission, rssi: reportedRSSI)
            guard scan.shouldReport(Self.duplicateKey(transmission, eventType: fields.eventType), at: transmission.time) else {
                return .duplicate
            }
            guard allows(.extendedAdvertisingReport) else { return .masked }
            return .reported(ReportPackets.extendedReports(fields, data: transmission.data))
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

    /// The fields of the extended reports of one reception (Core v5.4 Vol 4 Part E
    /// 7.7.65.13). Legacy PDUs report their properties as they are (0x10, 0x12, 0x13,
    /// 0x15), no SID, no secondary PHY, no TX power; extended ones their connectable,
    /// scannable and directed bits, their SID and secondary PHY, and the TX power when the
    /// set includes it. An undirected report has Direct_Address_Type 0x00 and an all-zero
    /// Direct_Address.
    private func extendedFields(_ transmission: Transmission, rssi: Int8) -> ReportPackets.ExtendedFields {
        let properties = transmission.properties
        let legacy = transmission.isLegacy
        let anonymous = properties.contains(.anonymous) && !legacy
        let eventType = LEExtendedAdvertisingReport.EventType(
            connectable: properties.contains(.connectable), scannable: properties.contains(.scannable),
            directed: properties.contains(.directed), legacy: legacy)
        let directAddressType: LEAddressType =
            transmission.target == nil || scan.ownAddressType == .public || scan.ownAddressType == .resolvableOrPublic
            ? .public : .random
        return ReportPackets.ExtendedFields(
            eventType: eventType.rawValue,
            addressType: anonymous ? LEAddressType.anonymous.rawValue : transmission.addressType.rawValue,
            address: anonymous ? .zero : transmission.address,
            primaryPHY: transmission.phy.rawValue,
            secondaryPHY: legacy ? 0x00 : transmission.secondaryPHY.rawValue,
            sid: legacy ? 0xFF : transmission.sid,
            txPower: !legacy && properties.contains(.includeTxPower) ? UInt8(bitPattern: transmission.txPower) : 0x7F,
            rssi: rssi,
            directAddressType: directAddressType.rawValue,
            directAddress: transmission.target ?? .zero)
    }
}
