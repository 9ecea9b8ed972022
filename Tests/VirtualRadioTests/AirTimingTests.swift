import BeaconCore
import HCI
import Testing

@testable import VirtualRadio

@Suite("Virtual air: timing of advertising and scanning", .timeLimit(.minutes(1)))
struct AirTimingTests {
    @Test("advertising every 100 ms gives one event per 100–110 ms: about 9.5 a second")
    func advertisingRate() async throws {
        let air = VirtualAir(name: "rate")
        let beacon = await TestHost(on: air)
        try await beacon.bringUp()
        try await beacon.advertiseExtended([iBeaconData(minor: 1)])
        air.advance(by: .seconds(100))
        let events = Double(air.statistics.advertisingEvents)
        // Each event starts interval + advDelay after the previous, advDelay uniform in 0–10 ms.
        #expect(events >= 100 / 0.110 && events <= 100 / 0.100 + 1)
        #expect(abs(events - 100 / 0.105) < 10, "mean advDelay should be about 5 ms: \(events) events")
        #expect(air.statistics.transmittedPDUs == 3 * air.statistics.advertisingEvents
            || air.statistics.transmittedPDUs == 3 * air.statistics.advertisingEvents - 1
            || air.statistics.transmittedPDUs == 3 * air.statistics.advertisingEvents - 2)
    }

    @Test("Max_Extended_Advertising_Events ends a set with Limit Reached after events 100–110 ms apart")
    func eventLimit() async throws {
        let air = VirtualAir(name: "limit")
        let beacon = await TestHost(on: air)
        try await beacon.bringUp()
        let handle = try #require(AdvertisingHandle(rawValue: 0))
        _ = try await beacon.host.send(LESetExtendedAdvertisingParameters(
            handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        try await beacon.host.send(try LESetExtendedAdvertisingData(handle: handle, data: iBeaconData(minor: 1)))
        air.startRecording()
        let start = air.now
        try await beacon.host.send(try LESetExtendedAdvertisingEnable(true, sets: [.init(handle: handle, maximumEvents: 255)]))
        air.advance(by: .seconds(60))
        let terminations = air.stopRecording().filter {
            if case .le(.advertisingSetTerminated) = try? HCIEvent(packet: $0.packet) { return true }
            return false
        }
        let termination = try #require(terminations.first)
        #expect(terminations.count == 1)
        #expect(try HCIEvent(packet: termination.packet) == .le(.advertisingSetTerminated(LEAdvertisingSetTerminated(
            status: .limitReached, handle: handle, connectionHandle: 0, completedExtendedAdvertisingEvents: 255))))
        // First event after 0–10 ms, then 254 gaps of 100 ms + advDelay, then the event's three PDUs.
        let elapsedMilliseconds = termination.time.duration(since: start).secondsValue * 1000
        let meanGap = elapsedMilliseconds / 254
        #expect(meanGap > 104 && meanGap < 106.2, "mean gap \(meanGap) ms")
        #expect(air.statistics.advertisingEvents == 255)
    }

    @Test("Duration ends a set with Advertising Timeout; the host is told only when it unmasked the event")
    func advertisingDuration() async throws {
        let air = VirtualAir(name: "duration")
        let beacon = await TestHost(on: air)
        try await beacon.bringUp()
        let handle = try #require(AdvertisingHandle(rawValue: 2))
        _ = try await beacon.host.send(LESetExtendedAdvertisingParameters(
            handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault))
        try await beacon.host.send(try LESetExtendedAdvertisingEnable(true, sets: [.init(handle: handle, durationIn10ms: 100)]))
        air.advance(by: .milliseconds(999))
        #expect(try await beacon.receivedEvents().isEmpty)
        air.advance(by: .milliseconds(1))
        let events = try await beacon.receivedEvents()
        #expect(events.count == 1)
        guard case .le(.advertisingSetTerminated(let terminated))? = events.first else {
            Issue.record("expected LE Advertising Set Terminated, got \(events)")
            return
        }
        #expect(terminated.status == .advertisingTimeout && terminated.handle == handle)
        #expect((9...10).contains(Int(terminated.completedExtendedAdvertisingEvents)))
        let afterEnd = air.statistics.advertisingEvents
        air.advance(by: .seconds(1))
        #expect(air.statistics.advertisingEvents == afterEnd)

        // With Set Terminated masked (the LE default mask) the set still stops, silently.
        try await beacon.host.send(LESetEventMask(mask: .specDefault))
        try await beacon.host.send(try LESetExtendedAdvertisingEnable(true, sets: [.init(handle: handle, durationIn10ms: 10)]))
        air.advance(by: .seconds(1))
        #expect(try await beacon.receivedEvents().isEmpty)
    }

    @Test("a scanner hears about as many PDUs as its window is a share of its interval")
    func scanDutyCycle() async throws {
        for (window, expectedShare) in [(100.0, 1.0), (50.0, 0.5), (25.0, 0.25)] {
            let air = VirtualAir(name: "duty", configuration: .init(seed: 3))
            let beacon = await TestHost(on: air)
            let scanner = await TestHost.at(2, 0, on: air)
            try await beacon.bringUp()
            try await scanner.bringUp()
            try await beacon.advertiseLegacy(iBeaconData(minor: 1))
            try await scanner.scanLegacy(interval: 100, window: window)
            air.advance(by: .seconds(200))
            let reports = try await scanner.advertisingReports().count
            let events = air.statistics.advertisingEvents
            // One PDU per event falls on the channel listened to, heard when inside the window
            // (a PDU cut by the end of a window is lost).
            let share = Double(reports) / Double(events)
            #expect(abs(share - expectedShare) < 0.05, "window \(window) ms of 100 ms: \(reports) reports for \(events) events")
        }
    }

    @Test("duplicate filtering: one report per advertiser until scanning is enabled again")
    func duplicateFiltering() async throws {
        let air = VirtualAir(name: "duplicates")
        let beacons = [await TestHost(on: air), await TestHost(on: air)]
        let scanner = await TestHost.at(3, 0, on: air)
        for (index, beacon) in beacons.enumerated() {
            try await beacon.bringUp()
            try await beacon.advertiseLegacy(iBeaconData(minor: UInt16(index)))
        }
        try await scanner.bringUp()
        try await scanner.scanLegacy(filterDuplicates: true)
        air.advance(by: .seconds(5))
        let first = try await scanner.advertisingReports()
        #expect(Set(first.map(\.address)) == Set(beacons.map(\.transport.address)))
        #expect(first.count == 2)
        #expect(air.statistics.duplicatesFiltered > 50)

        // Changed data is not a duplicate.
        try await beacons[0].host.send(try LESetAdvertisingData(data: iBeaconData(minor: 7)))
        air.advance(by: .seconds(1))
        #expect(try await scanner.advertisingReports().map(\.data) == [iBeaconData(minor: 7)])

        // Enabling again clears the filter.
        try await scanner.host.send(LESetScanEnable(true, filterDuplicates: true))
        air.advance(by: .seconds(1))
        #expect(try await scanner.advertisingReports().count == 2)

        // Without the filter every reception is reported.
        try await scanner.host.send(LESetScanEnable(false))
        try await scanner.host.send(LESetScanEnable(true, filterDuplicates: false))
        air.advance(by: .seconds(1))
        #expect(try await scanner.advertisingReports().count > 15)
    }

    @Test("extended scanning: Duration ends with LE Scan Timeout; with a Period it repeats and refilters")
    func extendedScanDuration() async throws {
        let air = VirtualAir(name: "scan-duration")
        let beacon = await TestHost(on: air)
        let scanner = await TestHost.at(1, 0, on: air)
        try await beacon.bringUp()
        try await scanner.bringUp()
        try await beacon.advertiseExtended([iBeaconData(minor: 1)])
        try await scanner.host.send(LESetExtendedScanParameters(le1M: try .init(
            interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10))))
        try await scanner.host.send(try LESetExtendedScanEnable(true, durationIn10ms: 50))
        air.advance(by: .seconds(2))
        let events = try await scanner.receivedEvents()
        let reports = events.filter { if case .le(.extendedAdvertisingReport) = $0 { return true } else { return false } }
        #expect(events.last == .le(.scanTimeout))
        #expect((3...7).contains(reports.count), "0.5 s of scanning: \(reports.count) reports")

        // 300 ms every 1.28 s, duplicates filtered per period: one report per period.
        try await scanner.host.send(try LESetExtendedScanEnable(
            true, filterDuplicates: .enabledResetEachPeriod, durationIn10ms: 30, periodIn1280ms: 1))
        air.advance(by: .milliseconds(1280 * 5 - 1))
        #expect(try await scanner.extendedReports().count == 5)
        // Duration not shorter than Period: 0x12.
        #expect(await scanner.refusal(try LESetExtendedScanEnable(true, durationIn10ms: 128, periodIn1280ms: 1))
            == .invalidHCICommandParameters)
    }
}
