import BeaconCore
import BeaconFleet
import BeaconPlatform
import FleetManifest
import HCI
import HCITransports
import Logging
import Synchronization
import Testing

/// The verification pass against real timing: controllers on one RootCanal advertise the
/// beacons of a manifest with the advertising use case, a further controller listens.
@Suite("verify on RootCanal", .requiresRootCanal, .timeLimit(.minutes(2)))
struct VerifyRootCanalTests {
    static let uuid = "7A1C5E00-3B2D-4E5F-8A9B-0C1D2E3F4A5B"

    /// Venue `hall` (major 1): 16 beacons on controller A. Venue `annex` (major 2): 16 on B.
    /// Venue `back-office` (major 3): two nobody advertises, one advertised with another
    /// measured power than the manifest's, one advertised by two controllers (C and D).
    static let manifest: String = {
        var text = """
            version: 1
            fleet: rootcanal-venue
            uuid: \(uuid)
            defaults:
              measured_power: -59
              interval_ms: 100
            venues:
              - id: hall
                major: 1
                host: controller-a
                beacons:

            """
        for minor in 1...16 { text += "      - {id: hall-\(minor), minor: \(minor)}\n" }
        text += "  - id: annex\n    major: 2\n    host: controller-b\n    beacons:\n"
        for minor in 1...16 { text += "      - {id: annex-\(minor), minor: \(minor)}\n" }
        text += """
              - id: back-office
                major: 3
                host: controller-c
                beacons:
                  - {id: lost-1, minor: 1}
                  - {id: lost-2, minor: 2}
                  - {id: misprogrammed, minor: 3}
                  - {id: cloned, minor: 4}

            """
        return text
    }()

    static func fleet() throws -> Fleet {
        let loaded = ManifestLoader.load(sources: [(name: "rootcanal-venue.yaml", bytes: Array(manifest.utf8))])
        try #require(loaded.errorCount == 0, "\(loaded.diagnostics.map(\.rendered))")
        return loaded.fleet
    }

    static func identity(major: UInt16, minor: UInt16) throws -> BeaconIdentity {
        BeaconIdentity(uuid: try ProximityUUID(parsing: uuid), major: major, minor: minor)
    }

    @Test("32 correct beacons are all decided before the timeout; every fault gets its verdict")
    func verdictsOnTheAir() async throws {
        let fleet = try Self.fleet()
        var logger = Logger(label: "verify-rootcanal")
        logger.logLevel = .warning

        try await withRootCanal { rootCanal in
            let spec = try HCITransportSpec(parsing: rootCanal.hciTransportSpec)
            func requests(_ host: String) throws -> [AdvertisingRequest] {
                try fleet.beacons.filter { $0.host == host }.map { try AdvertisingRequest($0) }
            }
            let hall = try requests("controller-a")
            let annex = try requests("controller-b")
            let backOffice = Dictionary(uniqueKeysWithValues: try requests("controller-c").map { ($0.beaconID ?? "", $0) })
            var misprogrammed = try #require(backOffice["misprogrammed"])
            misprogrammed.measuredPower = .dBm(-70)
            let cloned = try #require(backOffice["cloned"])
            // Not in the manifest, with the fleet's UUID.
            let stranger = AdvertisingRequest(identity: try Self.identity(major: 3, minor: 99), measuredPower: .dBm(-59))

            let controllers: [(name: String, requests: [AdvertisingRequest])] = [
                ("A", hall), ("B", annex), ("C", [misprogrammed, cloned, stranger]), ("D", [cloned]),
            ]
            #expect(hall.count == 16 && annex.count == 16)

            // Each advertiser says when its beacons are on the air, or why they are not.
            let (started, startedSink) = AsyncStream<Result<String, AdvertisingError>>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for controller in controllers {
                    let advertiser = BeaconAdvertiser(
                        connection: ControllerConnection(spec, platform: .system), configuration: AdvertiserConfiguration(requests: controller.requests),
                        logger: logger)
                    group.addTask {
                        do throws(AdvertisingError) {
                            _ = try await advertiser.run { event in
                                if case .started = event { startedSink.yield(.success(controller.name)) }
                            }
                        } catch {
                            startedSink.yield(.failure(error))
                        }
                    }
                }
                var onTheAir: [String] = []
                for await outcome in started {
                    onTheAir.append(try outcome.get())
                    if onTheAir.count == controllers.count { break }
                }
                try #require(onTheAir.count == controllers.count, "on the air: \(onTheAir)")

                try await checkEarlyStop(fleet: fleet, spec: spec)
                try await checkVerdicts(fleet: fleet, spec: spec)
                group.cancelAll()
            }
        }
    }

    /// Scans on a new controller of `spec` (the scanner use case) for the length of `body`.
    private func listening<Value>(
        on spec: HCITransportSpec, _ body: (ScanSession) async throws -> Value
    ) async throws -> Value {
        var logger = Logger(label: "verify-rootcanal-scan")
        logger.logLevel = .warning
        // RootCanal answers at once: the timeout is a safety net for a loaded machine.
        let host = HostController(transport: try await ControllerTransports.open(spec), defaultTimeout: .seconds(60))
        let session: ScanSession
        do {
            session = try await BeaconScanner(host: host, configuration: ScanConfiguration(access: .exclusive), logger: logger).start()
        } catch {
            await host.close()
            throw error
        }
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await body(session))
        } catch {
            outcome = .failure(error)
        }
        await session.stop()
        await host.close()
        return try outcome.get()
    }

    /// A pass over the 32 beacons advertised correctly ends on its own, with every beacon
    /// decided, rather than at its timeout. How soon after the last first sighting is
    /// printed as a figure: it depends on the machine, so it is not a pass condition.
    private func checkEarlyStop(fleet: Fleet, spec: HCITransportSpec) async throws {
        let correct = fleet.beacons.filter { $0.venueID != "back-office" }.map { ExpectedBeacon($0) }
        let plan = try VerificationPlan(
            expected: correct, fleetUUIDs: Set(fleet.beacons.map(\.identity.uuid)), scope: "32 correct beacons")
        // The timeout is a safety net: the pass must end before it, by deciding everything.
        let verifier = BeaconVerifier(plan: plan, policy: VerificationPolicy(timeout: .seconds(45)))
        let (result, wallClock) = try await listening(on: spec) { session in
            let started = ContinuousClock.now
            let result = try await verifier.run(session.sightings, timing: .live)
            return (result, ContinuousClock.now - started)
        }

        #expect(result.endReason == .allDecided)
        #expect(result.verdicts.count == 32)
        #expect(result.verdicts.allSatisfy { $0.status == .ok }, "\(result.verdicts.filter { $0.status != .ok })")
        let lastFirstSighting = try #require(result.verdicts.compactMap(\.observation.firstSeen).max())
        let afterLastFirstSighting = (PassTime.origin + result.duration) - lastFirstSighting
        print("verify: 32 beacons decided \(VerdictWording.milliseconds(afterLastFirstSighting)) after the last one's first sighting (\(VerdictWording.seconds(result.duration)) from the start, \(wallClock) wall clock, \(result.sightings) sightings)")
        #expect(result.duration < .seconds(45), "ended by deciding every beacon, before the timeout")
    }

    /// A pass over the whole manifest: the faults get their verdicts, the missing ones at
    /// the timeout. 8 s of listening to beacons that advertise every 100 ms leaves room for
    /// a loaded machine to deliver each of them several times.
    private func checkVerdicts(fleet: Fleet, spec: HCITransportSpec) async throws {
        let verifier = BeaconVerifier(plan: try VerificationPlan(fleet: fleet), policy: VerificationPolicy(timeout: .seconds(8)))
        let result = try await listening(on: spec) { session in
            try await verifier.run(session.sightings, timing: .live)
        }

        let status = Dictionary(uniqueKeysWithValues: result.verdicts.map { ($0.beacon.beaconID, $0.status) })
        #expect(status.count == 36)
        #expect(status.filter { $0.value == .ok }.count == 32, "\(status.filter { $0.value != .ok })")
        #expect(status["lost-1"] == .missing)
        #expect(status["lost-2"] == .missing)
        #expect(status["misprogrammed"] == .wrongPower)
        #expect(status["cloned"] == .duplicate)
        let clonedVerdict = try #require(result.verdicts.first { $0.beacon.beaconID == "cloned" })
        #expect(clonedVerdict.observation.addresses.count == 2, "\(clonedVerdict.observation.addresses.map(\.address))")
        let misprogrammedVerdict = try #require(result.verdicts.first { $0.beacon.beaconID == "misprogrammed" })
        #expect(misprogrammedVerdict.observation.measuredPowers.map(\.value) == [-70])
        #expect(result.unexpected.map(\.identity) == [try Self.identity(major: 3, minor: 99)])
        #expect(result.unexpected.first?.likelyVenue == "back-office")
        #expect(result.endReason == .timeout)
        #expect(!result.passed)
    }
}
