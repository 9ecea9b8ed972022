import BeaconCore
import BeaconFleet
import BeaconTestKit
import FleetManifest
import Testing

/// The watch's batteries: one event per crossing, `battery-ok` after a replacement, the
/// forecast from daily medians against the drain the test sets.
@Suite struct BatteryWatchTests {
    typealias Script = VerificationScript

    static func door(threshold: BatteryLevel = .millivolts(2500)) -> ExpectedBeacon {
        var door = Script.beacon("door", minor: 1)
        door.battery = BeaconBattery(lowThreshold: threshold, type: BatteryType(name: "2xAA alkaline"))
        return door
    }

    static func reading(_ millivolts: UInt16, at time: Double, from address: String = Script.deviceA) -> TelemetryReading {
        TelemetryReading(
            address: BluetoothAddress(address), addressIsRandom: true, batteryMillivolts: millivolts, temperature: nil,
            time: time, clock: .elapsed, receiver: "script", source: .eddystoneTLM)
    }

    @Test func crossesOnceWaversThenRecoversAfterReplacement() throws {
        var audit = AuditFeed(plan: try Script.plan([Self.door()]), configuration: .init(silence: .seconds(60)))
        _ = audit.observe(Script.sighting(Script.identity(minor: 1), at: 0))
        var events: [AuditBatteryEvent] = []
        // A reading a minute, drifting down through the threshold with ±30 mV of noise.
        let noise: [Int] = [0, 30, -30, 10, -20, 25, -15]
        for minute in 0..<120 {
            let time = Double(minute) * 60
            _ = audit.observe(Script.sighting(Script.identity(minor: 1), at: time))
            let value = 2620 - minute * 2 + noise[minute % noise.count]
            events += audit.observe(Self.reading(UInt16(value), at: time))
        }
        #expect(events.map(\.kind) == [.low])
        #expect(events.first?.beaconID == "door" && events.first?.threshold == .millivolts(2500))
        // New cells.
        for minute in 120..<125 {
            let time = Double(minute) * 60
            _ = audit.observe(Script.sighting(Script.identity(minor: 1), at: time))
            events += audit.observe(Self.reading(3100, at: time))
        }
        #expect(events.map(\.kind) == [.low, .ok])
        #expect(audit.batteryStandings.first?.standing == .ok)
    }

    @Test func readingsFromAnAddressNoBeaconUsesAreCountedNotGuessed() throws {
        var audit = AuditFeed(plan: try Script.plan([Self.door()]), configuration: .init(silence: .seconds(60)))
        _ = audit.observe(Script.sighting(Script.identity(minor: 1), at: 0))
        #expect(audit.observe(Self.reading(2000, at: 1, from: Script.deviceB)).isEmpty)
        #expect(audit.telemetryCounts == TelemetryCounts(received: 1, unpaired: 1))
        #expect(audit.batteryStandings.first?.level == nil)
    }

    @Test func anAddressHeardLaterIsPairedOnceASilencePassed() throws {
        var audit = AuditFeed(plan: try Script.plan([Self.door()]), configuration: .init(silence: .seconds(60)))
        _ = audit.observe(Script.sighting(Script.identity(minor: 1), address: Script.deviceB, at: 0))
        // Telemetry from device A before door was ever heard from it: unpaired, and not looked
        // up again for a silence.
        _ = audit.observe(Self.reading(2900, at: 1))
        _ = audit.observe(Script.sighting(Script.identity(minor: 1), at: 2))
        _ = audit.observe(Self.reading(2900, at: 3))
        #expect(audit.telemetryCounts == TelemetryCounts(received: 2, unpaired: 2))
        _ = audit.observe(Script.sighting(Script.identity(minor: 1), at: 62))
        _ = audit.observe(Self.reading(2900, at: 62))
        #expect(audit.telemetryCounts == TelemetryCounts(received: 3, unpaired: 2))
        #expect(audit.batteryStandings.first?.level == .millivolts(2900))
    }

    @Test func forecastFollowsTheDrainSet() throws {
        // Ten simulated days, a reading every 10 minutes, draining 20 mV a day from 2.9 V
        // with noise: the trend must put the 2.5 V threshold about 20 days after day 9.
        var audit = AuditFeed(plan: try Script.plan([Self.door()]), configuration: .init(silence: .seconds(3600)))
        var generator = SeededGenerator(seed: 7)
        for step in 0..<(10 * 144) {
            let time = Double(step) * 600
            _ = audit.observe(Script.sighting(Script.identity(minor: 1), at: time))
            let drained = 2900 - 20 * time / 86_400
            let noise = Double.random(in: -25...25, using: &generator)
            _ = audit.observe(Self.reading(UInt16(drained + noise), at: time))
        }
        let standing = try #require(audit.batteryStandings.first)
        #expect(standing.history.count == 10)
        let days = try #require(standing.forecast.daysLeft)
        // Day 9's median sits at about 2.9 − 9.5 × 0.02 = 2.71 V: 10.5 days of 20 mV to 2.5 V.
        #expect(abs(days - 10.5) < 1.0, "forecast \(days) days")
    }

    @Test func aRestartDoesNotPageAgainForALowBattery() throws {
        var audit = AuditFeed(plan: try Script.plan([Self.door()]), configuration: .init(silence: .seconds(60)))
        #expect(audit.restoreBatteryHistories(["door": [.init(day: 1, value: 2450), .init(day: 2, value: 2440)]]) == 1)
        _ = audit.observe(Script.sighting(Script.identity(minor: 1), at: 0))
        #expect(audit.observe(Self.reading(2430, at: 1)).isEmpty)
        #expect(audit.batteryStandings.first?.standing == .low)
        // Replaced meanwhile: ok, said once.
        #expect(audit.observe(Self.reading(3050, at: 2)).map(\.kind) == [.ok])
    }

    @Test func forecastSaysWhenHistoryIsShortOrFlat() {
        #expect(BatteryForecast(history: [.init(day: 1, value: 2900), .init(day: 2, value: 2880)], threshold: 2500)
            == .notEnoughHistory(days: 2))
        #expect(BatteryForecast(history: (0..<5).map { .init(day: $0, value: 3000) }, threshold: 2500) == .notDeclining)
        #expect(BatteryForecast(history: (0..<5).map { .init(day: $0, value: 2500 - $0) }, threshold: 2500) == .reached)
        if case .days(let days) = BatteryForecast(history: (0..<4).map { .init(day: $0, value: 3000 - 100 * $0) }, threshold: 2500) {
            #expect(abs(days - 2) < 1e-9)
        } else {
            Issue.record("a straight decline of 100 mV a day from 2.5 V + 200 mV must reach it in 2 days")
        }
    }
}
