import BeaconCore

/// One cell of an exported row before it is written as CSV or JSON text.
enum ExportValue: Equatable, Sendable {
    case text(String)
    case integer(Int)
    /// Metres on a plan.
    case number(Double)
    /// An optional field the beacon does not have: an empty CSV cell, JSON `null`.
    case absent

    /// The value as CSV cell text (before quoting).
    var csvText: String {
        switch self {
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .number(let value): return ExportNumber.text(value) ?? ""
        case .absent: return ""
        }
    }
}

/// Numbers as people write them: whole metres without a trailing `.0`, others in the
/// shortest form that reads back as the same `Double`.
enum ExportNumber {
    /// `nil` for infinities and NaN, which neither CSV readers nor JSON can carry; the
    /// manifest loader never produces them.
    static func text(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        return NumberText.plain(value)
    }
}

/// Reads a beacon's export values, column by column. Fleets have a handful of UUIDs and
/// many beacons: each UUID's text is made once.
struct ExportValueReader {
    private var uuidTexts: [ProximityUUID: String] = [:]

    private mutating func text(of uuid: ProximityUUID) -> String {
        if let text = uuidTexts[uuid] { return text }
        let text = uuid.description
        uuidTexts[uuid] = text
        return text
    }

    mutating func value(_ column: ExportColumn, of beacon: ResolvedBeacon) -> ExportValue {
        if column == .uuid { return .text(text(of: beacon.identity.uuid)) }
        return beacon.exportValue(column)
    }
}

extension ResolvedBeacon {
    func exportValue(_ column: ExportColumn) -> ExportValue {
        switch column {
        case .fleet: return .text(fleetName)
        case .venue: return .text(venueID)
        case .beacon: return .text(id)
        case .name: return name.map(ExportValue.text) ?? .absent
        case .zone: return zone.map(ExportValue.text) ?? .absent
        case .uuid: return .text(identity.uuid.description)
        case .major: return .integer(Int(identity.major))
        case .minor: return .integer(Int(identity.minor))
        case .measuredPower:
            switch measuredPower {
            case .auto: return .text("auto")
            case .dBm(let value): return .integer(Int(value))
            }
        case .intervalMilliseconds: return .integer(intervalMilliseconds)
        case .txPower: return .integer(txPower)
        case .x: return position.map { .number($0.x) } ?? .absent
        case .y: return position.map { .number($0.y) } ?? .absent
        case .host: return host.map(ExportValue.text) ?? .absent
        case .mac: return expectedAddress.map { .text($0.description) } ?? .absent
        }
    }
}
