import BeaconCore
import BeaconTestKit
import ClockTestKit
import HCI
import Logging
import Testing

@testable import BeaconFleet

/// The discovery scan of `provision --hardware` on a scripted controller and a test clock.
@Suite("Discovering connectable beacons", .timeLimit(.minutes(1)))
struct ConnectableDiscoveryTests {
    static let logger = Logger(label: "discovery-tests") { _ in SwiftLogNoOpLogHandler() }

    @Test("reports folded per address (scan responses add data, not connectability); malformed data kept as no structures; ends at the window on the test clock with scanning disabled")
    func discovery() async throws {
        let (controller, host) = scanTestController()
        let clock = TestClock()
        let (notes, noted) = AsyncStream.makeStream(of: DiscoveredPeripheral.self)
        let discovery = Task {
            try await ConnectableDiscovery.run(
                host: host, configuration: ScanConfiguration(access: .exclusive, quietAfter: .zero), window: .seconds(5),
                clock: clock, logger: Self.logger, noted: { noted.yield($0) })
        }
        try await controller.waitFor(.leSetScanEnable)
        let kbeacon = try bluetoothAddress("F0:4C:0A:00:00:31")
        let other = try bluetoothAddress("C4:5B:BE:12:34:56")
        let kkm = bytes("05 FF 53 0A 22 00")
        try await controller.send(.le(.advertisingReport([
            LEAdvertisingReport(eventType: .advInd, addressType: .random, address: kbeacon, data: kkm, rssi: -70),
            LEAdvertisingReport(eventType: .advNonconnInd, addressType: .random, address: other, data: testIBeaconData, rssi: -40),
        ])))
        try await controller.send(.le(.advertisingReport([
            LEAdvertisingReport(eventType: .scanResponse, addressType: .random, address: other, data: bytes("03 09 41 42"), rssi: -35),
            // Its length byte runs past the end: malformed, the report still counts.
            LEAdvertisingReport(eventType: .advInd, addressType: .random, address: kbeacon, data: bytes("09 FF 53"), rssi: -60),
        ])))
        var seen = 0
        for await _ in notes {
            seen += 1
            if seen == 4 { break }
        }
        // The window's sleep is on the test clock once listening started.
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .seconds(5))
        let heard = try await discovery.value
        #expect(heard.map(\.address) == [other, kbeacon], "strongest first")
        let peripheral = try #require(heard.last)
        #expect(peripheral.connectable && peripheral.strongestRSSI == -60 && peripheral.advertisedProfile == .kbeacon)
        let iBeacon = try #require(heard.first)
        #expect(!iBeacon.connectable, "a scan response does not make an advertiser connectable")
        #expect(iBeacon.advertisedIdentity == BeaconIdentity(uuid: testUUID, major: 1, minor: 2))
        #expect(iBeacon.structures.contains(ADStructure(type: 0x09, data: [0x41, 0x42])))
        #expect(controller.parameters(of: .leSetScanEnable).last == bytes("00 00"))
        await host.close()
    }

    @Test("until every wanted address was heard connectably: ends then, the test clock never advanced; a non-connectable report does not end it")
    func endsOnceEveryWantedAddressIsHeard() async throws {
        let (controller, host) = scanTestController()
        let clock = TestClock()
        let first = try bluetoothAddress("F0:4C:0A:00:00:31")
        let second = try bluetoothAddress("F0:4C:0A:00:00:32")
        let (notes, noted) = AsyncStream.makeStream(of: DiscoveredPeripheral.self)
        let discovery = Task {
            try await ConnectableDiscovery.run(
                host: host, configuration: ScanConfiguration(access: .exclusive, quietAfter: .zero), window: .seconds(3600),
                clock: clock, logger: Self.logger, until: [first, second], noted: { noted.yield($0) })
        }
        try await controller.waitFor(.leSetScanEnable)
        let kkm = bytes("05 FF 53 0A 22 00")
        try await controller.send(.le(.advertisingReport([
            LEAdvertisingReport(eventType: .advInd, addressType: .random, address: first, data: kkm, rssi: -70),
            LEAdvertisingReport(eventType: .advNonconnInd, addressType: .random, address: second, data: kkm, rssi: -40),
        ])))
        var seen = 0
        for await _ in notes {
            seen += 1
            if seen == 2 { break }
        }
        try await controller.send(.le(.advertisingReport([
            LEAdvertisingReport(eventType: .advInd, addressType: .random, address: second, data: testIBeaconData, rssi: -41)
        ])))
        let heard = try await discovery.value
        // Had the non-connectable report ended it, the second would not be connectable here.
        #expect(Set(heard.map(\.address)) == [first, second])
        #expect(heard.allSatisfy { $0.connectable })
        #expect(controller.parameters(of: .leSetScanEnable).last == bytes("00 00"))
        await host.close()
    }

    @Test("cancelled during the window: returns what was heard so far, scanning disabled")
    func cancelled() async throws {
        let (controller, host) = scanTestController()
        let clock = TestClock()
        let discovery = Task {
            try await ConnectableDiscovery.run(
                host: host, configuration: ScanConfiguration(access: .exclusive, quietAfter: .zero), window: .seconds(3600),
                clock: clock, logger: Self.logger)
        }
        try await controller.waitFor(.leSetScanEnable)
        while clock.sleeperCount == 0 { await Task.yield() }
        discovery.cancel()
        #expect(try await discovery.value.isEmpty)
        await host.close()
    }
}
