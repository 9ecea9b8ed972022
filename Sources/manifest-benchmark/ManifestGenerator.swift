import BeaconCore

/// Writes realistic manifests of any size: venues of 15 to 25 beacons (20 on average),
/// every field of the schema used somewhere, values varied the way real fleets vary
/// (calibrated powers on some beacons, per-beacon hosts on a few, overrides here and there).
/// Deterministic: the same count gives the same bytes.
struct ManifestGenerator {
    let beaconCount: Int

    func generate() -> [UInt8] {
        var out = ByteWriter(capacity: beaconCount * 230 + 4096)
        out.line("# Generated benchmark fleet: \(beaconCount) beacons.")
        out.line("version: 1")
        out.line("fleet: benchmark-fleet")
        out.line("uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3")
        out.line("max_beacons_per_host: 32")
        out.line("defaults:")
        out.line("  measured_power: auto")
        out.line("  interval_ms: 100")
        out.line("  tx_power: 0")
        out.line("venues:")
        var written = 0
        var venue = 0
        while written < beaconCount {
            venue += 1
            let size = min(15 + (venue * 7) % 11, beaconCount - written)
            writeVenue(venue, size: size, firstIndex: written, into: &out)
            written += size
        }
        out.line("regions:")
        out.line("  - id: every-venue")
        out.line("    notify_state_on_start: true")
        for region in 1...min(venue, 20) {
            out.line("  - id: venue-\(region)")
            out.line("    major: \(region)")
            out.line("    notify_on_exit: false")
        }
        return out.bytes
    }

    private func writeVenue(_ venue: Int, size: Int, firstIndex: Int, into out: inout ByteWriter) {
        let id = "venue-\(padded(venue, 5))"
        out.line("  - id: \(id)")
        out.line("    name: Store \(venue), Main Street")
        out.line("    major: \(venue)")
        out.line("    host: gw-\(padded(venue, 5))")
        if venue % 4 == 0 { out.line("    measured_power: -62") }
        if venue % 9 == 0 { out.line("    interval_ms: 200") }
        out.line("    plan: {width: 40, height: 30}")
        out.line("    beacons:")
        for offset in 0..<size {
            let index = firstIndex + offset
            let minor = offset + 1
            out.line("      - id: \(id)-b\(padded(minor, 2))")
            out.line("        name: Beacon \(minor)")
            out.line("        zone: \(zones[offset % zones.count])")
            out.line("        minor: \(minor)")
            if index % 3 == 0 { out.line("        measured_power: -\(55 + index % 15)") }
            if index % 10 == 0 { out.line("        tx_power: -4") }
            if index % 50 == 0 { out.line("        host: pi-\(padded(venue, 5))-\(minor)") }
            out.line("        position: [\(Double(offset % 8) * 4.5 + 1.25), \(Double(offset / 8) * 6.5 + 2)]")
            out.line("        mac: \"\(address(index))\"")
        }
    }

    private let zones = ["entrance", "register", "window", "counter", "patio", "drive-thru"]

    private func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// A unique locally administered address per beacon.
    private func address(_ index: Int) -> String {
        BluetoothAddress(truncating: UInt64(0xC2_00_00_00_00_00) | UInt64(truncatingIfNeeded: index)).description
    }
}

/// Appends text to a byte buffer without building one large String.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func line(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }
}
