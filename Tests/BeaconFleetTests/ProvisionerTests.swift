import BeaconTestKit
import BeaconCore
import ClockTestKit
import FleetManifest
import HCI
import HCITransports
import Logging
import Testing

@testable import BeaconFleet

/// The provisioning use case against two scripted controllers: A advertises (Bluetooth 5,
/// selected TX power −10 dBm, so `auto` gives −51 dBm), B listens (legacy scanning) and
/// reports what the test plays on its air.
@Suite("Provisioning: advertise, verify, keep advertising", .timeLimit(.minutes(1)))
struct ProvisionerTests {
    static let manifest = """
        version: 1
        fleet: provision-unit
        uuid: 89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
        venues:
          - id: shop
            major: 1
            host: pi-shop
            beacons:
              - {id: door, minor: 1, measured_power: -59}
              - {id: till, minor: 2}
          - id: depot
            major: 2
            host: pi-depot
            beacons:
              - {id: gate, minor: 1}
        """

    /// A provisioning run on scripted controllers, with what it reported.
    final class Run: Sendable {
        let advertising = ScriptedController(name: "tcp-client:127.0.0.1:1")
        let listening: ScriptedController
        /// The clock of the whole run: the air's 100 ms pass when the test moves it.
        let clock = TestClock()
        let task: Task<Result<VerificationResult, ProvisionError>, Never>
        private let log = RecordedLog<ProvisionEvent>()

        init(host: String = "pi-shop", once: Bool, listening: ScriptedController.Configuration = Run.legacyScanner) throws {
            let loaded = ManifestLoader.load(sources: [(name: "shop.yaml", bytes: Array(ProvisionerTests.manifest.utf8))])
            try #require(loaded.errorCount == 0)
            let listener = ScriptedController(name: "tcp-client:127.0.0.1:2", configuration: listening)
            self.listening = listener
            let advertiser = advertising
            var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            logger.logLevel = .critical
            let provisioner = BeaconProvisioner(
                configuration: ProvisionConfiguration(
                    fleet: loaded.fleet, host: host, advertisingController: try HCITransportSpec(parsing: "tcp-client:127.0.0.1:1"),
                    listeningController: try HCITransportSpec(parsing: "tcp-client:127.0.0.1:2"),
                    // The timeout is a safety net only: the test plays frames until a verdict.
                    policy: VerificationPolicy(timeout: .seconds(50)), restart: nil),
                logger: logger,
                openAdvertisingTransport: { () async throws(HCITransportError) -> any HCITransport in advertiser.hostEnd },
                // Both controllers are exclusive (tcp-client): bluetoothd holds nothing there.
                readOccupiedSets: { _ in OccupiedAdvertisingSets(instances: []) },
                openListeningTransport: { () async throws(HCITransportError) -> any HCITransport in listener.hostEnd },
                clock: clock)
            let log = self.log
            task = Task {
                do throws(ProvisionError) {
                    return .success(try await provisioner.run(once: once) { event in log.append(event) })
                } catch {
                    return .failure(error)
                }
            }
        }

        static var legacyScanner: ScriptedController.Configuration {
            var configuration = ScriptedController.Configuration()
            configuration.features = []
            configuration.address = BluetoothAddress(value: 0x00_1A_7D_DA_71_99) ?? .zero
            return configuration
        }

        var recorded: [ProvisionEvent] { log.elements }

        var session: AdvertisingSession? {
            recorded.lazy.compactMap { event -> AdvertisingSession? in
                if case .advertiser(.started(let session)) = event { return session }
                return nil
            }.first
        }

        var verified: VerificationResult? {
            recorded.lazy.compactMap { event -> VerificationResult? in
                if case .verified(let result) = event { return result }
                return nil
            }.first
        }

        /// Plays the accepted beacons' frames on the listener's air, as beacons advertising
        /// every 100 ms are heard, until the verification's report is in (`power` replaces a
        /// beacon's measured power).
        ///
        /// Each round is heard at one instant of the test clock: the clock moves on by 100 ms
        /// only once the verification has taken the round's sightings (it reports its progress
        /// after every input), so receptions are exactly 100 ms apart however busy the machine.
        func playAccepted(power: [String: Int8] = [:]) async throws {
            try await log.wait(for: "the verification listening") { events in
                events.contains { if case .verifying = $0 { true } else { false } }
            }
            let session = try #require(self.session)
            let reports = session.beacons.map { beacon in
                let frame = IBeaconAdvertisement(
                    identity: beacon.identity, measuredPower: power[beacon.beaconID ?? ""] ?? beacon.measuredPower)
                return LEAdvertisingReport(
                    eventType: .advNonconnInd, addressType: .random, address: beacon.address,
                    data: frame.advertisingData, rssi: -60)
            }
            var played = 0
            while verified == nil {
                try await listening.send(.le(.advertisingReport(reports)))
                played += reports.count
                let taken = played
                try await log.wait(for: "the verification taking \(taken) sightings") { events in
                    events.contains { event in
                        switch event {
                        case .verified: true
                        case .verification(let progress, _): progress.sightings >= taken
                        default: false
                        }
                    }
                }
                clock.advance(by: .milliseconds(100))
            }
        }

        /// Waits until the verification's report is in.
        func waitForReport() async throws -> VerificationResult {
            let events = try await log.wait(for: "the verification's report") { events in
                events.contains { if case .verified = $0 { true } else { false } }
            }
            for case .verified(let result) in events { return result }
            throw TestFailure("no report among \(events)")
        }

        /// Waits until the advertiser has reported a warning containing `text`.
        func waitForAdvertiserWarning(containing text: String) async throws {
            try await log.wait(for: "an advertiser warning about \(text)") { events in
                events.contains { if case .advertiser(.warning(let message)) = $0 { message.contains(text) } else { false } }
            }
        }
    }

    @Test("--once: the host's beacons are advertised, verified at the power the advertiser computed, then stopped")
    func once() async throws {
        let run = try Run(once: true)
        try await run.playAccepted()
        let result = try await run.task.value.get()
        #expect(result.passed)
        #expect(result.verdicts.map(\.beacon.beaconID) == ["door", "till"])
        #expect(result.verdicts.map(\.beacon.measuredPower) == [.calibrated(-59), .advertised(-51)])
        #expect(result.scope == "fleet provision-unit, host pi-shop")
        #expect(run.session?.beacons.map(\.beaconID) == ["door", "till"], "only this host's beacons are advertised")
        // Taken off the air after the report: the sets disabled, scanning disabled.
        let lastEnable = run.advertising.commands.last { $0.opcode == .leSetExtendedAdvertisingEnable }
        #expect(lastEnable?.parameters.first == 0x00, "the last LE Set Extended Advertising Enable disables")
        #expect(run.listening.commands.last { $0.opcode == .leSetScanEnable }?.parameters.first == 0x00)
        let last = run.recorded.last
        if case .advertiser(.stopped(.cancelled)) = last {} else { Issue.record("the run ends with the beacons off the air: \(String(describing: last))") }
    }

    @Test("an auto beacon heard at another power than the advertiser computed is wrong-power")
    func autoPowerIsTheAdvertisedOne() async throws {
        let run = try Run(once: true)
        // −59 is plausible for a beacon, but not what this advertiser put in the frame (−51).
        try await run.playAccepted(power: ["till": -59])
        let result = try await run.task.value.get()
        #expect(result.verdicts.map(\.status) == [.ok, .wrongPower])
    }

    @Test("without --once the beacons stay on the air after the report, until the task is cancelled")
    func keepsAdvertisingUntilCancelled() async throws {
        let run = try Run(once: false)
        try await run.playAccepted()
        let report = try await run.waitForReport()
        #expect(report.passed)
        // Proof that the advertiser still watches its controller after the report: another
        // program's advertising command now draws its warning.
        try await run.advertising.send(.commandComplete(.init(answering: LESetExtendedAdvertisingEnable.self)))
        try await run.waitForAdvertiserWarning(containing: "another program")
        let stopped = run.recorded.contains { if case .advertiser(.stopped) = $0 { true } else { false } }
        #expect(!stopped, "still advertising after the report")
        run.task.cancel()
        let result = try await run.task.value.get()
        #expect(result == report)
        #expect(run.recorded.contains { if case .advertiser(.stopped(.cancelled)) = $0 { true } else { false } })
    }

    @Test("a listener that refuses to scan ends the run with a scanning error, beacons off the air")
    func listenerRefuses() async throws {
        var refusing = Run.legacyScanner
        refusing.refusals[.leSetScanEnable] = .commandDisallowed
        let run = try Run(once: false, listening: refusing)
        let outcome = await run.task.value
        guard case .failure(.scanning(let controller, _)) = outcome else {
            Issue.record("expected a scanning failure, got \(outcome)")
            return
        }
        #expect(controller == "tcp-client:127.0.0.1:2")
        #expect(run.recorded.contains { if case .advertiser(.stopped) = $0 { true } else { false } })
    }

    @Test("an advertiser that cannot start ends the run with its error; nothing listens")
    func advertiserFails() async throws {
        let run = try Run(once: true)
        run.advertising.refuse(.leSetExtendedAdvertisingParameters, with: .unsupportedFeatureOrParameterValue)
        let outcome = await run.task.value
        guard case .failure(.advertising) = outcome else {
            Issue.record("expected an advertising failure, got \(outcome)")
            return
        }
        #expect(run.listening.commands.isEmpty)
    }

    @Test("a host without beacons in the manifest is refused before any controller is touched")
    func unknownHost() async throws {
        let run = try Run(host: "pi-attic", once: true)
        let outcome = await run.task.value
        guard case .failure(.plan(let message)) = outcome else {
            Issue.record("expected a plan failure, got \(outcome)")
            return
        }
        #expect(message.hasPrefix("no beacon of the manifest names host `pi-attic`; hosts it names: pi-depot, pi-shop"))
        #expect(run.advertising.commands.isEmpty && run.listening.commands.isEmpty)
    }
}
