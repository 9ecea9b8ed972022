import BeaconCore
import BeaconFleet
import BeaconTestKit
import FleetManifest
import Foundation
import Testing

@testable import BeaconCLI

/// Batteries in every report format of a one-shot pass: the level and its age beside the
/// verdict, `battery-low` and `no-telemetry` as findings, nothing said of beacons the
/// manifest expects no telemetry from.
@Suite struct BatteryReportTests {
    typealias Script = VerificationScript

    static func result() throws -> VerificationResult {
        func battery(_ beacon: ExpectedBeacon) -> ExpectedBeacon {
            var beacon = beacon
            beacon.battery = BeaconBattery(lowThreshold: .millivolts(2500), type: BatteryType(name: "CR2477"))
            return beacon
        }
        let beacons = [
            battery(Script.beacon("door", minor: 1)), battery(Script.beacon("till", minor: 2)),
            battery(Script.beacon("shelf", minor: 3)), Script.beacon("pi", minor: 4),
        ]
        var feed = VerificationFeed(try Script.plan(beacons), policy: VerificationPolicy(timeout: .seconds(10)))
        for minor in 1...4 {
            feed.play(Script.train(Script.identity(minor: UInt16(minor)), address: "C0:00:00:00:00:0\(minor)", count: 5))
        }
        func tlm(_ millivolts: UInt16, _ address: String, at time: Double) -> TelemetryReading {
            TelemetryReading(
                address: BluetoothAddress(address), addressIsRandom: true, batteryMillivolts: millivolts, temperature: 19.25,
                time: time, clock: .elapsed, receiver: "script", source: .eddystoneTLM)
        }
        _ = feed.engine.observe(tlm(2950, "C0:00:00:00:00:01", at: 1), at: .seconds(1))
        _ = feed.engine.observe(tlm(2410, "C0:00:00:00:00:02", at: 2), at: .seconds(2))
        feed.advance(to: 10)
        return try #require(feed.result)
    }

    @Test func text() throws {
        let text = VerifyTextReport.render(try Self.result(), style: Style(choice: .never, isTerminal: false, environment: [:]))
        #expect(text.contains("battery 2.95 V, 9 s old"))
        #expect(text.contains("battery 2.41 V (low: below 2.5 V), 8 s old"))
        #expect(text.contains("no telemetry (battery_low 2.5 V: none heard from it)"))
        #expect(text.components(separatedBy: "battery").count - 1 == 4)  // three lines, one "battery_low"
        #expect(text.contains("failed: 4 beacons: 4 ok; 1 battery-low, 1 no-telemetry;"))
    }

    @Test func json() throws {
        let json = VerificationJSONReport.render(try Self.result())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["passed"] as? Bool == false)
        let beacons = try #require(object["beacons"] as? [[String: Any]])
        let till = try #require(beacons[1]["battery"] as? [String: Any])
        #expect(till["status"] as? String == "battery-low" && till["battery_mv"] as? Int == 2410)
        #expect(till["threshold"] as? String == "2.5 V" && till["source"] as? String == "eddystone-tlm")
        #expect(till["age_s"] as? Double == 8 && till["temperature_c"] as? Double == 19.25)
        #expect((beacons[2]["battery"] as? [String: Any])?["status"] as? String == "no-telemetry")
        #expect(beacons[3]["battery"] == nil)
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["battery_low"] as? Int == 1 && summary["no_telemetry"] as? Int == 1)
        #expect(summary["telemetry_readings"] as? Int == 2 && summary["unpaired_telemetry"] as? Int == 0)
    }

    @Test func markdownAndJUnit() throws {
        let result = try Self.result()
        let markdown = VerificationMarkdownReport.render(result)
        #expect(markdown.contains("| Battery |"))
        #expect(markdown.contains("**battery 2.41 V (low: below 2.5 V), 8 s old**"))
        let junit = VerificationJUnitReport.render(result)
        #expect(junit.contains(#"failures="2""#))
        #expect(junit.contains(#"<failure type="battery-low""#))
        #expect(junit.contains(#"<failure type="no-telemetry""#))
    }
}
