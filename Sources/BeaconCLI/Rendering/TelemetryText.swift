import BeaconCore

/// The telemetry part of `beaconctl scan`'s text output: the latest reading of each
/// advertiser heard with one, below the ranging table, so that a battery is read at a glance.
///
/// ```
/// TELEMETRY          BATTERY  TEMP     SOURCE         RECEIVER
/// D1:00:00:00:00:07  2.987 V  21.5 °C  eddystone-tlm  hci0
/// ```
enum TelemetryText {
    /// Lines to append to the table (a blank line, a header and one line a reading), or none
    /// when no telemetry was heard.
    static func lines(_ readings: [TelemetryReading], style: Style) -> [String] {
        guard !readings.isEmpty else { return [] }
        let headers = ["TELEMETRY", "BATTERY", "TEMP", "SOURCE", "RECEIVER"]
        let rows = readings.map { reading in
            [
                reading.address?.description ?? reading.identity.map { "\($0.uuid) \($0.major) \($0.minor)" } ?? "-",
                battery(reading), reading.temperature.map { "\(ScanTable.decimal($0, places: 1)) °C" } ?? "-",
                reading.source.rawValue, ControlCharacters.escaped(reading.receiver),
            ]
        }
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            // The last column unpadded: no trailing spaces.
            zip(cells, widths).enumerated().map { index, column in
                index == cells.count - 1 ? column.0 : column.0.padding(toLength: column.1, withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ["", style.bold(line(headers))] + rows.map(line)
    }

    /// `2.987 V`, `84 %`, both when both were said, `-` when neither.
    static func battery(_ reading: TelemetryReading) -> String {
        var parts: [String] = []
        if let volts = reading.batteryVolts { parts.append("\(ScanTable.decimal(volts, places: 3)) V") }
        if let percent = reading.batteryPercent { parts.append("\(percent) %") }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }
}
