import BeaconFleet
import BeaconMQTT
import BeaconTestKit
import ClockTestKit
import FleetManifest
import Foundation
import Glibc
import HCITransports
import Logging
import Testing

/// A store's fleet end to end, live: two receivers (`scan --mqtt` on RootCanal controllers)
/// publish to a real Mosquitto, one `verify --watch` reads the broker, and the broker is
/// restarted while they publish. Every wait is on an event (a line a process printed, a
/// SUBACK, a message received); the suite's time limit is the only clock.
@Suite(
    "a fleet through a broker on RootCanal", .requiresRootCanal, .enabled(if: MosquittoBroker.shouldRun),
    .timeLimit(.minutes(5)))
struct FleetBrokerRootCanalTests {
    static let uuid = "5B0E7A31-96C2-4D8E-A1F4-0C3D2B1A9E87"
    static let silence = 3.0

    /// `steady` and `cloned` on one controller, a copy of `cloned` on another, `switched-off`
    /// on a third.
    static let manifest = """
        version: 1
        fleet: broker-rootcanal
        uuid: \(uuid)
        defaults:
          measured_power: -59
          interval_ms: 100
        venues:
          - id: store
            major: 1
            beacons:
              - {id: steady, minor: 1}
              - {id: cloned, minor: 2}
              - {id: switched-off, minor: 3}
        """

    /// What a persistent-session subscriber received: each receiver's sighting lines
    /// (a QoS 1 redelivery repeats a line, so they are kept as a set) and how often it
    /// heard each minor.
    struct Tally: Sendable, CustomStringConvertible {
        var lines: [String: Set<String>] = [:]
        var received = 0
        var minors: [String: [Int: Int]] = [:]
        var ended = false

        func heard(_ receiver: String, minor: Int) -> Int { minors[receiver]?[minor] ?? 0 }

        var description: String {
            "received \(received) lines; distinct per receiver: \(lines.mapValues(\.count)); minors heard: \(minors); ended: \(ended)"
        }
    }

    /// The watch's change events, parsed.
    static func changes(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["event"] as? String == "change"
            else { return nil }
            return object
        }
    }

    /// Each beacon's latest state in the watch's output.
    static func latestStates(_ lines: [String]) -> [String: String] {
        var states: [String: String] = [:]
        for change in changes(lines) {
            if let beacon = change["beacon"] as? String, let state = change["state"] as? String { states[beacon] = state }
        }
        return states
    }

    /// A JSON number as a Double, whether it was written with a fraction or not.
    static func number(_ value: Any?) -> Double? {
        (value as? NSNumber)?.doubleValue
    }

    static func occurrences(of text: String, in string: String) -> Int {
        string.components(separatedBy: text).count - 1
    }

    /// The count `scan --mqtt` states at its end.
    static func publishedCount(_ standardError: String) -> Int? {
        guard let match = standardError.firstMatch(of: /published (\d+) sightings? to mqtt:\/\/[^,]+, every one acknowledged/) else {
            return nil
        }
        return Int(match.1)
    }

    @Test("two receivers and a watch through a broker: a clone is a duplicate, one device heard by both receivers is not, a beacon switched off is missing after the silence; a broker restart loses no sighting")
    func storeThroughABroker() async throws {
        let loaded = ManifestLoader.load(sources: [(name: "broker-rootcanal.yaml", bytes: Array(Self.manifest.utf8))])
        try #require(loaded.errorCount == 0, "\(loaded.diagnostics.map(\.rendered))")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-fleet-broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        var logger = Logger(label: "fleet-broker-rootcanal")
        logger.logLevel = .warning

        try await withRootCanal { rootCanal in
            try await withMosquitto { broker in
                // The beacons, each advertiser a controller of its own on the one air.
                let spec = try HCITransportSpec(parsing: rootCanal.hciTransportSpec)
                let advertisers = try await RootCanalAdvertisers.start(
                    on: spec, fleet: loaded.fleet,
                    controllers: [("original", ["steady", "cloned"]), ("copy", ["cloned"]), ("switched-off", ["switched-off"])],
                    logger: logger)
                defer { advertisers.stopAll() }

                // A subscriber with a persistent session that tallies every sighting published.
                let brokerURL = try MQTTBrokerURL(parsing: broker.url)
                let tallying = try MQTTClient(broker: brokerURL, configuration: .init(clientID: "fleet-tally"))
                tallying.subscribe("test/sightings/+")
                tallying.subscribe("test/tally/end")
                try tallying.start()
                #expect(await MQTTClientTests.nextSubscription(tallying))
                let tally = WatchedState(Tally())
                let tallyTask = Task {
                    for await message in tallying.messages {
                        tallying.messageConsumed()
                        let receiver = String(message.topic.split(separator: "/").last ?? "")
                        let lines = message.payload.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
                        tally.update { tally in
                            if message.topic == "test/tally/end" {
                                tally.ended = true
                                return
                            }
                            tally.received += lines.count
                            tally.lines[receiver, default: []].formUnion(lines)
                            for line in lines {
                                if let match = line.firstMatch(of: /"minor":(\d+),/), let minor = Int(match.1) {
                                    tally.minors[receiver, default: [:]][minor, default: 0] += 1
                                }
                            }
                        }
                    }
                }
                defer { tallyTask.cancel() }
                // The subscriber is stopped whatever happens: its network thread must not outlive it.
                do {

                    // The watch, subscribed before anything is published (-vv: it logs the SUBACK).
                    let watch = try BeaconctlProcess(
                        ["verify", manifest.path, "--watch", "--input", broker.url, "--silence", "\(Int(Self.silence))", "--format", "jsonl", "-vv"],
                        environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": "fleet-watch"])
                    try await watch.waitUntil("the broker acknowledging its subscription") { _, errors in
                        errors.contains("acknowledged the subscription")
                    }

                    // Two receivers, a controller each; -v: they log their connections.
                    let receivers = try ["store-a", "store-b"].map { name in
                        (name, try BeaconctlProcess([
                            "scan", "--hci", rootCanal.hciTransportSpec, "--mqtt", broker.url, "--receiver", name, "--format", "jsonl", "-v",
                        ]))
                    }

                    // The audit: steady ok, the clone a duplicate, switched-off ok while on the air.
                    try await watch.waitUntil("steady ok, cloned duplicate, switched-off ok") { lines, _ in
                        Self.latestStates(lines) == ["steady": "ok", "cloned": "duplicate", "switched-off": "ok"]
                    }
                    // Both receivers hear switched-off for a while (10 advertising intervals) before it goes.
                    try await tally.wait(for: "switched-off heard by both receivers") { tally in
                        tally.heard("store-a", minor: 3) >= 10 && tally.heard("store-b", minor: 3) >= 10
                    }
                    await advertisers.stop("switched-off")
                    try await watch.waitUntil("switched-off missing") { lines, _ in
                        Self.latestStates(lines)["switched-off"] == "missing"
                    }
                    let watchChanges = Self.changes(watch.outputLines)
                    let missing = try #require(watchChanges.last { $0["beacon"] as? String == "switched-off" })
                    let heardBy = try #require(missing["receivers"] as? [[String: Any]])
                    #expect(Set(heardBy.compactMap { $0["receiver"] as? String }) == ["store-a", "store-b"], "\(missing)")
                    #expect((missing["addresses"] as? [String])?.isEmpty == true, "\(missing)")
                    // When it went missing against when it was last heard, both on the watch's clock.
                    let missingAt = try #require(Self.number(missing["time"]))
                    let lastHeard = try #require(heardBy.compactMap { Self.number($0["last_seen"]) }.max())
                    // A microsecond of slack: both times come through JSON text, and 4.7532 − 1.7532
                    // is 2.9999999999999996 in binary floating point.
                    #expect(missingAt - lastHeard >= Self.silence - 1e-6 && missingAt - lastHeard <= Self.silence + 1, "missing at \(missingAt), last heard at \(lastHeard)")
                    #expect(missing["previous"] as? String == "ok", "\(missing)")
                    let duplicate = try #require(watchChanges.first { $0["beacon"] as? String == "cloned" && $0["state"] as? String == "duplicate" })
                    #expect((duplicate["addresses"] as? [String])?.count == 2, "\(duplicate)")

                    // The broker restarted while both receivers publish.
                    var stderrMarks: [String: (disconnections: Int, connections: Int)] = [:]
                    for (name, scan) in receivers {
                        try await scan.waitUntil("\(name) connected") { _, errors in Self.occurrences(of: "info: connected to ", in: errors) >= 1 }
                        stderrMarks[name] = (Self.occurrences(of: "; reconnecting", in: scan.standardError), Self.occurrences(of: "info: connected to ", in: scan.standardError))
                    }
                    await broker.stop()
                    for (name, scan) in receivers {
                        let mark = try #require(stderrMarks[name])
                        try await scan.waitUntil("\(name) losing the broker") { _, errors in
                            Self.occurrences(of: "; reconnecting", in: errors) > mark.disconnections
                        }
                        // Sightings taken while the broker is away: they wait in the client.
                        let taken = scan.outputLines.count
                        try await scan.waitUntil("\(name) taking sightings while the broker is away") { lines, _ in lines.count >= taken + 10 }
                    }
                    try await broker.restart()
                    for (name, scan) in receivers {
                        let mark = try #require(stderrMarks[name])
                        try await scan.waitUntil("\(name) reconnecting") { _, errors in
                            Self.occurrences(of: "info: connected to ", in: errors) > mark.connections
                        }
                        let taken = scan.outputLines.count
                        try await scan.waitUntil("\(name) taking sightings after the restart") { lines, _ in lines.count >= taken + 10 }
                    }

                    // The watch sees the same air again (the outage may have looked like silence).
                    try await watch.waitUntil("the watch back to steady ok, cloned duplicate, switched-off missing") { lines, _ in
                        Self.latestStates(lines) == ["steady": "ok", "cloned": "duplicate", "switched-off": "missing"]
                    }
                    watch.signal(SIGTERM)
                    #expect(await watch.waitForExit() == 0, "\(watch.standardError)")
                    // Heard by both receivers, one device each: never a duplicate.
                    let allChanges = Self.changes(watch.outputLines)
                    #expect(!allChanges.contains { $0["beacon"] as? String == "steady" && $0["state"] as? String == "duplicate" })
                    #expect(!allChanges.contains { $0["beacon"] as? String == "switched-off" && $0["state"] as? String == "duplicate" })
                    let summary = try #require(watch.outputLines.last { $0.hasPrefix(#"{"event":"summary""#) })
                    #expect(summary.contains(#""not_ok":[{"beacon":"cloned","state":"duplicate"},{"beacon":"switched-off","state":"missing"}]"#), "\(summary)")

                    // The receivers stop and say how many sightings the broker acknowledged.
                    var published: [String: Int] = [:]
                    for (name, scan) in receivers {
                        scan.signal(SIGINT)
                        #expect(await scan.waitForExit() == 0, "\(name): \(scan.standardError)")
                        published[name] = Self.publishedCount(scan.standardError)
                    }
                    // Every receiver's messages were acknowledged before it exited, so a message
                    // published now reaches the subscriber after all of them.
                    let marker = try MQTTClient(broker: brokerURL, configuration: .init(clientID: "fleet-tally-end"))
                    try marker.start()
                    marker.publish(topic: "test/tally/end", payload: Array("end".utf8))
                    await marker.drain()
                    await marker.stop()
                    let final = try await tally.wait(for: "the end marker") { $0.ended }
                    await tallying.stop()
                    for name in ["store-a", "store-b"] {
                        let count = try #require(published[name], "\(name) stated no count: \(receivers.first { $0.0 == name }?.1.standardError ?? "")")
                        #expect(count > 0)
                        // Distinct lines: a line is one reception (receiver, device, identity, the
                        // microsecond it was heard); the same line twice is a QoS 1 redelivery.
                        #expect(final.lines[name]?.count == count, "\(name): published \(count), received \(final.lines[name]?.count ?? 0) distinct (\(final.received) lines in all)")
                        #expect(final.lines[name]?.allSatisfy { $0.contains(#""receiver":"\#(name)""#) } == true)
                    }
                } catch {
                    await tallying.stop()
                    throw error
                }
            }
        }
    }
}
