import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("Virtual controller: events masked as a real controller masks them", .timeLimit(.minutes(1)))
struct EventMaskTests {
    @Test("after Reset no LE Meta event reaches the host until Set Event Mask unmasks it")
    func leMetaMaskedAfterReset() async throws {
        let air = VirtualAir(name: "masks")
        let beacon = await TestHost(on: air)
        let scanner = await TestHost.at(1, 0, on: air)
        try await beacon.bringUp()
        try await beacon.advertiseLegacy(iBeaconData(minor: 1))
        try await scanner.host.send(Reset())
        try await scanner.scanLegacy()
        air.advance(by: .seconds(2))
        #expect(try await scanner.advertisingReports().isEmpty)
        #expect(air.statistics.maskedReports > 10)

        // LE Meta on; LE Advertising Report is in the LE default mask (0x1F).
        try await scanner.host.send(SetEventMask(mask: .beaconHost))
        air.advance(by: .seconds(2))
        #expect(try await scanner.advertisingReports().count > 10)

        // LE Advertising Report masked in the LE mask: silence again.
        try await scanner.host.send(LESetEventMask(mask: [.extendedAdvertisingReport]))
        air.advance(by: .seconds(2))
        #expect(try await scanner.advertisingReports().isEmpty)
    }

    @Test("LE Extended Advertising Report needs its LE mask bit, which the default mask lacks")
    func extendedReportBit() async throws {
        let air = VirtualAir(name: "extended-mask")
        let beacon = await TestHost(on: air)
        let scanner = await TestHost.at(1, 0, on: air)
        try await beacon.bringUp()
        try await beacon.advertiseExtended([iBeaconData(minor: 1)])
        try await scanner.bringUp(leEventMask: .specDefault)
        try await scanner.scanExtended()
        air.advance(by: .seconds(2))
        #expect(try await scanner.extendedReports().isEmpty)
        try await scanner.host.send(LESetEventMask(mask: .beaconHost))
        air.advance(by: .seconds(2))
        let reports = try await scanner.extendedReports()
        #expect(reports.count > 10)
        // A legacy PDU from an advertising set, as Core v5.4 Vol 4 Part E 7.7.65.13 reports it.
        let report = try #require(reports.first)
        #expect(report.eventType == .legacyNonConnectable)
        #expect(report.sid == nil && report.secondaryPHY == nil && report.txPower == nil && report.primaryPHY == .le1M)
        #expect(report.data == iBeaconData(minor: 1))
    }

    @Test("a controller never hears itself, and reports carry the advertiser's address and PDU type")
    func reportsDescribeTheAdvertiser() async throws {
        let air = VirtualAir(name: "self")
        let both = await TestHost(on: air)
        let other = await TestHost.at(1, 0, on: air)
        try await both.bringUp()
        try await other.bringUp()
        try await both.advertiseLegacy(iBeaconData(minor: 1))
        try await both.scanLegacy()
        try await other.host.send(try LESetAdvertisingParameters(
            intervalMin: .beaconDefault, intervalMax: .beaconDefault, type: .scannableUndirected))
        try await other.host.send(try LESetAdvertisingData(data: iBeaconData(minor: 2)))
        try await other.host.send(LESetAdvertisingEnable(true))
        air.advance(by: .seconds(1))
        let reports = try await both.advertisingReports()
        #expect(!reports.isEmpty)
        #expect(reports.allSatisfy {
            $0.address == other.transport.address && $0.addressType == .public && $0.eventType == .advScanInd
        })
    }
}
