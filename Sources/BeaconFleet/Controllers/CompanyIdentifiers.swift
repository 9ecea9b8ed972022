import HCI
import BeaconCore

/// The manufacturer a controller reports in Read Local Version Information, for people:
/// the names come from the one company table in `ADTypeNames`.
public enum CompanyIdentifiers {
    /// The company's name, or `nil` when this short table does not know it.
    public static func name(of identifier: UInt16) -> String? {
        ADTypeNames.companyName(identifier)
    }

    /// `Intel (0x0002)`, or `company 0x1234` for one this table does not know.
    public static func describe(_ identifier: UInt16) -> String {
        let number = HexText.code(identifier, digits: 4)
        if let name = ADTypeNames.companyName(identifier) { return "\(name) (\(number))" }
        return "company \(number)"
    }
}
