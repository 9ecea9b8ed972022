import BeaconTestKit
import BeaconCore
import ClockTestKit
import HCI
import Logging
import Testing

@testable import BeaconFleet

/// No silent loss: a consumer that falls behind loses the oldest reports, and the count
/// reaches whoever reports on what was heard.
@Suite("Reception losses are counted and reported", .timeLimit(.minutes(1)))
struct ReceptionLossTests {
    /// Starts a scan whose session holds `buffer` sightings, floods it with `count` reports
    /// of beacon 1/2 while nobody consumes, and waits until the scan has read them all.
    static func floodedSession(buffer: Int, count: Int) async throws -> (ScriptedController, ScanSession) {
        let (controller, host) = scanTestController()
        var configuration = ScanConfiguration(access: .exclusive, quietAfter: .seconds(300))
        configuration.sightingBufferSize = buffer
        let warnings = RecordedLog<String>()
        let session = try await BeaconScanner(
            host: host, configuration: configuration, logger: RecordingLogHandler.logger(recordingInto: warnings)
        ).start()
        for index in 0..<count {
            let report = LEAdvertisingReport(
                eventType: .advNonconnInd, addressType: .random, address: try bluetoothAddress("C4:5B:BE:12:34:56"),
                data: testIBeaconData, rssi: Int8(-60 - index % 10))
            try await controller.send(.le(.advertisingReport([report])))
        }
        // The event that matters: the scan has read every report (not a time). The scan reads
        // its events in order and warns about a hardware error, so a Hardware Error sent
        // after the flood is read after every report of it.
        try await controller.send(.hardwareError(code: 0x42))
        try await warnings.wait(for: "the scan reading the hardware error after the flood") { messages in
            messages.contains { $0.contains("hardware error 0x42") }
        }
        #expect(session.counts.iBeaconReports == count)
        return (controller, session)
    }

    @Test("a scan whose consumer falls behind keeps the newest sightings and counts the rest as lost")
    func scanCountsLosses() async throws {
        let (controller, session) = try await Self.floodedSession(buffer: 10, count: 200)
        await session.stop()
        var received = 0
        for try await _ in session.sightings { received += 1 }
        #expect(received == 10)
        #expect(session.lostCount == 190)
        #expect(session.droppedSightingCount == 190)
        _ = controller
    }

    @Test("a verify pass over a lossy scan counts the losses and says its verdicts may be wrong")
    func verifySaysSo() async throws {
        let (controller, session) = try await Self.floodedSession(buffer: 10, count: 200)
        await session.stop()
        let heard = ExpectedBeacon(
            beaconID: "heard", venueID: "shop", identity: BeaconIdentity(uuid: testUUID, major: 1, minor: 2),
            measuredPower: .plausible(-100 ... -30))
        let silent = ExpectedBeacon(
            beaconID: "silent", venueID: "shop", identity: BeaconIdentity(uuid: testUUID, major: 1, minor: 3),
            measuredPower: .plausible(-100 ... -30))
        let verifier = BeaconVerifier(plan: try VerificationPlan(expected: [heard, silent]), policy: VerificationPolicy())
        let result = try await verifier.run(session.sightings, timing: .replay, lostBeforehand: session)
        #expect(result.lostReports == 190)
        #expect(result.verdicts.map(\.status) == [.ok, .missing])
        let warning = try #require(result.lossWarning)
        #expect(warning == "190 reports were lost between the controller and the verifier (the host could not keep up): "
            + "the missing, weak and slow verdicts may be wrong; verify again on a less loaded host")
        // Every report format says so: VerificationReportTests (command line).
        _ = controller
    }

    @Test("without losses, reports are unchanged: no warning, no count")
    func noLossNoWarning() async throws {
        let (controller, session) = try await Self.floodedSession(buffer: 1000, count: 20)
        await session.stop()
        #expect(session.lostCount == 0)
        let expected = ExpectedBeacon(
            beaconID: "heard", venueID: "shop", identity: BeaconIdentity(uuid: testUUID, major: 1, minor: 2),
            measuredPower: .plausible(-100 ... -30))
        let verifier = BeaconVerifier(plan: try VerificationPlan(expected: [expected]), policy: VerificationPolicy())
        let result = try await verifier.run(session.sightings, timing: .replay, lostBeforehand: session)
        #expect(result.lostReports == 0)
        #expect(result.lossWarning == nil)
        _ = controller
    }

    @Test("a host subscriber that falls behind counts what it lost in its own counter")
    func hostSubscriberDrops() async throws {
        let (controller, host) = scanTestController()
        let drops = DropCounter()
        let events = await host.events(bufferSize: 4, drops: drops)
        for _ in 0..<50 {
            try await controller.send(.le(.advertisingReport([LEAdvertisingReport(
                eventType: .advNonconnInd, addressType: .random, address: try bluetoothAddress("C4:5B:BE:12:34:56"),
                data: testIBeaconData, rssi: -60)])))
        }
        // Every event has been offered to both subscribers once a last one reaches the
        // second subscriber (the host hands each event to all its subscribers in turn, in
        // order): a Command Complete as the marker, which the first subscriber's buffer of 4
        // keeps with the 3 newest reports.
        let everything = await host.events(bufferSize: 64)
        try await controller.grantCredits(1)
        for await event in everything {
            if case .event(.commandComplete) = event { break }
        }
        #expect(drops.value == 47)
        #expect(await host.droppedEventCount == 47)
        _ = events
    }
}
