import HCI
import BeaconCore
import BeaconFleet

/// The `--format json` shape of `beaconctl decode` (keys in snake_case; byte strings as
/// space-separated hex; absent values as null).
enum DecodeJSON {
    struct Document: Encodable {
        var kind: String
        var advertisingData: AdvertisingData?
        var event: Event?

        init(_ input: DecodedInput) {
            switch input {
            case .advertisingData(let data):
                kind = "advertising_data"
                advertisingData = AdvertisingData(data)
            case .event(let event):
                kind = "hci_event"
                self.event = Event(event)
            }
        }

        enum CodingKeys: String, CodingKey {
            case kind, advertisingData = "advertising_data", event
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            if let advertisingData { try container.encode(advertisingData, forKey: .advertisingData) }
            if let event { try container.encode(event, forKey: .event) }
        }
    }

    struct AdvertisingData: Encodable {
        var length: Int
        var structures: [Structure]
        var terminatorOffset: Int?
        var problem: String?
        var ibeacon: IBeacon?
        var notIBeaconReason: String?

        init(_ data: DecodedAdvertisingData) {
            length = data.length
            structures = data.structures.map(Structure.init)
            terminatorOffset = data.terminatorOffset
            problem = data.problem
            ibeacon = data.iBeacon.map(IBeacon.init)
            notIBeaconReason = data.notIBeaconReason
        }

        enum CodingKeys: String, CodingKey {
            case length, structures, terminatorOffset = "terminator_offset", problem, ibeacon
            case notIBeaconReason = "not_ibeacon_reason"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(length, forKey: .length)
            try container.encode(structures, forKey: .structures)
            try container.encode(terminatorOffset, forKey: .terminatorOffset)
            try container.encode(problem, forKey: .problem)
            try container.encode(ibeacon, forKey: .ibeacon)
            try container.encode(notIBeaconReason, forKey: .notIBeaconReason)
        }
    }

    struct Structure: Encodable {
        var offset: Int
        var type: Int
        var typeName: String?
        var data: String
        var details: [String]

        init(_ structure: DecodedADStructure) {
            offset = structure.offset
            type = Int(structure.type)
            typeName = ADTypeNames.typeName(structure.type)
            data = HexText.bytes(structure.data)
            details = structure.details
        }

        enum CodingKeys: String, CodingKey {
            case offset, type, typeName = "type_name", data, details
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(offset, forKey: .offset)
            try container.encode(type, forKey: .type)
            try container.encode(typeName, forKey: .typeName)
            try container.encode(data, forKey: .data)
            try container.encode(details, forKey: .details)
        }
    }

    struct IBeacon: Encodable {
        var offset: Int
        var uuid: String
        var major: Int
        var minor: Int
        var measuredPower: Int

        init(_ beacon: DecodedIBeacon) {
            offset = beacon.offset
            uuid = beacon.advertisement.identity.uuid.description
            major = Int(beacon.advertisement.identity.major)
            minor = Int(beacon.advertisement.identity.minor)
            measuredPower = Int(beacon.advertisement.measuredPower)
        }

        enum CodingKeys: String, CodingKey {
            case offset, uuid, major, minor, measuredPower = "measured_power"
        }
    }

    struct Event: Encodable {
        var name: String
        var subevent: String?
        var parameters: String
        var problem: String?
        var reports: [Report]

        init(_ event: DecodedHCIEvent) {
            name = event.eventName
            subevent = event.subeventName
            parameters = HexText.bytes(event.parameters)
            problem = event.problem
            reports = event.reports.map(Report.init)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(subevent, forKey: .subevent)
            try container.encode(parameters, forKey: .parameters)
            try container.encode(problem, forKey: .problem)
            try container.encode(reports, forKey: .reports)
        }

        enum CodingKeys: String, CodingKey {
            case name, subevent, parameters, problem, reports
        }
    }

    struct Report: Encodable {
        var eventType: String
        var eventTypeValue: Int
        var address: String
        var addressType: String
        var rssi: Int?
        var extended: [String: String]?
        var dataIncomplete: Bool
        var advertisingData: AdvertisingData

        init(_ report: DecodedAdvertisingReport) {
            eventType = report.eventType
            eventTypeValue = Int(report.eventTypeValue)
            address = report.address
            addressType = report.addressType
            rssi = report.rssi
            extended = report.extendedFields.isEmpty
                ? nil : Dictionary(report.extendedFields.map { ($0.name.replacingSpaces(), $0.value) }) { first, _ in first }
            dataIncomplete = report.dataIsIncomplete
            advertisingData = AdvertisingData(report.data)
        }

        enum CodingKeys: String, CodingKey {
            case eventType = "event_type", eventTypeValue = "event_type_value", address
            case addressType = "address_type", rssi, extended, dataIncomplete = "data_incomplete"
            case advertisingData = "advertising_data"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(eventType, forKey: .eventType)
            try container.encode(eventTypeValue, forKey: .eventTypeValue)
            try container.encode(address, forKey: .address)
            try container.encode(addressType, forKey: .addressType)
            try container.encode(rssi, forKey: .rssi)
            try container.encode(extended, forKey: .extended)
            try container.encode(dataIncomplete, forKey: .dataIncomplete)
            try container.encode(advertisingData, forKey: .advertisingData)
        }
    }
}

extension String {
    /// `primary PHY` → `primary_phy`: a display name as a JSON key.
    fileprivate func replacingSpaces() -> String {
        lowercased().split(separator: " ").joined(separator: "_")
    }
}
