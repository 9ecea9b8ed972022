import BeaconCore
import BeaconFleet
import FleetManifest
import Foundation
import Glibc
import HCI
import HCITransports
import Logging
import Testing

/// A chain's audit, live, the way stores run it: two receivers (RootCanal controllers, each
/// a `beaconctl scan --mqtt` process) publish to a real Mosquitto, one `verify --watch`
/// reads every receiver from it, and a recorder (`scan --input mqtt://`) keeps what the
/// broker delivered. Beacons are advertised on further RootCanal controllers. Every wait is
/// on an event (a line printed, a client subscribed); the time limit is the only clock.
@Suite(
    "A fleet audit live: two receivers, a broker, one watch", .requiresRootCanal,
    .enabled(if: MosquittoBroker.shouldRun), .timeLimit(.minutes(4)))
struct FleetBrokerLiveTests {
    static let uuid = "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"
    static let silence = 2.0

    /// `front` on controller A, `shared` on A and (a clone) on B, `off` on C until it is
    /// switched off.
    static let manifest = """
        version: 1
        fleet: live-chain
        uuid: \(uuid)
        defaults:
          measured_power: -59
          interval_ms: 100
        venues:
          - id: store
            major: 3
            beacons:
              - {id: front, minor: 1}
              - {id: shared, minor: 2}
              - {id: off, minor: 3}
        """

    /// The watch's change events, by beacon, in order.
    static func changes(_ lines: [String]) -> [(beacon: String, event: [String: Any])] {
        lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "change", let beacon = object["beacon"] as? String
            else { return nil }
            return (beacon, object)
        }
    }

    /// Each beacon's latest state in the watch's output.
    static func states(_ lines: [String]) -> [String: String] {
        var states: [String: String] = [:]
        for (beacon, event) in changes(lines) { states[beacon] = event["state"] as? String }
        return states
    }

    @Test("a clone is duplicate, one beacon heard by both receivers is not, a beacon switched off goes missing after its silence, and a broker restarted mid-stream loses nothing")
    func chainAudit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifestFile = folder.appendingPathComponent("chain.yaml")
        try Self.manifest.write(to: manifestFile, atomically: true, encoding: .utf8)
        let loaded = ManifestLoader.load(sources: [(name: "chain.yaml", bytes: Array(Self.manifest.utf8))])
        try #require(loaded.errorCount == 0, "\(loaded.diagnostics.map(\.rendered))")
        var logger = Logger(label: "fleet-broker-live")
        logger.logLevel = .warning

        try await withRootCanal { rootCanal in
            try await withMosquitto { broker in
                let spec = try HCITransportSpec(parsing: rootCanal.hciTransportSpec)
                let advertisers = try await RootCanalAdvertisers.start(
                    on: spec, fleet: loaded.fleet, controllers: [("A", ["front", "shared"]), ("B", ["shared"]), ("C", ["off"])],
                    logger: logger)
                defer { advertisers.stopAll() }

                // The audit and the recorder subscribe before any receiver publishes.
                let watchID = "watch-\(UUID().uuidString.prefix(8))"
                let watch = try BeaconctlProcess(
                    ["verify", manifestFile.path, "--watch", "--input", broker.url, "--silence", "2", "--format", "jsonl"],
                    environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": watchID])
                let recorderID = "recorder-\(UUID().uuidString.prefix(8))"
                let recorder = try BeaconctlProcess(
                    ["scan", "--input", broker.url, "--format", "jsonl"], environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": recorderID])
                try await MQTTCommandTests.waitForSubscription(broker, clientID: watchID)
                try await MQTTCommandTests.waitForSubscription(broker, clientID: recorderID)

                // Two stores' boxes: each its own controller on the air, its own name.
                let receivers = try ["store-a", "store-b"].map { name in
                    try BeaconctlProcess([
                        "scan", "--hci", rootCanal.hciTransportSpec, "--receiver", name, "--mqtt", broker.url,
                        "--unix-time", "--format", "jsonl",
                    ], environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": "\(name)-\(UUID().uuidString.prefix(8))"])
                }

                #expect(await watch.waitForOutput("front ok, shared duplicate, off ok") { lines in
                    let states = Self.states(lines)
                    return states["front"] == "ok" && states["shared"] == "duplicate" && states["off"] == "ok"
                }, "\(watch.standardOutput)\(watch.standardError)")

                // The broker goes down and comes back with what it persisted, while both
                // receivers keep publishing.
                try await broker.restart()
                let atRestart = recorder.outputLines.count
                #expect(await recorder.waitForOutput("sightings after the restart") { $0.count > atRestart + 20 })

                // `off` leaves the air.
                await advertisers.stop("C")
                #expect(await watch.waitForOutput("off missing") { Self.states($0)["off"] == "missing" }, "\(watch.standardOutput)")
                let missing = try #require(Self.changes(watch.outputLines).last { $0.beacon == "off" && $0.event["state"] as? String == "missing" }?.event)
                let missingAt = try #require(missing["time"] as? Double)
                let lastHeard = try #require((missing["receivers"] as? [[String: Any]])?.compactMap { $0["last_seen"] as? Double }.max())
                // The change carries when it happened, on the watch's clock: exactly the
                // silence after the last reception any receiver had.
                #expect(missingAt - lastHeard <= Self.silence + 1, "missing at \(missingAt), last heard at \(lastHeard)")
                #expect(abs(missingAt - lastHeard - Self.silence) < 0.001)

                // The receivers stop (SIGTERM, a normal end): each drains to the broker first.
                for receiver in receivers { receiver.signal(SIGTERM) }
                for receiver in receivers {
                    #expect(await receiver.waitForExit() == 0, "every sighting acknowledged: \(receiver.standardError)")
                }
                let published = Set(receivers.flatMap(\.outputLines))
                #expect(published.count > 50)
                // QoS 1 across the restart: everything the receivers published reached the
                // recorder (at least once: a redelivery after the restart may repeat one).
                let delivered = await recorder.waitForOutput("every published sighting") { lines in
                    published.isSubset(of: Set(lines))
                }
                #expect(delivered, "missing: \(published.subtracting(recorder.outputLines).count) of \(published.count)")

                // One beacon heard by both receivers is one device: front was never a duplicate.
                let sightings = try SightingRecording.jsonLines(text: recorder.outputLines.joined(separator: "\n"), source: "recorder")
                let frontIdentity = try #require(loaded.fleet.beacons.first { $0.id == "front" }).identity
                #expect(Set(sightings.filter { $0.identity == frontIdentity }.map(\.receiver)) == ["store-a", "store-b"])
                #expect(!Self.changes(watch.outputLines).contains { $0.beacon == "front" && $0.event["state"] as? String == "duplicate" })

                watch.signal(SIGTERM)
                recorder.signal(SIGTERM)
                #expect(await watch.waitForExit() == 0, "\(watch.standardError)")
                #expect(await recorder.waitForExit() == 0, "\(recorder.standardError)")
            }
        }
    }
}
