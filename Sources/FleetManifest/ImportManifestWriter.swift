import BeaconCore

/// A manifest being written line by line, each line remembering the CSV cell its value came
/// from, so a diagnostic about line N of the manifest can be shown at that cell instead.
struct ManifestLines {
    private(set) var text = ""
    /// The origin of each line, in order.
    private var origins: [SourceLocation?] = []

    mutating func append(_ line: String, from origin: SourceLocation? = nil) {
        text += line
        text += "\n"
        origins.append(origin)
    }

    /// The cell behind 1-based manifest line `line`, if that line holds a value.
    func origin(ofLine line: Int) -> SourceLocation? {
        guard line >= 1, line <= origins.count else { return nil }
        return origins[line - 1]
    }
}

/// Writes the rows of one fleet as a schema v1 manifest: venues in the order they first
/// appear, beacons in row order, and every value only where it differs from what the beacon
/// would inherit.
///
/// Shared values are lifted as a person would write them: the UUID most beacons use to the
/// top, each venue's most common major (and radio settings) to the venue, the fleet's most
/// common radio settings to `defaults`. A host is lifted to a venue only when every beacon
/// of it has one, because a manifest cannot say "no host" under a venue that has one.
struct ImportManifestWriter {
    let rows: [ImportedRow]

    private struct Settings: Equatable {
        var uuid: ProximityUUID?
        var major: UInt16?
        var measuredPower: MeasuredPower
        var intervalMilliseconds: Int
        var txPower: Int
        var host: String?
    }

    private struct Venue {
        var id: String
        var rows: [ImportedRow]
    }

    func write() -> ManifestLines {
        var out = ManifestLines()
        guard let first = rows.first else { return out }
        let venues = groupedByVenue()
        let fleet = Settings(
            uuid: Self.mostCommon(rows.map(\.identity.uuid)),
            major: nil,
            measuredPower: Self.mostCommon(rows.map(\.measuredPower)) ?? DocumentResolver.builtInMeasuredPower,
            intervalMilliseconds: Self.mostCommon(rows.map(\.intervalMilliseconds)) ?? DocumentResolver.builtInIntervalMilliseconds,
            txPower: Self.mostCommon(rows.map(\.txPower)) ?? DocumentResolver.builtInTxPower,
            host: Self.commonHost(rows))

        out.append("# Imported from a CSV export. Venue names, plans and regions are not part of")
        out.append("# an export: add them here.")
        out.append("version: 1")
        out.append("fleet: \(YAMLScalar.render(first.fleet))", from: first.origin(.fleet))
        if let uuid = fleet.uuid {
            out.append("uuid: \(uuid)", from: rows.first { $0.identity.uuid == uuid }?.origin(.uuid))
        }
        out.append("defaults:")
        out.append("  measured_power: \(Self.render(fleet.measuredPower))",
                   from: rows.first { $0.measuredPower == fleet.measuredPower }?.origin(.measuredPower))
        out.append("  interval_ms: \(fleet.intervalMilliseconds)",
                   from: rows.first { $0.intervalMilliseconds == fleet.intervalMilliseconds }?.origin(.intervalMilliseconds))
        out.append("  tx_power: \(fleet.txPower)",
                   from: rows.first { $0.txPower == fleet.txPower }?.origin(.txPower))
        if let host = fleet.host {
            out.append("  host: \(YAMLScalar.render(host))", from: rows.first { $0.host == host }?.origin(.host))
        }
        out.append("")
        out.append("venues:")
        for venue in venues {
            write(venue, inheriting: fleet, to: &out)
        }
        return out
    }

    private func write(_ venue: Venue, inheriting fleet: Settings, to out: inout ManifestLines) {
        let rows = venue.rows
        let venueUUID = Self.mostCommon(rows.map(\.identity.uuid))
        let settings = Settings(
            uuid: venueUUID ?? fleet.uuid,
            major: Self.mostCommon(rows.map(\.identity.major)),
            measuredPower: Self.mostCommon(rows.map(\.measuredPower)) ?? fleet.measuredPower,
            intervalMilliseconds: Self.mostCommon(rows.map(\.intervalMilliseconds)) ?? fleet.intervalMilliseconds,
            txPower: Self.mostCommon(rows.map(\.txPower)) ?? fleet.txPower,
            host: fleet.host ?? Self.venueHost(rows))
        let firstRow = rows.first
        out.append("  - id: \(YAMLScalar.render(venue.id))", from: firstRow?.origin(.venue))
        if settings.uuid != fleet.uuid, let uuid = settings.uuid {
            out.append("    uuid: \(uuid)", from: rows.first { $0.identity.uuid == uuid }?.origin(.uuid))
        }
        if let major = settings.major {
            out.append("    major: \(major)", from: rows.first { $0.identity.major == major }?.origin(.major))
        }
        if settings.measuredPower != fleet.measuredPower {
            out.append("    measured_power: \(Self.render(settings.measuredPower))",
                       from: rows.first { $0.measuredPower == settings.measuredPower }?.origin(.measuredPower))
        }
        if settings.intervalMilliseconds != fleet.intervalMilliseconds {
            out.append("    interval_ms: \(settings.intervalMilliseconds)",
                       from: rows.first { $0.intervalMilliseconds == settings.intervalMilliseconds }?.origin(.intervalMilliseconds))
        }
        if settings.txPower != fleet.txPower {
            out.append("    tx_power: \(settings.txPower)",
                       from: rows.first { $0.txPower == settings.txPower }?.origin(.txPower))
        }
        if settings.host != fleet.host, let host = settings.host {
            out.append("    host: \(YAMLScalar.render(host))", from: rows.first { $0.host == host }?.origin(.host))
        }
        out.append("    beacons:")
        for row in rows {
            write(row, inheriting: settings, to: &out)
        }
    }

    private func write(_ row: ImportedRow, inheriting venue: Settings, to out: inout ManifestLines) {
        let indent = "        "
        out.append("      - id: \(YAMLScalar.render(row.beacon))", from: row.origin(.beacon))
        if let name = row.name { out.append(indent + "name: \(YAMLScalar.render(name))", from: row.origin(.name)) }
        if let zone = row.zone { out.append(indent + "zone: \(YAMLScalar.render(zone))", from: row.origin(.zone)) }
        if row.identity.uuid != venue.uuid {
            out.append(indent + "uuid: \(row.identity.uuid)", from: row.origin(.uuid))
        }
        if row.identity.major != venue.major {
            out.append(indent + "major: \(row.identity.major)", from: row.origin(.major))
        }
        out.append(indent + "minor: \(row.identity.minor)", from: row.origin(.minor))
        if row.measuredPower != venue.measuredPower {
            out.append(indent + "measured_power: \(Self.render(row.measuredPower))", from: row.origin(.measuredPower))
        }
        if row.intervalMilliseconds != venue.intervalMilliseconds {
            out.append(indent + "interval_ms: \(row.intervalMilliseconds)", from: row.origin(.intervalMilliseconds))
        }
        if row.txPower != venue.txPower {
            out.append(indent + "tx_power: \(row.txPower)", from: row.origin(.txPower))
        }
        if let host = row.host, host != venue.host {
            out.append(indent + "host: \(YAMLScalar.render(host))", from: row.origin(.host))
        }
        if let position = row.position, let x = ExportNumber.text(position.x), let y = ExportNumber.text(position.y) {
            out.append(indent + "position: [\(x), \(y)]", from: row.origin(.x))
        }
        if let mac = row.mac {
            out.append(indent + "mac: \(YAMLScalar.doubleQuoted(mac.description))", from: row.origin(.mac))
        }
    }

    /// Venues in order of first appearance, each with its rows in CSV order.
    private func groupedByVenue() -> [Venue] {
        var venues: [Venue] = []
        var indexByID: [String: Int] = [:]
        for row in rows {
            if let index = indexByID[row.venue] {
                venues[index].rows.append(row)
            } else {
                indexByID[row.venue] = venues.count
                venues.append(Venue(id: row.venue, rows: [row]))
            }
        }
        return venues
    }

    /// The host every row has, when they all have the same one: hosts are machines in a
    /// venue, so only a fleet served by a single machine gets a default host.
    private static func commonHost(_ rows: [ImportedRow]) -> String? {
        guard let host = rows.first?.host, rows.allSatisfy({ $0.host == host }) else { return nil }
        return host
    }

    /// The venue's most common host, when every one of its beacons has a host.
    private static func venueHost(_ rows: [ImportedRow]) -> String? {
        let hosts = rows.compactMap(\.host)
        guard hosts.count == rows.count else { return nil }
        return mostCommon(hosts)
    }

    /// The most frequent value; among equally frequent ones, the first to appear, so the
    /// output does not depend on hashing.
    static func mostCommon<Value: Hashable>(_ values: [Value]) -> Value? {
        var counts: [Value: (count: Int, firstIndex: Int)] = [:]
        for (index, value) in values.enumerated() {
            counts[value, default: (0, index)].count += 1
        }
        return counts.max { lhs, rhs in
            lhs.value.count != rhs.value.count
                ? lhs.value.count < rhs.value.count
                : lhs.value.firstIndex > rhs.value.firstIndex
        }?.key
    }

    private static func render(_ power: MeasuredPower) -> String {
        switch power {
        case .auto: return "auto"
        case .dBm(let value): return String(value)
        }
    }
}
