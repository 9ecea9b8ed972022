import BeaconCore
import BeaconFleet
import FleetManifest

/// `beaconctl fleet batteries`: the replacement plan as a table, CSV (RFC 4180) or JSON.
enum BatteryReplacementOutput {
    static let columns = [
        "venue", "beacon", "name", "zone", "battery", "threshold", "level", "last_day", "days_of_history",
        "days_left", "due", "replace", "reason",
    ]

    static func cells(_ row: BatteryReplacementPlan.Row, today: Int) -> [String] {
        [
            row.venueID, row.beaconID, row.name ?? "", row.zone ?? "", row.batteryType ?? "", row.threshold.description,
            row.level?.description ?? "", row.lastDay.flatMap(date) ?? "", String(row.daysOfHistory),
            row.daysLeft.map { String(Int($0.rounded(.down))) } ?? "", due(row, today: today) ?? "", row.replace ? "yes" : "no", row.reason,
        ]
    }

    static func csv(_ plan: BatteryReplacementPlan, today: Int) -> String {
        CSVField.record(columns) + plan.rows.map { CSVField.record(cells($0, today: today)) }.joined()
    }

    /// `{"beacons":[{…},…],"replace":N}`: one object per beacon, the columns as keys, numbers as
    /// numbers, unknown values `null`.
    static func json(_ plan: BatteryReplacementPlan, today: Int) -> String {
        func optional(_ text: String?) -> String { text.map(JSONText.stringLiteral) ?? "null" }
        let objects = plan.rows.map { row in
            var fields: [String] = []
            fields.append("\"venue\":" + JSONText.stringLiteral(row.venueID))
            fields.append("\"beacon\":" + JSONText.stringLiteral(row.beaconID))
            fields.append("\"name\":" + optional(row.name))
            fields.append("\"zone\":" + optional(row.zone))
            fields.append("\"battery\":" + optional(row.batteryType))
            fields.append("\"threshold\":" + JSONText.stringLiteral(row.threshold.description))
            fields.append("\"level\":" + optional(row.level?.description))
            fields.append("\"last_day\":" + optional(row.lastDay.flatMap(date)))
            fields.append("\"days_of_history\":\(row.daysOfHistory)")
            fields.append("\"days_left\":" + (row.daysLeft.map { String(Int($0.rounded(.down))) } ?? "null"))
            fields.append("\"due\":" + optional(due(row, today: today)))
            fields.append("\"replace\":\(row.replace)")
            fields.append("\"reason\":" + JSONText.stringLiteral(row.reason))
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{\"beacons\":[" + objects.joined(separator: ",") + "],\"replace\":\(plan.toReplace.count)}\n"
    }

    /// `shop  door  2.41 V  below 2.5 V now  REPLACE`, a venue heading each.
    static func text(_ plan: BatteryReplacementPlan, today: Int) -> String {
        guard !plan.rows.isEmpty else { return "no beacon of the manifest has a battery_low: nothing to plan\n" }
        var text = ""
        var venue: String?
        let width = min(32, plan.rows.map(\.beaconID.count).max() ?? 1)
        for row in plan.rows {
            if row.venueID != venue {
                venue = row.venueID
                text += (text.isEmpty ? "" : "\n") + ControlCharacters.escaped(row.venueID) + "\n"
            }
            let id = ControlCharacters.escaped(row.beaconID)
            let padded = id + String(repeating: " ", count: max(0, width - id.count))
            let level = (row.level?.description ?? "—").padding(toLength: 8, withPad: " ", startingAt: 0)
            text += "  \(row.replace ? "REPLACE" : "       ")  \(padded)  \(level)  \(row.reason)"
                + (due(row, today: today).map { " (\($0))" } ?? "") + "\n"
        }
        let count = plan.toReplace.count
        text += "\n\(NumberText.count(count, "beacon")) to replace on the next visit\n"
        return text
    }

    /// The day the trend reaches the threshold, when the history counts Unix days: a watch
    /// replaying a recording on an elapsed clock counts days from its start instead, which
    /// name no date.
    static func due(_ row: BatteryReplacementPlan.Row, today: Int) -> String? {
        guard let lastDay = row.lastDay, let daysLeft = row.daysLeft, lastDay >= unixDaysFrom,
              let offset = Int(exactly: daysLeft.rounded(.down)) else { return nil }
        return date(today + offset)
    }

    /// Days before this (1997-05-19) are taken for days of an elapsed clock, not Unix days.
    static let unixDaysFrom = 10_000

    /// `2026-11-28` for a Unix day; `nil` for days of an elapsed clock.
    static func date(_ day: Int) -> String? {
        guard day >= unixDaysFrom, let text = WallClock.iso8601(Double(day) * 86_400) else { return nil }
        return String(text.prefix(10))
    }
}
