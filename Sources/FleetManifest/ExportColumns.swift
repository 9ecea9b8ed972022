/// The columns of a fleet export, in their fixed order. `name` is the header in CSV and the
/// key in JSON; `FleetImport` reads the same names back, in any order.
public enum ExportColumn: Int, CaseIterable, Sendable {
    case fleet
    case venue
    case beacon
    case name
    case zone
    case uuid
    case major
    case minor
    case measuredPower
    case intervalMilliseconds
    case txPower
    case x
    case y
    case host
    case mac

    /// The column's header name, the manifest's key where the manifest has one.
    public var name: String {
        switch self {
        case .fleet: return "fleet"
        case .venue: return "venue"
        case .beacon: return "beacon"
        case .name: return "name"
        case .zone: return "zone"
        case .uuid: return "uuid"
        case .major: return "major"
        case .minor: return "minor"
        case .measuredPower: return "measured_power"
        case .intervalMilliseconds: return "interval_ms"
        case .txPower: return "tx_power"
        case .x: return "x"
        case .y: return "y"
        case .host: return "host"
        case .mac: return "mac"
        }
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

    /// The column a header names; `nil` for any other name.
    public init?(name: String) {
        guard let column = Self.byName[name] else { return nil }
        self = column
    }
}
