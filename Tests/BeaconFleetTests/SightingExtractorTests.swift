import BeaconCore
import HCI
import Testing

@testable import BeaconFleet

@Suite("Advertising reports to sightings")
struct SightingExtractorTests {
    static func extended(
        _ data: [UInt8], _ status: LEExtendedAdvertisingReport.EventType.DataStatus, address: String = "D0:00:00:00:00:01",
        sid: UInt8? = 1, legacy: Bool = false
    ) throws -> LEExtendedAdvertisingReport {
        LEExtendedAdvertisingReport(
            eventType: .init(legacy: legacy, dataStatus: status), addressType: .random,
            address: try bluetoothAddress(address), sid: sid, rssi: -70, data: data)
    }

    @Test func anIBeaconAfterOtherStructuresIsFound() throws {
        // A name and a TX power level before the manufacturer data, no flags.
        let data = bytes("05 09 44 6F 6F 72 02 0A F4") + Array(testIBeaconData.dropFirst(3))
        var extractor = SightingExtractor(receiver: "hci0")
        let report = LEAdvertisingReport(eventType: .advInd, addressType: .public, address: .zero, data: data, rssi: -50)
        let extraction = extractor.extract(from: .le(.advertisingReport([report])), at: 3)
        #expect(extraction.sightings.map(\.identity) == [BeaconIdentity(uuid: testUUID, major: 1, minor: 2)])
        #expect(extraction.sightings.first?.time == 3)
        #expect(extraction.sightings.first?.clock == .elapsed, "a controller's scan counts from its start")
    }

    @Test func malformedDataIsCountedAndDescribed() throws {
        var extractor = SightingExtractor(receiver: "hci0")
        let report = LEAdvertisingReport(
            eventType: .advNonconnInd, addressType: .public, address: try bluetoothAddress("C4:5B:BE:12:34:56"),
            data: Array(testIBeaconData.prefix(12)), rssi: -50)
        let extraction = extractor.extract(from: .le(.advertisingReport([report])), at: 0)
        #expect(extraction.sightings.isEmpty)
        #expect(extraction.problems == ["report from C4:5B:BE:12:34:56: the AD structure at byte 3 declares 26 bytes but only 8 remain"])
        #expect(extractor.counts.malformedData == 1)
    }

    @Test func otherEventsYieldNothing() {
        var extractor = SightingExtractor(receiver: "hci0")
        #expect(extractor.extract(from: .hardwareError(code: 1), at: 0) == .init())
        #expect(extractor.extract(from: .le(.scanTimeout), at: 0) == .init())
        #expect(extractor.counts == SightingExtractionCounts())
    }

    @Test func legacyPDUsInExtendedReportsAreWhole() throws {
        var extractor = SightingExtractor(receiver: "hci0")
        let report = try Self.extended(testIBeaconData, .complete, sid: nil, legacy: true)
        #expect(extractor.extract(from: .le(.extendedAdvertisingReport([report])), at: 0).sightings.count == 1)
    }

    @Test func interleavedChainsOfTwoAdvertisers() throws {
        var extractor = SightingExtractor(receiver: "hci0")
        let event = HCIEvent.le(.extendedAdvertisingReport([
            try Self.extended(Array(testIBeaconData[..<10]), .incompleteMoreToCome, address: "D0:00:00:00:00:01"),
            try Self.extended(Array(testIBeaconData[..<15]), .incompleteMoreToCome, address: "D0:00:00:00:00:02"),
            try Self.extended(Array(testIBeaconData[10...]), .complete, address: "D0:00:00:00:00:01"),
            try Self.extended(Array(testIBeaconData[15...]), .complete, address: "D0:00:00:00:00:02"),
        ]))
        let sightings = extractor.extract(from: event, at: 0).sightings
        #expect(sightings.map(\.address?.description) == ["D0:00:00:00:00:01", "D0:00:00:00:00:02"])
    }

    @Test func aChainLongerThanAnyAdvertisementIsDropped() throws {
        var assembler = SightingExtendedReportAssembler()
        let fragment = try Self.extended(Array(repeating: 0, count: 250), .incompleteMoreToCome)
        for _ in 0..<6 { #expect(assembler.add(fragment) == .pending) }
        // 7 × 250 = 1750 bytes: beyond the 1650 an extended advertisement can carry.
        guard case .incomplete = assembler.add(fragment) else {
            Issue.record("an over-long chain was kept")
            return
        }
        // What follows starts afresh.
        #expect(assembler.add(try Self.extended(testIBeaconData, .complete)) == .complete(testIBeaconData))
    }

    @Test func tooManyOpenChainsForgetTheOldest() throws {
        var assembler = SightingExtendedReportAssembler()
        for index in 0...SightingExtendedReportAssembler.maximumOpenChains {
            let address = "D0:00:00:00:00:" + (index < 16 ? "0" : "") + String(index, radix: 16).uppercased()
            #expect(assembler.add(try Self.extended(Array(testIBeaconData[..<10]), .incompleteMoreToCome, address: address)) == .pending)
        }
        // The first chain was evicted: its last fragment comes back alone.
        let tail = Array(testIBeaconData[10...])
        #expect(assembler.add(try Self.extended(tail, .complete, address: "D0:00:00:00:00:00")) == .complete(tail))
        // The newest is still whole.
        #expect(assembler.add(try Self.extended(tail, .complete, address: "D0:00:00:00:00:10")) == .complete(testIBeaconData))
    }

    @Test func addressTypes() {
        #expect(!SightingExtractor.isRandom(.public))
        #expect(!SightingExtractor.isRandom(.publicIdentity))
        #expect(SightingExtractor.isRandom(.random))
        #expect(SightingExtractor.isRandom(.randomIdentity))
        #expect(SightingExtractor.isRandom(.unresolvedResolvable))
    }
}
