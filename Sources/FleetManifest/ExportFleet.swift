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
        var text = CSVField.record(ExportColumn.allCases.map(\.rawValue))
        for beacon in beacons {
            text += CSVField.record(beacon.exportValues.map(\.csvText))
        }
        return text
    }

    /// A JSON array with one object per beacon, one object per line. Every object has every
    /// key, in column order; absent optional values are `null`; numbers are JSON numbers,
    /// except measured power `"auto"`.
    public static func json(_ beacons: [ResolvedBeacon]) -> String {
        guard !beacons.isEmpty else { return "[]\n" }
        let objects = beacons.map { "  " + ExportJSON.object($0.exportValues) }
        return "[\n" + objects.joined(separator: ",\n") + "\n]\n"
    }
}
