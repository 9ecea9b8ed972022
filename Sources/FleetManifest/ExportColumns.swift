/// The columns of a fleet export, in their fixed order. The raw value is the header name in
/// CSV and the key in JSON; `FleetImport` reads the same names back, in any order.
public enum ExportColumn: String, CaseIterable, Sendable {
    case fleet
    case venue
    case beacon
    case name
    case zone
    case uuid
    case major
    case minor
    case measuredPower = "measured_power"
    case intervalMilliseconds = "interval_ms"
    case txPower = "tx_power"
    case x
    case y
    case host
    case mac
}
