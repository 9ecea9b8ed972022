import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("Virtual air: RSSI follows the propagation model", .timeLimit(.minutes(2)))
struct RSSIStatisticsTests {
    @Test("mean and spread of reported RSSI at 1, 2, 5 and 10 m match the model (σ = 4 dB)")
    func meanAndSpreadMatchTheModel() async throws {
        let model = PropagationModel(pathLossExponent: 2.2, shadowingSigma: 4)
        let air = VirtualAir(name: "rssi", configuration: .init(seed: 11, propagation: model))
        let scanner = await TestHost(on: air)
        // Four advertisers in four directions, told apart by their addresses.
        let distances = [1.0, 2.0, 5.0, 10.0]
        let directions = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)]
        var advertisers: [BluetoothAddress: Double] = [:]
        // Kept alive: a host that goes away takes its controller off the air.
        var beacons: [TestHost] = []
        for (distance, direction) in zip(distances, directions) {
            let beacon = await TestHost.at(direction.0 * distance, direction.1 * distance, on: air)
            try await beacon.bringUp()
            _ = try await beacon.advertiseExtended([iBeaconData(minor: UInt16(distance))], txPower: -4)
            advertisers[beacon.transport.address] = distance
            beacons.append(beacon)
        }
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        air.advance(by: .seconds(300))
        let reports = try await scanner.advertisingReports()
        #expect(beacons.count == 4)

        for (address, distance) in advertisers {
            let samples = reports.filter { $0.address == address }.compactMap(\.rssi).map(Double.init)
            #expect(samples.count > 2500, "\(distance) m: \(samples.count) reports")
            let expected = model.environment.meanRSSI(txPower: -4, from: PlanPoint(x: 0, y: 0), to: PlanPoint(x: distance, y: 0))
            let mean = samples.reduce(0, +) / Double(samples.count)
            let variance = samples.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(samples.count - 1)
            // Whole-dBm rounding adds a uniform ±0.5 dB error: variance + 1/12, mean unbiased.
            // Tolerances are about four standard errors (4/√2500 = 0.08 dB for the mean).
            #expect(abs(mean - expected) < 0.35, "\(distance) m: mean \(mean) dBm, model \(expected) dBm")
            #expect(abs(variance.squareRoot() - (16 + 1 / 12).squareRoot()) < 0.25, "\(distance) m: σ \(variance.squareRoot()) dB")
        }
    }

    @Test("packet loss drops its share of what a scanner listens to")
    func packetLoss() async throws {
        let air = VirtualAir(name: "loss", configuration: .init(seed: 5, propagation: PropagationModel(packetLoss: 0.3)))
        let beacon = await TestHost(on: air)
        let scanner = await TestHost.at(0, 1, on: air)
        try await beacon.bringUp()
        try await beacon.advertiseLegacy(iBeaconData(minor: 1))
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        air.advance(by: .seconds(100))
        let heard = try await scanner.advertisingReports().count
        let statistics = air.statistics
        #expect(heard == statistics.receivedPDUs)
        let share = Double(statistics.receivedPDUs) / Double(statistics.receivedPDUs + statistics.lostPDUs)
        #expect(abs(share - 0.7) < 0.04, "\(statistics)")
    }

    @Test("nothing is heard below the receiver's sensitivity")
    func beyondRange() async throws {
        let air = VirtualAir(name: "range", configuration: .init(propagation: PropagationModel(receiverSensitivity: -90)))
        // 0 dBm − 41 dB − 20·log₁₀(500) = −95 dBm: below −90 dBm.
        let beacon = await TestHost.at(500, 0, on: air)
        let scanner = await TestHost(on: air)
        try await beacon.bringUp()
        try await beacon.advertiseLegacy(iBeaconData(minor: 1))
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        air.advance(by: .seconds(10))
        #expect(try await scanner.advertisingReports().isEmpty)
        #expect(air.statistics.lostPDUs > 50)
        // Walk up to 100 m (−81 dBm): heard.
        scanner.transport.setMotion(.fixed(PlanPoint(x: 400, y: 0)))
        air.advance(by: .seconds(1))
        #expect(try await scanner.advertisingReports().allSatisfy { $0.rssi == -81 })
    }

    @Test("RSSI is reported as whole dBm within −127…+20 and moves with a walking scanner")
    func walkingScanner() async throws {
        let air = VirtualAir(name: "walk", configuration: .init(seed: 2))
        let beacon = await TestHost(on: air)
        try await beacon.bringUp()
        try await beacon.advertiseLegacy(iBeaconData(minor: 1))
        // From 20 m away to the beacon and back out, 1 m/s.
        let walk = try Walk(waypoints: [PlanPoint(x: 20, y: 0), PlanPoint(x: 0.5, y: 0), PlanPoint(x: 20, y: 0)], speed: 1)
        let scanner = await TestHost(on: air, VirtualControllerConfiguration(motion: .walking(walk)))
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        var strongestPerSecond: [Int8] = []
        for _ in 0..<39 {
            air.advance(by: .seconds(1))
            strongestPerSecond.append(try await scanner.advertisingReports().compactMap(\.rssi).max() ?? -127)
        }
        // Without shadowing: −41 − 20·log₁₀(d); strongest near 19.5 s, at 0.5 m: −35 dBm.
        let peak = try #require(strongestPerSecond.indices.max { strongestPerSecond[$0] < strongestPerSecond[$1] })
        #expect((18...20).contains(peak), "\(strongestPerSecond)")
        #expect(strongestPerSecond[peak] >= -36 && strongestPerSecond[peak] <= -34)
        #expect(strongestPerSecond.first ?? 0 < -64)
        #expect(air.position(of: scanner.controller) == PlanPoint(x: 20, y: 0))
    }
}
