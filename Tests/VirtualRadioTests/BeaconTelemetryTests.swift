import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("Virtual air: beacons send Eddystone-TLM with a draining battery", .timeLimit(.minutes(1)))
struct BeaconTelemetryTests {
    /// Reports of one scan step, split into the iBeacon's and the TLM frames' battery (mV).
    static func heard(_ reports: [LEAdvertisingReport]) -> (iBeacons: [LEAdvertisingReport], tlm: [(LEAdvertisingReport, UInt16?)]) {
        var iBeacons: [LEAdvertisingReport] = []
        var tlm: [(LEAdvertisingReport, UInt16?)] = []
        for report in reports {
            if IBeaconAdvertisement(advertisingData: report.data) != nil {
                iBeacons.append(report)
            } else if case .plain(let reading)? = EddystoneTelemetry(advertisingData: report.data) {
                tlm.append((report, reading.batteryMillivolts))
            }
        }
        return (iBeacons, tlm)
    }

    @Test("TLM from the iBeacon's address every few events, its battery falling with the air's clock over days")
    func drainsOverDays() async throws {
        let telemetry = VirtualBeaconTelemetry(startVolts: 3.0, voltsPerDay: 0.1, temperature: 19.25, everyEvents: 2)
        let air = VirtualAir(name: "telemetry", configuration: .init(seed: 7, beaconTelemetry: telemetry))
        let beacon = await TestHost.at(0, 0, on: air)
        let scanner = await TestHost.at(2, 0, on: air)
        try await beacon.bringUp()
        try await beacon.advertiseLegacy(iBeaconData(minor: 5), interval: try AdvertisingInterval(milliseconds: 10_000))
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        air.advance(by: .seconds(60))
        let first = Self.heard(try await scanner.advertisingReports())
        #expect(!first.iBeacons.isEmpty && !first.tlm.isEmpty)
        #expect(Set(first.tlm.map(\.0.address)) == Set(first.iBeacons.map(\.address)), "one address for both frames")
        #expect(first.tlm.allSatisfy { $0.1 == 3000 })
        guard case .plain(let reading)? = EddystoneTelemetry(advertisingData: first.tlm[0].0.data) else {
            Issue.record("expected a plain TLM frame")
            return
        }
        #expect(reading.temperature == 19.25)
        #expect(reading.advertisingCount > 0 && reading.uptimeSeconds < 60)

        // Three days on the air's clock, not the wall's: the scanner rests meanwhile.
        try await scanner.host.send(LESetScanEnable(false))
        air.advance(by: .seconds(3 * 86_400))
        try await scanner.scanLegacy()
        air.advance(by: .seconds(60))
        let later = Self.heard(try await scanner.advertisingReports())
        #expect(!later.tlm.isEmpty)
        #expect(later.tlm.allSatisfy { $0.1 == 2700 }, "3.0 V − 3 days × 0.1 V")
    }

    @Test("without telemetry configured nothing but the iBeacon is sent; the voltage never reaches VBATT 0")
    func offByDefaultAndBounded() async throws {
        let air = VirtualAir(name: "no-telemetry", configuration: .init(seed: 7))
        let beacon = await TestHost.at(0, 0, on: air)
        let scanner = await TestHost.at(2, 0, on: air)
        try await beacon.bringUp()
        try await beacon.advertiseLegacy(iBeaconData(minor: 5))
        try await scanner.bringUp()
        try await scanner.scanLegacy()
        air.advance(by: .seconds(5))
        let heard = Self.heard(try await scanner.advertisingReports())
        #expect(!heard.iBeacons.isEmpty && heard.tlm.isEmpty)

        let dying = VirtualBeaconTelemetry(startVolts: 3.0, voltsPerDay: 1)
        #expect(dying.millivolts(at: .zero) == 3000)
        #expect(dying.millivolts(at: AirTime(microseconds: 43_200_000_000)) == 2500)
        #expect(dying.millivolts(at: AirTime(microseconds: 10 * 86_400_000_000)) == 1)
        #expect(VirtualBeaconTelemetry(startVolts: .nan).millivolts(at: .zero) == 1)
    }

    @Test("the same seed gives the same TLM frames at the same times")
    func reproducible() async throws {
        func run() async throws -> [AirDelivery] {
            let air = VirtualAir(name: "tlm-repro", configuration: .init(
                seed: 3, propagation: PropagationModel(pathLossExponent: 2, shadowingSigma: 3, packetLoss: 0.1),
                beaconTelemetry: .standard))
            let beacon = await TestHost.at(0, 0, on: air)
            let scanner = await TestHost.at(3, 0, on: air)
            try await beacon.bringUp()
            try await beacon.advertiseLegacy(iBeaconData(minor: 9))
            try await scanner.bringUp()
            air.startRecording()
            try await scanner.scanLegacy()
            air.advance(by: .seconds(10))
            return air.stopRecording().filter { $0.packet.body.first == HCIEventCode.leMeta.rawValue }
        }
        let first = try await run()
        #expect(first == (try await run()))
        #expect(first.contains { delivery in
            guard case .le(.advertisingReport(let reports))? = try? HCIEvent(body: delivery.packet.body[...]) else { return false }
            return reports.contains { EddystoneTelemetry(advertisingData: $0.data) != nil }
        })
    }
}
