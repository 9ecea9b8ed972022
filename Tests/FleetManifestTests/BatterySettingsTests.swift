import BeaconCore
import Testing

@testable import FleetManifest

/// `battery_low`, `battery` and `telemetry_mac`: read with their units, inherited like the
/// radio settings, refused with the position of the bad value.
@Suite struct BatterySettingsTests {
    private func beacon(_ field: String, _ value: String, code: String) -> MarkedFixture {
        MarkedFixture(header + """
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 1
                    \(field): ⟨\(code)⟩\(value)
            """)
    }

    @Test(arguments: [
        ("2.6V", BatteryLevel.millivolts(2600)), ("2.6 V", .millivolts(2600)), ("2600mV", .millivolts(2600)),
        ("2.45", .millivolts(2450)), ("3", .millivolts(3000)), ("20%", .percent(20)), ("\"2.5 v\"", .millivolts(2500)),
    ])
    func thresholdsRead(_ value: String, _ level: BatteryLevel) throws {
        let result = expectDiagnostics(beacon("battery_low", value, code: ""))
        let resolved = try #require(result.fleet.beacons.first)
        #expect(resolved.battery?.lowThreshold == level)
    }

    @Test(arguments: [
        ("0.2V", "value-out-of-range"), ("6V", "value-out-of-range"), ("0%", "value-out-of-range"),
        ("100%", "value-out-of-range"), ("low", "wrong-type"), ("2.6 volts", "wrong-type"), ("-2.6", "wrong-type"),
        ("120%", "wrong-type"), (".nan", "wrong-type"), ("[2.6]", "wrong-type"),
    ])
    func thresholdsRefused(_ value: String, _ code: String) {
        let result = expectDiagnostics(beacon("battery_low", value, code: code))
        #expect(result.fleet.beacons.isEmpty)
    }

    @Test func telemetryAddressIsChecked() throws {
        let result = expectDiagnostics(beacon("telemetry_mac", "AA-BB-CC", code: "invalid-mac"))
        #expect(result.fleet.beacons.isEmpty)
        let good = expectDiagnostics(beacon("telemetry_mac", "C4:5B:BE:12:34:56", code: ""))
        #expect(try #require(good.fleet.beacons.first).battery?.telemetryAddress == BluetoothAddress("C4:5B:BE:12:34:56"))
    }

    @Test func inheritedFromDefaultsAndVenueSharedAndCompleted() throws {
        let result = expectDiagnostics(MarkedFixture(header + """
            defaults:
              battery_low: 2.5V
              battery: CR2477
            venues:
              - id: v
                major: 1
                beacons:
                  - id: plain
                    minor: 1
                  - id: same
                    minor: 2
                  - id: own-threshold
                    minor: 3
                    battery_low: 2.7V
                  - id: other-address
                    minor: 4
                    telemetry_mac: C4:5B:BE:12:34:56
              - id: w
                major: 2
                battery: 2xAA alkaline
                beacons:
                  - id: w1
                    minor: 1
                  - id: host-beacon
                    minor: 2
                    host: pi-1
            """))
        let beacons = Dictionary(uniqueKeysWithValues: result.fleet.beacons.map { ($0.id, $0) })
        let plain = try #require(beacons["plain"]?.battery)
        #expect(plain.lowThreshold == .millivolts(2500) && plain.type?.chemistry == .lithiumManganese)
        // Beacons that set nothing share one object: a reference each, not the values.
        #expect(plain === beacons["same"]?.battery)
        #expect(beacons["own-threshold"]?.battery?.lowThreshold == .millivolts(2700))
        #expect(beacons["own-threshold"]?.battery?.type?.name == "CR2477")
        #expect(beacons["other-address"]?.battery?.telemetryAddress == BluetoothAddress("C4:5B:BE:12:34:56"))
        #expect(beacons["other-address"]?.battery?.lowThreshold == .millivolts(2500))
        #expect(beacons["w1"]?.battery?.type?.chemistry == .alkaline)
        #expect(beacons["w1"]?.battery?.lowThreshold == .millivolts(2500))
        #expect(beacons["host-beacon"]?.battery != nil)
    }

    @Test func telemetryAddressOnlyOnBeacons() {
        expectDiagnostics(MarkedFixture(header + """
            defaults:
              ⟨unknown-field⟩telemetry_mac: C4:5B:BE:12:34:56
            venues:
              - id: v
                major: 1
                beacons:
                  - id: b
                    minor: 1
            """))
    }

    @Test func noBatteryMeansNoObject() throws {
        let result = expectDiagnostics(beacon("name", "entrance", code: ""))
        #expect(try #require(result.fleet.beacons.first).battery == nil)
    }
}
