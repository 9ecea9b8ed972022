import BeaconCore
import BeaconFleet
import BeaconPlatform
import HCI
import HCITransports
import Testing
import VirtualRadio

/// An advertiser and a scanner on RootCanal and on the virtual air, set up by the same
/// commands, deliver the same reports (RSSI aside: RootCanal's is synthetic).
@Suite("Virtual air against RootCanal: the same reports", .requiresRootCanal, .timeLimit(.minutes(2)))
struct VirtualVsRootCanalReports {
    /// Host side of one controller with every event kept.
    final class Host {
        let host: HostController
        private var events: AsyncStream<HostControllerEvent>.AsyncIterator

        init(_ transport: any HCITransport) async throws {
            // Both controllers answer at once: the timeout is a safety net for a loaded machine.
            host = HostController(transport: transport, defaultTimeout: .seconds(60))
            events = await host.events(bufferSize: 1 << 16).makeAsyncIterator()
            for step in try ComparedSequences.bringUp() {
                _ = try await host.send(step.command)
            }
        }

        /// Reports received so far (a Read BD_ADDR answer closes the batch), RSSI removed.
        func reports() async throws -> (legacy: [HCI.LEAdvertisingReport], extended: [LEExtendedAdvertisingReport]) {
            _ = try await host.send(ReadBDADDR())
            var legacy: [HCI.LEAdvertisingReport] = []
            var extended: [LEExtendedAdvertisingReport] = []
            while let element = await events.next() {
                guard case .event(let event) = element else { continue }
                switch event {
                case .commandComplete(let complete) where complete.opcode == .readBDADDR:
                    return (legacy, extended)
                case .le(.advertisingReport(let reports)):
                    legacy += reports.map { var report = $0; report.rssi = nil; return report }
                case .le(.extendedAdvertisingReport(let reports)):
                    extended += reports.map(VirtualVsRootCanalReports.comparable)
                default:
                    break
                }
            }
            return (legacy, extended)
        }
    }

    /// A report with what legitimately differs taken out: the RSSI (RootCanal's is
    /// synthetic), and for undirected advertising the Direct_Address_Type, which carries no
    /// information there: RootCanal sends 0xFF, the virtual controller 0x00 (as Bumble's
    /// controller does), both with an all-zero Direct_Address.
    static func comparable(_ report: LEExtendedAdvertisingReport) -> LEExtendedAdvertisingReport {
        var comparable = report
        comparable.rssi = nil
        if !report.eventType.isDirected && report.directAddress == .zero {
            comparable.directAddressType = .public
        }
        return comparable
    }

    typealias Reports = (legacy: [HCI.LEAdvertisingReport], extended: [LEExtendedAdvertisingReport])

    /// Runs `setUp(advertiser, scanner)` on RootCanal and on a virtual air (then advances it
    /// by `wait`), and returns what each scanner received and each advertiser's public
    /// address.
    ///
    /// RootCanal runs on the wall clock, which a loaded machine may starve: after `wait` its
    /// scanner keeps collecting until `enough` holds for what it received (or a 60 s safety
    /// deadline passes), so that the comparison never depends on how fast the machine is.
    func onBoth(
        rootCanal: RootCanal, wait: Duration, enough: (Reports) -> Bool,
        _ setUp: (HostController, HostController) async throws -> Void
    ) async throws -> [(reports: Reports, advertiser: BluetoothAddress)] {
        var results: [(reports: (legacy: [HCI.LEAdvertisingReport], extended: [LEExtendedAdvertisingReport]), advertiser: BluetoothAddress)] = []
        let spec = try HCITransportSpec(parsing: rootCanal.hciTransportSpec)
        let air = VirtualAir(name: "compared-reports")
        for onRootCanal in [true, false] {
            let advertiser = try await Host(onRootCanal ? try await ControllerTransports.open(spec) : air.attachController(rootCanalLikeController))
            let scanner = try await Host(onRootCanal ? try await ControllerTransports.open(spec) : air.attachController(.at(PlanPoint(x: 2, y: 0))))
            try await setUp(advertiser.host, scanner.host)
            var reports: Reports
            if onRootCanal {
                // RootCanal is a real process advertising in real time: only the wall clock lets
                // its advertising events happen.
                try await Task.sleep(for: wait)
                reports = try await scanner.reports()
                let deadline = ContinuousClock.now + .seconds(60)
                while !enough(reports), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                    let more = try await scanner.reports()
                    reports = (reports.legacy + more.legacy, reports.extended + more.extended)
                }
            } else {
                air.advance(by: wait)
                reports = try await scanner.reports()
            }
            results.append((reports, try await advertiser.host.send(ReadBDADDR())))
            await advertiser.host.close()
            await scanner.host.close()
        }
        return results
    }

    @Test("legacy ADV_NONCONN_IND heard by legacy scanning: same event type, address, data")
    func legacyReports() async throws {
        try await withRootCanal { rootCanal in
            let results = try await onBoth(
                rootCanal: rootCanal, wait: .milliseconds(1500), enough: { $0.legacy.count >= 5 }
            ) { advertiser, scanner in
                try await advertiser.send(try LESetAdvertisingParameters(intervalMin: .beaconDefault, intervalMax: .beaconDefault))
                try await advertiser.send(try LESetAdvertisingData(data: ComparedSequences.iBeacon))
                try await advertiser.send(LESetAdvertisingEnable(true))
                try await scanner.send(try LESetScanParameters(
                    interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10)))
                try await scanner.send(LESetScanEnable(true))
            }
            for (side, result) in zip(["RootCanal", "virtual"], results) {
                #expect(result.reports.legacy.count >= 5, "\(side): \(result.reports.legacy.count) reports")
                // Each from the advertiser's own public address.
                let expected = HCI.LEAdvertisingReport(
                    eventType: .advNonconnInd, addressType: .public, address: result.advertiser,
                    data: ComparedSequences.iBeacon, rssi: nil)
                #expect(result.reports.legacy.allSatisfy { $0 == expected }, "\(side): \(result.reports.legacy.prefix(3))")
            }
        }
    }

    @Test("two extended sets with random addresses heard by extended scanning: identical reports")
    func extendedReports() async throws {
        let second = try #require(BluetoothAddress("C4:5B:BE:12:34:57"))
        let payloads = [ComparedSequences.iBeacon, IBeaconAdvertisement(
            identity: BeaconIdentity(uuid: ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3), major: 1, minor: 3),
            measuredPower: -60).advertisingData]
        let addresses = [ComparedSequences.beaconAddress, second]
        try await withRootCanal { rootCanal in
            let expected = Set(zip(payloads, addresses).map { payload, address in
                LEExtendedAdvertisingReport(
                    eventType: .legacyNonConnectable, addressType: .random, address: address, rssi: nil, data: payload)
            })
            let results = try await onBoth(
                rootCanal: rootCanal, wait: .milliseconds(1500),
                enough: { $0.extended.count >= 10 && expected.isSubset(of: Set($0.extended)) }
            ) { advertiser, scanner in
                var handles: [AdvertisingHandle] = []
                for (index, (payload, address)) in zip(payloads, addresses).enumerated() {
                    let handle = try ComparedSequences.handle(UInt8(index))
                    _ = try await advertiser.send(try LESetExtendedAdvertisingParameters(
                        handle: handle, intervalMin: .beaconDefault, intervalMax: .beaconDefault, ownAddressType: .random, txPower: -5))
                    try await advertiser.send(LESetAdvertisingSetRandomAddress(handle: handle, address: address))
                    try await advertiser.send(try LESetExtendedAdvertisingData(handle: handle, data: payload))
                    handles.append(handle)
                }
                try await advertiser.send(try LESetExtendedAdvertisingEnable(enabling: handles))
                try await scanner.send(try LESetExtendedScanParameters(le1M: try .init(
                    interval: try ScanInterval(milliseconds: 10), window: try ScanInterval(milliseconds: 10))))
                try await scanner.send(try LESetExtendedScanEnable(true))
            }
            for (side, result) in zip(["RootCanal", "virtual"], results) {
                #expect(result.reports.extended.count >= 10, "\(side): \(result.reports.extended.count) reports")
                #expect(Set(result.reports.extended) == expected, "\(side): \(Set(result.reports.extended))")
            }
        }
    }
}
