import BeaconCore
import BeaconFleet
import BeaconPlatform
import FleetManifest
import HCI
import HCITransports
import Logging
import Testing

/// The continuous audit on real timing: controllers on one RootCanal advertise, a further
/// one listens, and the watch reports the changes as advertisers come and go. Every wait is
/// on an event; the suite's time limit is the only clock.
@Suite("verify --watch on RootCanal", .requiresRootCanal, .timeLimit(.minutes(2)))
struct WatchRootCanalTests {
    static let uuid = "3E9A1C20-7B4D-4C6E-9F80-A1B2C3D4E5F6"

    /// `front` and `shared` on controller A, a copy of `shared` on controller B, `spare`
    /// nowhere.
    static let manifest = """
        version: 1
        fleet: rootcanal-watch
        uuid: \(uuid)
        defaults:
          measured_power: -59
          interval_ms: 100
        venues:
          - id: hall
            major: 1
            beacons:
              - {id: front, minor: 1}
              - {id: shared, minor: 2}
              - {id: spare, minor: 3}
        """

    /// Hands every change to a stream the test reads.
    struct StreamingSink: AuditEventSink {
        let continuation: AsyncStream<AuditEvent>.Continuation
        func deliver(_ event: AuditEvent) { continuation.yield(event) }
    }

    @Test("a clone is a duplicate, a beacon never on the air is missing; when an advertiser stops, its beacon goes missing and the clone's copy is ok alone")
    func changesOnTheAir() async throws {
        let loaded = ManifestLoader.load(sources: [(name: "rootcanal-watch.yaml", bytes: Array(Self.manifest.utf8))])
        try #require(loaded.errorCount == 0, "\(loaded.diagnostics.map(\.rendered))")
        let fleet = loaded.fleet
        var logger = Logger(label: "watch-rootcanal")
        logger.logLevel = .warning

        try await withRootCanal { rootCanal in
            let spec = try HCITransportSpec(parsing: rootCanal.hciTransportSpec)
            let advertisers = try await RootCanalAdvertisers.start(
                on: spec, fleet: fleet, controllers: [("A", ["front", "shared"]), ("B", ["shared"])], logger: logger)
            defer { advertisers.stopAll() }

            let plan = try VerificationPlan(fleet: fleet)
            let watch = AuditWatch(plan: plan, configuration: ContinuousAudit.Configuration(silence: .seconds(2)))
            let (changes, changeSink) = AsyncStream<AuditEvent>.makeStream()
            let report = try await LiveScan.with(
                opening: { () async throws(HCITransportError) -> any HCITransport in try await ControllerTransports.open(spec) },
                controller: spec.description,
                commandTimeout: .seconds(60), configuration: ScanConfiguration(access: .exclusive), logger: logger
            ) { scan in
                let watching = Task {
                    try await watch.run(scan.sightings, timing: .live(tick: .milliseconds(100)), lostBeforehand: scan, sinks: [StreamingSink(continuation: changeSink)])
                }
                var states: [String: AuditState] = [:]
                var iterator = changes.makeAsyncIterator()
                /// Reads changes until `done` holds for the states they leave.
                func until(_ done: ([String: AuditState]) -> Bool) async {
                    while !done(states), let event = await iterator.next() {
                        states[event.beaconID ?? event.identity.description] = event.state
                    }
                }

                await until { $0["front"] == .ok && $0["shared"] == .duplicate && $0["spare"] == .missing }
                #expect(states.count == 3, "nothing unexpected: \(states)")

                // A stops: its front beacon goes quiet, and shared is B's alone once A's copy has
                // been silent for the window.
                advertisers.tasks["A"]?.cancel()
                await until { $0["front"] == .missing && $0["shared"] == .ok }
                #expect(states == ["front": .missing, "shared": .ok, "spare": .missing])

                watching.cancel()
                return try await watching.value
            }
            #expect(report.end == .interrupted)
            #expect(report.statistics.beaconStates[.ok] == 1)
            #expect(report.statistics.beaconStates[.missing] == 2)
        }
    }
}
