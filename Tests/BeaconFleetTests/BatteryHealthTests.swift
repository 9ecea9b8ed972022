import BeaconCore
import BeaconFleet
import BeaconTestKit
import FleetManifest
import Testing

/// Batteries judged beside the verdicts: the judge's hysteresis, pairing telemetry with the
/// manifest's beacons without guessing, and the one-shot pass that waits for the telemetry
/// it expects.
@Suite struct BatteryHealthTests {
    typealias Script = VerificationScript

    static func tlm(_ millivolts: UInt16?, from address: String? = Script.deviceA, at time: Double = 0, percent: UInt8? = nil)
        -> TelemetryReading
    {
        TelemetryReading(
            address: address.flatMap(BluetoothAddress.init), addressIsRandom: true, batteryMillivolts: millivolts,
            batteryPercent: percent, temperature: 21.5, time: time, clock: .elapsed, receiver: "script", source: .eddystoneTLM)
    }

    static func battery(_ threshold: BatteryLevel = .millivolts(2500), telemetry: String? = nil) -> BeaconBattery {
        BeaconBattery(lowThreshold: threshold, type: BatteryType(name: "CR2477"), telemetryAddress: telemetry.flatMap(BluetoothAddress.init))
    }

    @Test func judgeCrossesOnceAndHoldsThroughWavering() {
        var judge = BatteryJudge(threshold: .millivolts(2500))
        var transitions: [BatteryJudge.Transition] = []
        // Healthy, then wavering around the threshold, then clearly low, then wavering just
        // above it: one `becameLow` only.
        let readings: [UInt16] = [2700, 2690, 2560, 2520, 2490, 2510, 2480, 2470, 2460, 2510, 2520, 2530, 2490, 2540, 2550]
        for value in readings {
            if let transition = judge.take(Self.tlm(value)) { transitions.append(transition) }
        }
        #expect(transitions == [.becameLow])
        #expect(judge.standing == .low)
        // A new cell: ok at once, and the old readings no longer weigh.
        #expect(judge.take(Self.tlm(3010)) == .recovered)
        #expect(judge.level == .millivolts(3010))
        #expect(judge.take(Self.tlm(3000)) == nil)
    }

    @Test func oneDipDoesNotPage() {
        var judge = BatteryJudge(threshold: .millivolts(2500))
        for value: UInt16 in [2700, 2700, 2700, 2300, 2700] {
            #expect(judge.take(Self.tlm(value)) == nil)
        }
        #expect(judge.standing == .ok)
    }

    @Test func unitsAreNeverConverted() {
        var judge = BatteryJudge(threshold: .percent(20))
        #expect(judge.take(Self.tlm(2000)) == nil)
        #expect(judge.standing == .unknown)
        #expect(judge.take(Self.tlm(nil, percent: 15)) == .becameLow)
    }

    @Test func pairingByIdentityManifestAddressAndHeardAddressNeverAGuess() {
        var withTelemetryAddress = Script.beacon("a", minor: 1)
        withTelemetryAddress.battery = Self.battery(telemetry: "C0:00:00:00:00:AA")
        let pinned = Script.beacon("b", minor: 2, mac: "C0:00:00:00:00:BB")
        let heard = Script.beacon("c", minor: 3)
        let sharedOne = Script.beacon("d", minor: 4)
        let sharedTwo = Script.beacon("e", minor: 5)
        let beacons = [withTelemetryAddress, pinned, heard, sharedOne, sharedTwo]
        let heardFrom: [[String]] = [[], [], ["C0:00:00:00:00:CC"], ["C0:00:00:00:00:DD"], ["C0:00:00:00:00:DD"]]
        let pairing = TelemetryPairing(beacons: beacons) { heardFrom[$0].compactMap(BluetoothAddress.init) }
        let byIdentity = Dictionary(uniqueKeysWithValues: beacons.enumerated().map { ($1.identity, $0) })
        func beacon(for reading: TelemetryReading) -> Int? { pairing.beacon(for: reading, identityIndex: { byIdentity[$0] }) }
        #expect(beacon(for: Self.tlm(2900, from: "C0:00:00:00:00:AA")) == 0)
        #expect(beacon(for: Self.tlm(2900, from: "C0:00:00:00:00:BB")) == 1)
        #expect(beacon(for: Self.tlm(2900, from: "C0:00:00:00:00:CC")) == 2)
        // Two beacons heard from one address (a device advertising two identities): whose
        // battery it is cannot be told.
        #expect(beacon(for: Self.tlm(2900, from: "C0:00:00:00:00:DD")) == nil)
        #expect(beacon(for: Self.tlm(2900, from: "C0:00:00:00:00:EE")) == nil)
        #expect(beacon(for: Self.tlm(2900, from: nil)) == nil)
        var withIdentity = Self.tlm(2900, from: nil)
        withIdentity.identity = Script.identity(minor: 4)
        #expect(beacon(for: withIdentity) == 3)
    }

    private func plan(threshold: BatteryLevel = .millivolts(2500)) throws -> VerificationPlan {
        var expecting = Script.beacon("entrance", minor: 1)
        expecting.battery = Self.battery(threshold)
        var notExpecting = Script.beacon("host", minor: 2)
        notExpecting.battery = Self.battery(threshold)
        notExpecting.advertisedByHost = true
        return try Script.plan([expecting, notExpecting])
    }

    @Test func passWaitsForExpectedTelemetryThenJudgesIt() throws {
        var feed = VerificationFeed(try plan())
        feed.play(Script.train(Script.identity(minor: 1), count: 5))
        feed.play(Script.train(Script.identity(minor: 2), address: Script.deviceB, count: 5))
        feed.advance(to: 2)
        // Both identities are decided, but the entrance beacon's battery is not known yet.
        #expect(feed.decided.count == 2)
        #expect(feed.result == nil)
        _ = feed.engine.observe(Self.tlm(2410, at: 3), at: .seconds(3))
        let result = try #require(feed.result)
        #expect(result.endReason == .allDecided)
        let battery = try #require(result.verdicts[0].battery)
        #expect(battery.status == .low && battery.level == .millivolts(2410) && battery.source == .eddystoneTLM)
        // A host's beacon has no battery: nothing expected, nothing said.
        #expect(result.verdicts[1].battery == nil)
        #expect(result.verdicts.allSatisfy { $0.status == .ok })
        #expect(!result.passed)
        #expect(result.count(battery: .low) == 1)
    }

    @Test func noTelemetryIsSaidAtTheTimeoutOnlyWhereExpected() throws {
        var feed = VerificationFeed(try plan(), policy: VerificationPolicy(timeout: .seconds(10)))
        feed.play(Script.train(Script.identity(minor: 1), count: 5))
        feed.play(Script.train(Script.identity(minor: 2), address: Script.deviceB, count: 5))
        feed.advance(to: 10)
        let result = try #require(feed.result)
        #expect(result.endReason == .timeout)
        #expect(result.verdicts[0].battery?.status == .noTelemetry)
        #expect(result.verdicts[1].battery == nil)
        #expect(!result.passed)
    }

    @Test func telemetryBeforeItsAddressIsKnownIsHeldThenPaired() throws {
        var feed = VerificationFeed(try plan())
        // The TLM frame is heard before the iBeacon frames that tie its address to a beacon.
        _ = feed.engine.observe(Self.tlm(2900, at: 0), at: .seconds(0))
        _ = feed.engine.observe(Self.tlm(2950, from: "C0:00:00:00:00:EE", at: 0.05), at: .seconds(0.05))
        feed.play(Script.train(Script.identity(minor: 1), from: 0.1, count: 5))
        feed.play(Script.train(Script.identity(minor: 2), address: Script.deviceB, from: 0.1, count: 5))
        feed.advance(to: 2)
        let result = try #require(feed.result)
        #expect(result.endReason == .allDecided)
        #expect(result.verdicts[0].battery?.status == .ok)
        #expect(result.verdicts[0].battery?.readings == 1)
        #expect(result.telemetry == TelemetryCounts(received: 2, unpaired: 1))
        #expect(result.passed)
    }

    @Test func readingsInAnotherUnitAreShownNotJudged() throws {
        var feed = VerificationFeed(try plan(threshold: .percent(20)))
        feed.play(Script.train(Script.identity(minor: 1), count: 5))
        feed.play(Script.train(Script.identity(minor: 2), address: Script.deviceB, count: 5))
        _ = feed.engine.observe(Self.tlm(2100, at: 0.2), at: .seconds(0.2))
        feed.advance(to: 2)
        let battery = try #require(feed.result?.verdicts[0].battery)
        #expect(battery.status == .otherUnit)
        #expect(battery.level == .millivolts(2100))
        #expect(battery.summary.contains("not judged"))
    }

    @Test func batteryTypesReadTheirChemistry() {
        #expect(BatteryType(name: "CR2477").holdsVoltageUntilTheEnd)
        #expect(BatteryType(name: "ER14505").chemistry == .lithiumThionylChloride)
        #expect(BatteryType(name: "LR6").chemistry == .alkaline)
        #expect(BatteryType(name: "AA").chemistry == .alkaline)
        #expect(BatteryType(name: "mystery cell").chemistry == .unknown)
        #expect(BatteryLevel.voltsText(2950) == "2.95" && BatteryLevel.voltsText(3000) == "3")
    }
}
