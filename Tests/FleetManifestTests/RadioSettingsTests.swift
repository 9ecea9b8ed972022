import BeaconCore
import Testing

@testable import FleetManifest

/// Measured power, advertising interval and TX power: ranges the radio accepts, values
/// that are legal but suspicious.
@Suite struct RadioSettingsTests {
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

    @Test(arguments: ["-127", "-1", "0", "5", "-128", "auto", "\"auto\"", "-59", "-101", "-29", "AUTO", "-59.5"])
    func measuredPower(_ value: String) throws {
        let code: String
        switch value {
        case "0", "5", "-128": code = "value-out-of-range"
        case "-127", "-1", "-101", "-29": code = "implausible-measured-power"
        case "AUTO", "-59.5": code = "wrong-type"
        default: code = ""
        }
        let result = expectDiagnostics(beacon("measured_power", value, code: code))
        if code == "" || code == "implausible-measured-power" {
            let resolved = try #require(result.fleet.beacons.first)
            let expected: MeasuredPower = value.contains("auto") ? .auto : .dBm(Int8(value) ?? 0)
            #expect(resolved.measuredPower == expected)
        } else {
            #expect(result.fleet.beacons.isEmpty)
        }
    }

    @Test(arguments: ["19", "20", "99", "100", "10240", "10241"])
    func advertisingInterval(_ value: String) throws {
        let code: String
        switch value {
        case "19", "10241": code = "value-out-of-range"
        case "20", "99": code = "short-interval"
        default: code = ""
        }
        let result = expectDiagnostics(beacon("interval_ms", value, code: code))
        if code != "value-out-of-range" {
            #expect(result.fleet.beacons.first?.intervalMilliseconds == Int(value))
        }
    }

    @Test(arguments: ["-128", "-127", "0", "20", "21", "+4"])
    func txPower(_ value: String) throws {
        let code: String
        switch value {
        case "-128", "21": code = "value-out-of-range"
        case "+4": code = "ambiguous-number"
        default: code = ""
        }
        let result = expectDiagnostics(beacon("tx_power", value, code: code))
        if code.isEmpty {
            #expect(result.fleet.beacons.first?.txPower == Int(value))
        }
    }

    @Test func rangeMessagesCiteTheSpecification() throws {
        let interval = try diagnostic("value-out-of-range", in: expectDiagnostics(beacon("interval_ms", "10", code: "value-out-of-range")))
        #expect(interval.message == "`interval_ms` is 10 ms; it must be 20…10240 ms")
        #expect(interval.hint == "Bluetooth allows advertising intervals of 20 ms to 10.24 s (Core v5.4 Vol 4 Part E 7.8.5)")
        let power = try diagnostic("value-out-of-range", in: expectDiagnostics(beacon("measured_power", "3", code: "value-out-of-range")))
        #expect(power.message == "`measured_power` is 3; it must be −127…−1 dBm or `auto`")
        let suspicious = try diagnostic("implausible-measured-power", in: expectDiagnostics(beacon("measured_power", "-12", code: "implausible-measured-power")))
        #expect(suspicious.severity == .warning)
        #expect(suspicious.message.hasPrefix("`measured_power` -12 dBm is unusual for the RSSI at 1 m"))
    }
}
