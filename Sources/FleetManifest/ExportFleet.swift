/// Resolved beacons as CSV or JSON, one row or object per beacon, for spreadsheets, asset
/// registers and vendor consoles.
///
/// Both formats carry the same fields, named and ordered as `ExportColumn`:
/// `fleet,venue,beacon,name,zone,uuid,major,minor,measured_power,interval_ms,tx_power,x,y,host,mac`.
/// Values are the resolved ones (inheritance applied), so every row stands on its own;
/// `FleetImport` turns such a CSV back into a manifest.
public enum FleetExport {
    /// CSV after RFC 4180: a header row, then one record per beacon in the given order;
    /// records end with CRLF; cells holding a comma, quote or line break are quoted.
    /// Absent optional values are empty cells; measured power is `auto` or dBm.
    public static func csv(_ beacons: [ResolvedBeacon]) -> String {
        var text = CSVField.record(ExportColumn.allCases.map(\.name))
        // About 150 bytes a row: one allocation for a fleet of typical beacons.
        text.reserveCapacity(text.utf8.count + beacons.count * 160)
        var reader = ExportValueReader()
        for beacon in beacons {
            for column in ExportColumn.allCases {
                if column != .fleet { text += "," }
                CSVField.append(reader.value(column, of: beacon).csvText, to: &text)
            }
            text += "\r\n"
        }
        return text
    }

    /// A JSON array with one object per beacon, one object per line. Every object has every
    /// key, in column order; absent optional values are `null`; numbers are JSON numbers,
    /// except measured power `"auto"`.
    public static func json(_ beacons: [ResolvedBeacon]) -> String {
        guard !beacons.isEmpty else { return "[]\n" }
        var text = "[\n"
        text.reserveCapacity(beacons.count * 330)
        var reader = ExportValueReader()
        for (index, beacon) in beacons.enumerated() {
            text += index == 0 ? "  " : ",\n  "
            ExportJSON.appendObject(of: beacon, reading: &reader, to: &text)
        }
        text += "\n]\n"
        return text
    }
}
