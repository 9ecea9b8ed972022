import Foundation
import Testing

@testable import BeaconCLI

/// The whole battery loop through the command line: a recording of eight simulated days with
/// telemetry lines, watched with a state file, then the replacement plan read from it.
@Suite struct BatteryWatchCommandTests {
    static let manifest = """
        version: 1
        fleet: corner-shop
        uuid: 04F6CBA0-321A-40F4-BDE2-A613959BBF4B
        defaults:
          battery_low: 2.7V
          battery: 2xAA alkaline
        venues:
          - id: shop
            major: 1
            beacons:
              - id: door
                minor: 1
              - id: till
                minor: 2
        """

    /// Every 30 minutes for eight days up to now: door drains 20 mV a day from 2.80 V (it
    /// crosses 2.7 V on day 5), till 10 mV a day from 2.95 V; ±15 mV of fixed noise around
    /// each, so that door's readings waver across the threshold as it nears it.
    static func recording(endingAt end: Double) -> String {
        let start = (end - 8 * 86_400).rounded(.down)
        let noise = [0, 15, -15, 8, -8, 12, -12]
        var lines: [String] = []
        for step in 0..<(8 * 48) {
            let time = start + Double(step) * 1800
            let days = Double(step) / 48
            for (minor, address, base, drain) in [(1, "C0:00:00:00:00:01", 2800.0, 20.0), (2, "C0:00:00:00:00:02", 2950.0, 10.0)] {
                lines.append(#"{"uuid":"04F6CBA0-321A-40F4-BDE2-A613959BBF4B","major":1,"minor":\#(minor),"measured_power":-59,"address":"\#(address)","address_random":true,"rssi":-70,"time":\#(time),"clock":"unix","receiver":"box"}"#)
                let millivolts = Int(base - drain * days) + noise[step % noise.count]
                lines.append(#"{"telemetry":1,"source":"eddystone-tlm","address":"\#(address)","address_random":true,"battery_mv":\#(millivolts),"battery_percent":null,"temperature":21.5,"time":\#(time + 1),"clock":"unix","receiver":"box"}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func oneEventThenThePlanFromTheStateFile() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", Self.manifest)
        let input = try scratch.write("days.jsonl", Self.recording(endingAt: Date().timeIntervalSince1970))
        let state = scratch.path + "/watch.state"
        let watch = await runBeaconctl(["verify", manifest, "--watch", "--silence", "7200", "--input", input, "--state", state, "--format", "jsonl"])
        let lines = watch.output.split(separator: "\n").map(String.init)
        let batteryEvents = lines.filter { $0.contains(#""event":"battery-"#) }
        // Door crosses once, however its readings waver; till never does.
        #expect(batteryEvents.count == 1, "\(batteryEvents)")
        #expect(batteryEvents.first?.contains(#""event":"battery-low","time":"#) == true)
        #expect(batteryEvents.first?.contains(#""beacon":"door""#) == true)
        // The watch fails on a low battery at the end of its input, and says which.
        #expect(watch.status == 1)
        #expect(lines.last?.contains(#""not_ok":[{"beacon":"door","state":"battery-low"}]"#) == true)

        let plan = await runBeaconctl(["fleet", "batteries", manifest, "--state", state, "--format", "json"])
        #expect(plan.status == 0, "\(plan.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(plan.output.utf8)) as? [String: Any])
        let beacons = try #require(object["beacons"] as? [[String: Any]])
        #expect(beacons.map { $0["beacon"] as? String } == ["door", "till"])
        #expect(beacons[0]["replace"] as? Bool == true && beacons[0]["days_left"] as? Int == 0)
        // Till: 2.95 V − 10 mV a day reaches 2.7 V on day 25 of the recording, which ended on day 8.
        let daysLeft = try #require(beacons[1]["days_left"] as? Int)
        #expect((15...19).contains(daysLeft), "till: \(daysLeft) days left")
        #expect(beacons[1]["replace"] as? Bool == true)

        let later = await runBeaconctl(["fleet", "batteries", manifest, "--state", state, "--within", "10", "--format", "csv"])
        let rows = later.output.split(separator: "\r\n").map(String.init)
        #expect(rows.first == "venue,beacon,name,zone,battery,threshold,level,last_day,days_of_history,days_left,due,replace,reason")
        #expect(rows.count == 3 && rows[1].hasPrefix("shop,door,") && rows[2].hasPrefix("shop,till,"), "\(rows)")
        #expect(rows[2].contains(",no,reaches 2.7 V in about"))
    }

    @Test func aMissingStateFileSaysWhatToRun() async throws {
        let scratch = try ScratchFolder()
        let manifest = try scratch.write("shop.yaml", Self.manifest)
        let result = await runBeaconctl(["fleet", "batteries", manifest, "--state", scratch.path + "/none"])
        #expect(result.status == 2)
        #expect(result.error.contains("run beaconctl verify --watch … --state"))
    }
}
