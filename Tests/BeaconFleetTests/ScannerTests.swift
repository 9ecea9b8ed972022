import BeaconTestKit
import BeaconCore
import ClockTestKit
import HCI
import Logging
import Testing

@testable import BeaconFleet

@Suite("Scanner against a scripted controller", .timeLimit(.minutes(1)))
struct ScannerTests {
    static let logger = Logger(label: "scan-tests") { _ in SwiftLogNoOpLogHandler() }

    /// `quietAfter` zero turns the quiet-controller watch off: a test that takes long on a
    /// busy machine must not see an extra LE Set Scan Enable it did not ask for.
    static func scanner(_ host: HostController, exclusive: Bool = true, family: ScanFamilyChoice = .auto,
                        quietAfter: Duration = .zero, clock: any Clock<Duration> = TestClock()) -> BeaconScanner {
        BeaconScanner(
            host: host,
            configuration: ScanConfiguration(
                family: family, access: exclusive ? .exclusive : .sharedWithKernel(index: 0), quietAfter: quietAfter),
            logger: logger, clock: clock)
    }

    @Test("exclusive legacy bring-up: Reset, both masks, features, passive 100/100 ms, duplicates off")
    func legacyBringUp() async throws {
        let (controller, host) = scanTestController()
        let session = try await Self.scanner(host).start()
        #expect(session.family == .legacy)
        #expect(controller.opcodes == [
            .reset, .setEventMask, .leSetEventMask, .leReadLocalSupportedFeatures, .leSetScanParameters, .leSetScanEnable,
        ])
        // Set Event Mask (Core v5.4 Vol 4 Part E 7.3.1): the default 0x00001FFFFFFFFFFF plus bit 61, LE Meta.
        #expect(controller.parameters(of: .setEventMask) == [bytes("FF FF FF FF FF 1F 00 20")])
        // LE Set Event Mask (7.8.1): bit 1 advertising report, bit 12 extended report (and set terminated, scan timeout).
        let leMask = try #require(controller.parameters(of: .leSetEventMask).first)
        let mask = leMask.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        #expect(mask & (1 << 1) != 0 && mask & (1 << 12) != 0)
        // LE Set Scan Parameters (7.8.10): passive, interval 0x00A0 and window 0x00A0 (100 ms), public, accept all.
        #expect(controller.parameters(of: .leSetScanParameters) == [bytes("00 A0 00 A0 00 00 00")])
        // LE Set Scan Enable (7.8.11): enable, Filter_Duplicates off.
        #expect(controller.parameters(of: .leSetScanEnable) == [bytes("01 00")])
        await session.stop()
    }

    @Test("feature bit 12 selects extended scanning on LE 1M")
    func extendedBringUp() async throws {
        let (controller, host) = scanTestController(features: [.extendedAdvertising])
        let session = try await Self.scanner(host).start()
        #expect(session.family == .extended)
        #expect(controller.opcodes.suffix(2) == [.leSetExtendedScanParameters, .leSetExtendedScanEnable])
        #expect(!controller.opcodes.contains(.leSetScanParameters))
        // LE Set Extended Scan Parameters (7.8.64): public, accept all, PHYs = LE 1M, passive, 0x00A0, 0x00A0.
        #expect(controller.parameters(of: .leSetExtendedScanParameters) == [bytes("00 00 01 00 A0 00 A0 00")])
        // LE Set Extended Scan Enable (7.8.65): enable, duplicates off, duration 0, period 0.
        #expect(controller.parameters(of: .leSetExtendedScanEnable) == [bytes("01 00 00 00 00 00")])
        await session.stop()
        #expect(controller.parameters(of: .leSetExtendedScanEnable).last == bytes("00 00 00 00 00 00"))
    }

    @Test("the kernel's shared RAW channel gets no Reset and keeps its masks")
    func sharedControllerIsNotReset() async throws {
        let (controller, host) = scanTestController(name: "hci0")
        let session = try await Self.scanner(host, exclusive: false).start()
        #expect(controller.opcodes == [.leReadLocalSupportedFeatures, .leSetScanParameters, .leSetScanEnable])
        await session.stop()
    }

    @Test("forcing extended scanning on a controller without it is refused before any scan command")
    func extendedForcedOnLegacyController() async throws {
        let (controller, host) = scanTestController()
        let error = try await #require(throws: ScanError.self) {
            _ = try await Self.scanner(host, family: .extended).start()
        }
        #expect(error.kind == .extendedScanningUnsupported)
        #expect(error.description.hasPrefix("memory: extended scanning was asked for, but the controller does not support it"))
        #expect(!controller.opcodes.contains(.leSetExtendedScanParameters))
    }

    @Test("a refused scan command names the controller, the command and the status")
    func refusal() async throws {
        let (_, host) = scanTestController(name: "hci-user:0") { command in
            command.opcode == .leSetScanParameters ? [HCIStatus.commandDisallowed.rawValue] : nil
        }
        let error = try await #require(throws: ScanError.self) {
            _ = try await Self.scanner(host).start()
        }
        guard case .command(let hciError, let step) = error.kind else {
            Issue.record("expected a command failure, got \(error)")
            return
        }
        #expect(step == "setting the scan parameters")
        #expect(hciError.status == .commandDisallowed)
        #expect(error.description.hasPrefix("hci-user:0: LE Set Scan Parameters was refused (0x0C Command Disallowed)"))
    }

    @Test("every report of a multi-report event; other advertisers and malformed events ignored")
    func multiReportEvent() async throws {
        let (controller, host) = scanTestController()
        let session = try await Self.scanner(host).start()
        // xorbit/py-decode-beacon decode_test.py, "BlueZ message with 1 iBeacon and 1
        // AltBeacon advertisement", preceded by an event whose report count lies.
        try await controller.send(rawEvent: bytes("3E 05 02 03 03 00 01"))
        try await controller.send(rawEvent: bytes("""
            3E 50 02 02
            03 00 EC F8 00 EE F3 0C 1E 02 01 04 1A FF 4C 00 02 15 8D EE FB B9 F7 38 42 97 80
            40 96 66 8B B4 42 81 13 88 0F 4E C1 BB
            03 00 EC F8 00 EE F3 0D 1C 1B FF 44 01 BE AC 8D EE FB B9 F7 38 42 97 80
            40 96 66 8B B4 42 81 13 88 0F 4F C1 55 B1
            """))
        let legacy = LEAdvertisingReport(
            eventType: .advNonconnInd, addressType: .random, address: try bluetoothAddress("C4:5B:BE:12:34:56"),
            data: testIBeaconData, rssi: nil)
        try await controller.send(.le(.advertisingReport([legacy])))
        var iterator = session.sightings.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.identity.description == "8DEEFBB9-F738-4297-8040-96668BB44281/5000/3918")
        #expect(first.advertisement.measuredPower == -63)
        #expect(first.address?.description == "0C:F3:EE:00:F8:EC")
        #expect(!first.addressIsRandom)
        #expect(first.rssi == -69)
        #expect(first.receiver == "memory")
        #expect(first.time >= 0 && first.time < 10)
        let second = try #require(try await iterator.next())
        #expect(second.identity == BeaconIdentity(uuid: testUUID, major: 1, minor: 2))
        #expect(second.addressIsRandom)
        #expect(second.rssi == nil)
        let counts = session.counts
        #expect(counts.malformedEvents == 1)
        #expect(counts.reports == 3)
        #expect(counts.iBeaconReports == 2)
        #expect(counts.otherReports == 1)
        await session.stop()
    }

    @Test("extended data in fragments is put back together; truncated data is dropped")
    func extendedFragments() async throws {
        let (controller, host) = scanTestController(features: [.extendedAdvertising])
        let session = try await Self.scanner(host).start()
        let address = try bluetoothAddress("D0:00:00:00:00:01")
        func report(_ data: ArraySlice<UInt8>, _ status: LEExtendedAdvertisingReport.EventType.DataStatus, rssi: Int8) -> LEExtendedAdvertisingReport {
            LEExtendedAdvertisingReport(
                eventType: .init(dataStatus: status), addressType: .random, address: address,
                secondaryPHY: .le2M, sid: 3, rssi: rssi, data: Array(data))
        }
        // A truncated chain first: never a sighting.
        try await controller.send(.le(.extendedAdvertisingReport([report(testIBeaconData[0..<10], .incompleteMoreToCome, rssi: -50)])))
        try await controller.send(.le(.extendedAdvertisingReport([report(testIBeaconData[10..<20], .incompleteTruncated, rssi: -50)])))
        // Then the same data in two fragments of one event and a third in the next.
        try await controller.send(.le(.extendedAdvertisingReport([
            report(testIBeaconData[0..<12], .incompleteMoreToCome, rssi: -61),
            report(testIBeaconData[12..<20], .incompleteMoreToCome, rssi: -62),
        ])))
        try await controller.send(.le(.extendedAdvertisingReport([report(testIBeaconData[20...], .complete, rssi: -63)])))
        var iterator = session.sightings.makeAsyncIterator()
        let sighting = try #require(try await iterator.next())
        #expect(sighting.identity == BeaconIdentity(uuid: testUUID, major: 1, minor: 2))
        #expect(sighting.rssi == -63)
        #expect(sighting.address?.description == "D0:00:00:00:00:01")
        #expect(session.counts.incompleteData == 1)
        #expect(session.counts.fragments == 3)
        await session.stop()
    }

    @Test("stopping disables scanning and ends the stream")
    func stopDisables() async throws {
        let (controller, host) = scanTestController()
        let session = try await Self.scanner(host).start()
        await session.stop()
        #expect(controller.parameters(of: .leSetScanEnable) == [bytes("01 00"), bytes("00 00")])
        var iterator = session.sightings.makeAsyncIterator()
        #expect(try await iterator.next() == nil)
        await session.stop()  // idempotent
        #expect(controller.parameters(of: .leSetScanEnable).count == 2)
    }

    @Test("a consumer that stops iterating stops the scan")
    func cancellationDisables() async throws {
        let (controller, host) = scanTestController()
        let stream = Self.scanner(host).sightings()
        let consumer = Task {
            for try await _ in stream {}
        }
        try await controller.waitFor(.leSetScanEnable)
        consumer.cancel()
        _ = await consumer.result
        try await controller.waitFor(.leSetScanEnable, count: 2)
        #expect(controller.parameters(of: .leSetScanEnable).last == bytes("00 00"))
    }

    @Test("a dropped link ends the stream with an error naming the controller")
    func linkDropped() async throws {
        let (controller, host) = scanTestController(name: "tcp-client:127.0.0.1:6402")
        let session = try await Self.scanner(host).start()
        controller.dropLink()
        let error = await #expect(throws: ScanError.self) {
            for try await _ in session.sightings {}
        }
        #expect(error?.description == "tcp-client:127.0.0.1:6402: the link to the controller ended while scanning (tcp-client:127.0.0.1:6402: connection reset by peer); check that it is still plugged in or running, then scan again")
        await session.stop()
    }

    @Test("a Reset from elsewhere is followed by a new bring-up")
    func unsolicitedResetRestarts() async throws {
        let (controller, host) = scanTestController()
        let session = try await Self.scanner(host).start()
        try await controller.send(.commandComplete(.init(numHCICommandPackets: 1, answering: Reset.self)))
        try await controller.waitFor(.leSetScanEnable, count: 2)
        #expect(controller.opcodes.suffix(4) == [.setEventMask, .leSetEventMask, .leSetScanParameters, .leSetScanEnable])
        await session.stop()
    }

    @Test("a quiet controller is noticed and scanning enabled again")
    func quietController() async throws {
        let (controller, host) = scanTestController()
        let clock = TestClock()
        let session = try await Self.scanner(host, quietAfter: .seconds(10), clock: clock).start()
        // The watch looks every quarter of the quiet period. Three looks, at 2.5, 5 and 7.5 s
        // of silence: nothing to do yet (each ends with the watch asleep again).
        for _ in 0..<3 {
            try await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(2500))
        }
        try await clock.sleepers(atLeast: 1)
        #expect(controller.opcodes.filter { $0 == .leSetScanEnable }.count == 1, "7.5 s of 10: not quiet yet")
        // At 10 s the controller is presumed quiet, and scanning is enabled again.
        clock.advance(by: .milliseconds(2500))
        try await controller.waitFor(.leSetScanEnable, count: 2)
        #expect(controller.parameters(of: .leSetScanEnable)[1] == bytes("01 00"))
        // Only the enable: parameters sent while scanning would be refused with Command Disallowed.
        #expect(controller.parameters(of: .leSetScanParameters).count == 1)
        await session.stop()
    }
}
