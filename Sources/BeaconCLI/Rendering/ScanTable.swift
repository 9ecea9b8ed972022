import BeaconCore

/// The ranging table of `beaconctl scan`: one row per beacon, nearest first.
struct ScanTable: Sendable {
    /// Manifest beacon ids by identity, for the BEACON column.
    var names: [BeaconIdentity: String]
    var style: Style

    static let headers = [
        "IDENTITY", "BEACON", "ADDRESS", "RSSI", "FILTERED", "DISTANCE", "PROXIMITY", "PKT/S", "LAST SEEN",
    ]
    /// Columns whose values are numbers: right-aligned.
    private static let numericColumns: Set<Int> = [3, 4, 5, 7]

    /// The table's lines (header first), without trailing newlines. Beacons heard by more
    /// than one receiver (a broker's stream, a merged recording) get a RECEIVER column:
    /// each receiver ranges a beacon on its own readings, so one device can be two rows.
    func lines(_ beacons: [RangedBeacon], at time: Double) -> [String] {
        var headers = Self.headers
        var rows = beacons.map { row($0, at: time) }
        if Self.comeFromSeveralReceivers(beacons) {
            headers.append("RECEIVER")
            // Receiver names come from recordings and brokers: control characters escaped.
            for index in rows.indices { rows[index].append(Cell(ControlCharacters.escaped(beacons[index].receiver))) }
        }
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.text.count) }
        }
        var lines = [format(headers.map { Cell($0) }, widths: widths, header: true)]
        lines += rows.map { format($0, widths: widths, header: false) }
        return lines
    }

    /// Whether `beacons` were heard by more than one receiver: then each is ranged per
    /// receiver, and outputs name the receiver.
    static func comeFromSeveralReceivers(_ beacons: [RangedBeacon]) -> Bool {
        let first = beacons.first?.receiver
        return beacons.contains { $0.receiver != first }
    }

    private struct Cell {
        var text: String
        var colour: ((Style) -> (String) -> String)?

        init(_ text: String, colour: ((Style) -> (String) -> String)? = nil) {
            self.text = text
            self.colour = colour
        }
    }

    private func row(_ beacon: RangedBeacon, at time: Double) -> [Cell] {
        let distance: String
        if !beacon.measuredPowerIsPlausible {
            distance = "bad power \(beacon.measuredPower)"
        } else {
            distance = DistanceText.withInterval(beacon) ?? "-"
        }
        let proximityColour: ((Style) -> (String) -> String)?
        switch beacon.proximity {
        case .immediate: proximityColour = { $0.success }
        case .near: proximityColour = { $0.note }
        case .far: proximityColour = { $0.warning }
        case .unknown: proximityColour = { $0.dim }
        }
        let address = BluetoothAddress.text(beacon.address) + (beacon.addressIsRandom ? " (random)" : "")
        return [
            Cell(beacon.identity.description),
            Cell(names[beacon.identity] ?? "-"),
            Cell(address),
            Cell(beacon.rssi.map { "\($0)" } ?? "-"),
            Cell(beacon.filteredRSSI.map { Self.decimal($0, places: 1) } ?? "-"),
            Cell(distance),
            Cell(beacon.proximity.rawValue, colour: proximityColour),
            Cell(beacon.packetsPerSecond.map { Self.decimal($0, places: 1) } ?? "-"),
            Cell(Self.lastSeen(time - beacon.lastSeen)),
        ]
    }

    private func format(_ cells: [Cell], widths: [Int], header: Bool) -> String {
        var parts: [String] = []
        for (index, cell) in cells.enumerated() {
            let padding = String(repeating: " ", count: max(0, widths[index] - cell.text.count))
            var text = cell.text
            if header {
                text = style.bold(text)
            } else if let colour = cell.colour {
                text = colour(style)(text)
            }
            let isLast = index == cells.count - 1
            if Self.numericColumns.contains(index) {
                parts.append(padding + text)
            } else {
                parts.append(isLast ? text : text + padding)
            }
        }
        return parts.joined(separator: "  ")
    }

    /// `now`, `0.4 s ago`, `12 s ago`.
    static func lastSeen(_ age: Double) -> String {
        guard age.isFinite, age >= 0.05 else { return "now" }
        return (age < 10 ? decimal(age, places: 1) : decimal(age, places: 0)) + " s ago"
    }

    /// A number with a fixed count of decimals, rounded half away from zero, locale-free.
    static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 1e15 else { return "\(value)" }
        let units = Int64(scaled)
        let sign = value < 0 && units != 0 ? "-" : ""
        let whole = units / Int64(scale)
        guard places > 0 else { return sign + String(whole) }
        var fraction = String(units % Int64(scale))
        fraction = String(repeating: "0", count: places - fraction.count) + fraction
        return sign + String(whole) + "." + fraction
    }
}
