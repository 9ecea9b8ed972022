import BeaconCore
import HCI

/// An HCI event taken apart for a person: for advertising reports, each report's advertiser,
/// RSSI and event type, and its data decoded as `DecodedAdvertisingData`.
public struct DecodedHCIEvent: Hashable, Sendable {
    public var bytes: [UInt8]
    /// `LE Meta (0x3E)`.
    public var eventName: String
    /// `LE Advertising Report (0x02)` for LE Meta events.
    public var subeventName: String?
    /// LE Advertising Report or LE Extended Advertising Report, even when malformed.
    public var isAdvertisingReportEvent: Bool
    public var reports: [DecodedAdvertisingReport]
    /// Why the event could not be decoded, with the byte offset inside its structure.
    public var problem: String?

    /// `body` is the event without its H4 indicator: code, length, parameters.
    public init(body: [UInt8]) {
        bytes = body
        reports = []
        let code = body.first.map { HCIEventCode(rawValue: $0) }
        eventName = code?.description ?? "empty event"
        let reportSubevents = [LESubeventCode.advertisingReport.rawValue, LESubeventCode.extendedAdvertisingReport.rawValue]
        isAdvertisingReportEvent = body.count >= 3 && body[0] == HCIEventCode.leMeta.rawValue && reportSubevents.contains(body[2])
        do {
            let event = try HCIEvent(body: body[...])
            switch event {
            case .le(let meta):
                subeventName = meta.subevent.description
                switch meta {
                case .advertisingReport(let list):
                    reports = list.map(DecodedAdvertisingReport.init(legacy:))
                case .extendedAdvertisingReport(let list):
                    reports = list.map(DecodedAdvertisingReport.init(extended:))
                default:
                    break
                }
            default:
                break
            }
        } catch {
            problem = error.description
            if body.count >= 3, body[0] == HCIEventCode.leMeta.rawValue {
                subeventName = LESubeventCode(rawValue: body[2]).description
            }
        }
    }

    /// The parameters after code and length, as given.
    public var parameters: ArraySlice<UInt8> { bytes.dropFirst(2) }
}

/// One report of a legacy or extended advertising report event.
public struct DecodedAdvertisingReport: Hashable, Sendable {
    /// `ADV_NONCONN_IND`, or the extended properties: `legacy, non-connectable`.
    public var eventType: String
    public var eventTypeValue: UInt16
    public var address: String
    /// `public`, `random`, …
    public var addressType: String
    public var rssi: Int?
    /// Extended reports only: PHYs, SID, TX power, data status, in order.
    public var extendedFields: [DecodedField]
    public var data: DecodedAdvertisingData
    /// Extended reports whose data status is not "complete": the data is a fragment.
    public var dataIsIncomplete: Bool

    init(legacy report: LEAdvertisingReport) {
        eventType = report.eventType.description
        eventTypeValue = UInt16(report.eventType.rawValue)
        address = report.address.description
        addressType = report.addressType.description
        rssi = report.rssi.map(Int.init)
        extendedFields = []
        data = DecodedAdvertisingData(report.data)
        dataIsIncomplete = false
    }

    init(extended report: LEExtendedAdvertisingReport) {
        eventType = report.eventType.description
        eventTypeValue = report.eventType.rawValue
        address = report.address.description
        addressType = report.addressType.description
        rssi = report.rssi.map(Int.init)
        let dataStatus: String
        switch report.eventType.dataStatus {
        case .complete: dataStatus = "complete"
        case .incompleteMoreToCome: dataStatus = "incomplete, more to come"
        case .incompleteTruncated: dataStatus = "incomplete, truncated"
        case .reserved: dataStatus = "reserved value"
        }
        extendedFields = [
            DecodedField("primary PHY", report.primaryPHY.description),
            DecodedField("secondary PHY", report.secondaryPHY?.description ?? "none"),
            DecodedField("SID", report.sid.map { "\($0)" } ?? "none"),
            DecodedField("TX power", report.txPower.map { "\($0) dBm" } ?? "not available"),
            DecodedField(
                "periodic interval",
                report.periodicAdvertisingInterval == 0 ? "none" : "\(report.periodicAdvertisingInterval) × 1.25 ms"),
            DecodedField("data status", dataStatus),
        ]
        data = DecodedAdvertisingData(report.data)
        dataIsIncomplete = report.eventType.dataStatus != .complete
    }
}

/// A named value of a decoded report.
public struct DecodedField: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// What the bytes given to `beaconctl decode` are.
public enum DecodedInput: Hashable, Sendable {
    case advertisingData(DecodedAdvertisingData)
    case event(DecodedHCIEvent)

    /// How to read the bytes.
    public enum Kind: String, Sendable, CaseIterable {
        /// An event when the bytes start with the H4 indicator 04 followed by LE Meta (3E) or
        /// by any event whose length octet matches, or with `3E LL 02` / `3E LL 0D` (LE Meta
        /// with an advertising report subevent); advertising data otherwise.
        case auto
        case data
        /// An HCI event, with or without the H4 indicator 04.
        case event
    }

    public init(bytes: [UInt8], as kind: Kind = .auto) {
        switch kind {
        case .data:
            self = .advertisingData(DecodedAdvertisingData(bytes))
        case .event:
            self = .event(DecodedHCIEvent(body: Self.withoutIndicator(bytes)))
        case .auto:
            if Self.looksLikeEvent(bytes) {
                self = .event(DecodedHCIEvent(body: Self.withoutIndicator(bytes)))
            } else {
                self = .advertisingData(DecodedAdvertisingData(bytes))
            }
        }
    }

    /// Whether anything in the bytes is malformed (an event that does not decode, AD
    /// structures running past their data).
    public var isMalformed: Bool {
        switch self {
        case .advertisingData(let data): return data.problem != nil
        case .event(let event): return event.problem != nil || event.reports.contains { $0.data.problem != nil && !$0.dataIsIncomplete }
        }
    }

    static func looksLikeEvent(_ bytes: [UInt8]) -> Bool {
        let indicator = HCIPacketType.event.rawValue
        let leMeta = HCIEventCode.leMeta.rawValue
        // H4: 04, then an LE Meta code, or any code whose length octet matches the bytes.
        if bytes.count >= 3, bytes[0] == indicator, bytes[1] == leMeta || Int(bytes[2]) == bytes.count - 3 { return true }
        let reportSubevents = [LESubeventCode.advertisingReport.rawValue, LESubeventCode.extendedAdvertisingReport.rawValue]
        return bytes.count >= 3 && bytes[0] == leMeta && reportSubevents.contains(bytes[2])
    }

    /// Drops an H4 event indicator when the rest is a whole event (code, length, parameters).
    static func withoutIndicator(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 3, bytes[0] == HCIPacketType.event.rawValue else { return bytes }
        let rest = Array(bytes.dropFirst())
        // `04 0E 04 …` with an indicator; a bare event whose code is 0x04 has its length next.
        if Int(rest[1]) == rest.count - 2 || Int(bytes[1]) != bytes.count - 2 { return rest }
        return bytes
    }
}
