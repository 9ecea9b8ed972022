import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("Virtual air in real time", .timeLimit(.minutes(1)))
struct RealTimeTests {
    @Test("the clock follows the wall clock and reports arrive without anyone driving it")
    func reportsArriveOnTheirOwn() async throws {
        // Ten times real time keeps the test short; the driver is the same at speed 1.
        let air = VirtualAir(name: "real-time", configuration: .init(timeMode: .realTime(speed: 10)))
        defer { air.shutdown() }
        let beacon = await TestHost(on: air)
        let scanner = await TestHost.at(2, 0, on: air)
        try await beacon.bringUp()
        try await beacon.advertiseLegacy(iBeaconData(minor: 9))
        try await scanner.bringUp()
        try await scanner.scanLegacy()

        let wallStart = ContinuousClock.now
        let airStart = air.now
        var reports: [LEAdvertisingReport] = []
        let events = await scanner.host.events()
        for await element in events {
            if case .event(.le(.advertisingReport(let batch))) = element { reports += batch }
            if reports.count >= 20 { break }
        }
        let wallElapsed = (ContinuousClock.now - wallStart).secondsValue
        let airElapsed = air.now.duration(since: airStart).secondsValue
        #expect(reports.allSatisfy { $0.data == iBeaconData(minor: 9) })
        // 20 reports take about 2.1 s of air time: about 0.21 s of wall time at ten times.
        // The bounds are loose on purpose: a few reports may already be queued when the
        // measurement starts, and a loaded machine (CI, parallel tests) delays the driver.
        // What must hold is that air time runs by itself, several times faster than the wall.
        #expect(airElapsed > 1.5)
        #expect(wallElapsed < airElapsed / 3, "air \(airElapsed) s in \(wallElapsed) s of wall time")
        #expect(abs(airElapsed / wallElapsed - 10) < 5)
    }

    @Test("shutting the air down ends every host's link")
    func shutdownEndsLinks() async throws {
        let air = VirtualAir(name: "shutdown", configuration: .init(timeMode: .realTime()))
        let host = await TestHost(on: air)
        try await host.bringUp()
        air.shutdown()
        let error = await #expect(throws: HCIError.self) {
            _ = try await host.host.send(ReadBDADDR())
        }
        if case .transport(let transportError)? = error?.kind {
            #expect(transportError.kind == .closed)
        } else {
            Issue.record("expected the transport to be closed, got \(String(describing: error))")
        }
    }
}
