import BeaconCore
import HCI

/// The text `beaconctl decode` prints: one fact per line, indented by what it belongs to.
public enum DecodeText {
    public static func render(_ input: DecodedInput) -> String {
        var lines: [String] = []
        switch input {
        case .advertisingData(let data):
            append(data, indent: "", to: &lines)
        case .event(let event):
            append(event, to: &lines)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func append(_ event: DecodedHCIEvent, to lines: inout [String]) {
        let parameterCount = event.parameters.count
        var header = "HCI event: \(event.eventName), \(NumberText.count(parameterCount, "parameter byte"))"
        if let subevent = event.subeventName { header += ", subevent \(subevent)" }
        lines.append(header)
        if let problem = event.problem {
            lines.append("Malformed: \(problem)")
            return
        }
        guard event.isAdvertisingReportEvent else {
            if !event.parameters.isEmpty { lines.append("Parameters: \(HexText.bytes(event.parameters))") }
            lines.append("Not an advertising report: nothing more to decode.")
            return
        }
        lines.append("\(NumberText.count(event.reports.count, "report"))")
        for (index, report) in event.reports.enumerated() {
            let rssi = report.rssi.map { "RSSI \($0) dBm" } ?? "RSSI not available"
            let typeCode = HexText.code(report.eventTypeValue, digits: report.extendedFields.isEmpty ? 2 : 4)
            lines.append("Report \(index + 1): \(report.eventType) (\(typeCode)) from \(report.address) (\(report.addressType)), \(rssi)")
            if !report.extendedFields.isEmpty {
                lines.append("  " + report.extendedFields.map { "\($0.name) \($0.value)" }.joined(separator: ", "))
            }
            if report.dataIsIncomplete {
                lines.append("  The data is a fragment of a longer advertisement: decoded as far as it goes.")
            }
            append(report.data, indent: "  ", to: &lines)
        }
    }

    private static func append(_ data: DecodedAdvertisingData, indent: String, to lines: inout [String]) {
        guard data.length > 0 else {
            lines.append(indent + "Advertising data, 0 bytes: no AD structures.")
            if let reason = data.notIBeaconReason { lines.append(indent + "Not an iBeacon: \(reason).") }
            return
        }
        lines.append(indent + "Advertising data, \(NumberText.count(data.length, "byte")) (offsets count from its first byte):")
        for structure in data.structures {
            let count = structure.data.count
            var line = "\(indent)  byte \(structure.offset): \(structure.typeDescription), \(NumberText.count(count, "byte"))"
            if count > 0 { line += ": \(HexText.bytes(structure.data))" }
            lines.append(line)
            for detail in structure.details { lines.append("\(indent)    \(detail)") }
        }
        if let terminator = data.terminatorOffset {
            let after = data.length - terminator - 1
            var line = "\(indent)  byte \(terminator): length 0: the significant part ends here"
            if after > 0 {
                line += " (\(NumberText.count(after, "byte")) of padding follow"
                line += data.nonZeroBytesAfterTerminator > 0 ? ", \(data.nonZeroBytesAfterTerminator) of them not zero, ignored)" : ")"
            }
            lines.append(line)
        }
        if let problem = data.problem { lines.append("\(indent)Malformed: \(problem).") }
        if let beacon = data.iBeacon {
            let identity = beacon.advertisement.identity
            let power = beacon.advertisement.measuredPower
            lines.append("\(indent)iBeacon (the structure at byte \(beacon.offset)):")
            lines.append("\(indent)  UUID            \(identity.uuid)")
            lines.append("\(indent)  major           \(identity.major) (\(HexText.code(identity.major, digits: 4)))")
            lines.append("\(indent)  minor           \(identity.minor) (\(HexText.code(identity.minor, digits: 4)))")
            lines.append("\(indent)  measured power  \(power) dBm (\(HexText.code(UInt8(bitPattern: power), digits: 2)))")
        } else if let reason = data.notIBeaconReason {
            lines.append("\(indent)Not an iBeacon: \(reason).")
        }
    }
}
