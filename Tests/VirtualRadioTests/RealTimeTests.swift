import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("Virtual air in real time", .timeLimit(.minutes(1)))
struct RealTimeTests {
    @Test("the clock follows the wall clock at its speed and reports arrive without anyone driving it")
    func reportsArriveOnTheirOwn() async throws {
        // Ten times real time keeps the test short; the driver is the same at speed 1.
        let speed = 10.0
        let air = VirtualAir(name: "real-time", configuration: .init(timeMode: .realTime(speed: speed)))
        defer { air.shutdown() }
        let beacon = await TestHost(on: air)
        let scanner = await TestHost.at(2, 0, on: air)
        try await beacon.bringUp()
        try await beacon.advertiseLegacy(iBeaconData(minor: 9))
        try await scanner.bringUp()
        // Subscribed, and the air's time read, before scanning starts: every report counted
        // below comes from an advertising event after `airStart`.
        let events = await scanner.host.events()
        let (wallBeforeStart, airStart, wallAfterStart) = (ContinuousClock.now, air.now, ContinuousClock.now)
        try await scanner.scanLegacy()

        var reports: [LEAdvertisingReport] = []
        for await element in events {
            if case .event(.le(.advertisingReport(let batch))) = element { reports += batch }
            if reports.count >= 20 { break }
        }
        let (wallBeforeEnd, airEnd, wallAfterEnd) = (ContinuousClock.now, air.now, ContinuousClock.now)
        let airElapsed = airEnd.duration(since: airStart).secondsValue
        #expect(reports.count >= 20)
        #expect(reports.allSatisfy { $0.data == iBeaconData(minor: 9) })
        // Advertising events are at least the interval (100 ms) apart, and a scanner hears
        // one at most twice (on two channels when its 10 ms scan interval turns between
        // two PDUs of the event): 20 reports took at least 10 events, 0.9 s of air.
        #expect(airElapsed >= 0.9, "20 reports in \(airElapsed) s of air")
        // Air time is the wall clock times the speed, however busy the machine: the air
        // elapsed between the two readings lies between the speed times the wall time
        // inside them and the speed times the wall time around them (1 µs of rounding).
        let inside = (wallBeforeEnd - wallAfterStart).secondsValue * speed
        let around = (wallAfterEnd - wallBeforeStart).secondsValue * speed
        #expect(airElapsed >= inside - 0.000_001, "air \(airElapsed) s, wall × \(speed) at least \(inside) s")
        #expect(airElapsed <= around + 0.000_001, "air \(airElapsed) s, wall × \(speed) at most \(around) s")
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
