import BeaconCore
import BeaconMQTT
import Foundation
import Glibc
import Testing

/// `verify` and `verify --watch` reading receivers beaconctl did not build, through a real
/// Mosquitto (docs/gateways.md): two ESPresense boards (`living_room`, `kitchen`) and a
/// Theengs Gateway, each a client of this test publishing topics and payloads exactly as
/// the gateway builds them (`GatewayFixtures`), at the gateway's own pace. Their cadence is
/// not the beacons' interval, so no beacon may come out `slow` or `weak` because of it.
@Suite("verify reading ESPresense and Theengs Gateway through a broker", .enabled(if: MosquittoBroker.shouldRun), .serialized)
struct GatewayAuditTests {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// `flat` is heard by the ESPresense boards, `shop` (major 40000, above the signed 16-bit
    /// range Theengs' decoder writes) by the Theengs Gateway. `spare` is never published.
    static let manifest = """
        version: 1
        fleet: gateway-audit
        uuid: \(uuid)
        defaults:
          measured_power: -59
          interval_ms: 100
        venues:
          - id: flat
            major: 7
            beacons:
              - {id: keys, minor: 1}
              - {id: bag, minor: 2}
              - {id: door, minor: 3}
              - {id: clone, minor: 4}
          - id: shop
            major: 40000
            beacons:
              - {id: till, minor: 7}
              - {id: spare, minor: 8}
        """

    /// One beacon as an ESPresense board reports it: which room hears which device.
    struct ESPresenseReport {
        var room: String
        var minor: Int
        var mac: String
        var measuredPower: Int
        var rssi: Double
    }

    /// `keys` in both rooms; `bag` in the kitchen only (one report per 5 s is all the pass
    /// gets of it); `door` advertising -65 dBm where the manifest says -59; `clone` heard
    /// from one device in the living room and from another (its copy) in the kitchen.
    static let espresenseReports = [
        ESPresenseReport(room: "living_room", minor: 1, mac: "c45bbe000001", measuredPower: -59, rssi: -71.5),
        ESPresenseReport(room: "kitchen", minor: 1, mac: "c45bbe000001", measuredPower: -59, rssi: -80.25),
        ESPresenseReport(room: "kitchen", minor: 2, mac: "c45bbe000002", measuredPower: -59, rssi: -88),
        ESPresenseReport(room: "living_room", minor: 3, mac: "c45bbe000003", measuredPower: -65, rssi: -66),
        ESPresenseReport(room: "living_room", minor: 4, mac: "c45bbe000004", measuredPower: -59, rssi: -70),
        ESPresenseReport(room: "kitchen", minor: 4, mac: "c45bbe0000aa", measuredPower: -59, rssi: -69),
    ]

    /// ESPresense's `reportDevice` topic and v4 `fill` payload (as `GatewayFixtures.espresenseV4`).
    static func espresenseMessage(_ report: ESPresenseReport) -> (topic: String, payload: [UInt8]) {
        let id = "iBeacon:\(uuid.lowercased())-7-\(report.minor)"
        let rssi = String(format: "%.2f", report.rssi)
        let payload = #"{"mac":"\#(report.mac)","id":"\#(id)","rssi@1m":\#(report.measuredPower),"rssi":\#(rssi),"rxAdj":0,"rssiVar":2.25,"distance":3.21,"var":0.40,"int":1180}"#
        return ("espresense/devices/\(id)/\(report.room)", Array(payload.utf8))
    }

    /// Theengs Gateway's `publish_json` topic and Theengs Decoder's iBeacon fields (as
    /// `GatewayFixtures.theengsSignedMajor`): `till`'s major 40000 written as -25536.
    static let theengsTill: (topic: String, payload: [UInt8]) = (
        "home/TheengsGateway/BTtoMQTT/C45BBE000007",
        Array(#"{"id": "C4:5B:BE:00:00:07", "rssi": -70, "brand": "GENERIC", "model": "iBeacon", "model_id": "IBEACON", "type": "BCON", "mfid": "4c00", "uuid": "e2c56db5dffb48d2b060d0f5a71096e0", "major": -25536, "minor": 7, "txpower": -59}"#.utf8))

    /// The two boards and the gateway, publishing until cancelled. Each board says it is
    /// online (retained, as ESPresense's `rooms/ROOM/status`), then reports every beacon it
    /// hears once every 5 s: ESPresense's `skip_ms` default, the most it reports a beacon
    /// that does not move. The Theengs Gateway says `online` on its `LWT` and publishes
    /// `till` once a second for 5 s, then scans nothing for 5 s (its scan and wait). The
    /// sleeps are the gateways' real-time pacing, which the test is about.
    static func publishers(port: UInt16) throws -> (clients: [MQTTClient], tasks: [Task<Void, Never>]) {
        let broker = try MQTTBrokerURL(parsing: "mqtt://127.0.0.1:\(port)")
        var clients: [MQTTClient] = []
        var tasks: [Task<Void, Never>] = []
        for room in ["living_room", "kitchen"] {
            let board = try MQTTClient(broker: broker, configuration: .init(clientID: "espresense-\(room)"))
            try board.start()
            board.publish(topic: "espresense/rooms/\(room)/status", payload: Array("online".utf8), retain: true)
            clients.append(board)
            let reports = espresenseReports.filter { $0.room == room }
            tasks.append(Task {
                while !Task.isCancelled {
                    for report in reports {
                        let message = espresenseMessage(report)
                        board.publish(topic: message.topic, payload: message.payload)
                    }
                    try? await Task.sleep(for: .seconds(5))
                }
            })
        }
        let gateway = try MQTTClient(broker: broker, configuration: .init(clientID: "theengs-gateway"))
        try gateway.start()
        gateway.publish(topic: "home/TheengsGateway/LWT", payload: Array("online".utf8), retain: true)
        clients.append(gateway)
        tasks.append(Task {
            var second = 0
            while !Task.isCancelled {
                if second % 10 < 5 { gateway.publish(topic: theengsTill.topic, payload: theengsTill.payload) }
                second += 1
                try? await Task.sleep(for: .seconds(1))
            }
        })
        return (clients, tasks)
    }

    static func stop(_ publishers: (clients: [MQTTClient], tasks: [Task<Void, Never>])) async {
        for task in publishers.tasks { task.cancel() }
        for client in publishers.clients { await client.stop() }
    }

    static func inputs(_ broker: MosquittoBroker) -> [String] {
        [
            "--input", "mqtt://127.0.0.1:\(broker.port)/espresense", "--gateway", "espresense",
            "--input", "mqtt://127.0.0.1:\(broker.port)/home", "--gateway", "theengs",
        ]
    }

    /// Resumes once both inputs' clients (ids `PREFIX-…`) have subscribed: the broker's log
    /// is the only place that says so, and it is polled (a file, no event to wait on).
    static func waitForSubscriptions(_ broker: MosquittoBroker, clientIDPrefix: String, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let log = (try? String(contentsOf: broker.logFile, encoding: .utf8)) ?? ""
            let subscribers = Set(log.split(separator: "\n").compactMap { line -> Substring? in
                guard let range = line.range(of: "Received SUBSCRIBE from \(clientIDPrefix)-") else { return nil }
                return line[range.upperBound...].split(separator: " ").first
            })
            if subscribers.count >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(clientIDPrefix) never subscribed \(count) times; broker log:\n\(broker.logTail())")
    }

    /// Waits until the broker's log shows each of `clients` publishing more than its status:
    /// its first report arrived.
    static func waitForPublishing(_ broker: MosquittoBroker, clients: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let log = (try? String(contentsOf: broker.logFile, encoding: .utf8)) ?? ""
            let publishes = log.split(separator: "\n").filter { $0.contains("Received PUBLISH from ") }
            if clients.allSatisfy({ client in publishes.count { $0.contains("Received PUBLISH from \(client) ") } >= 2 }) { return }
            // Polling the broker's log file: it says nothing when it grows.
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(clients) never all published twice; broker log:\n\(broker.logTail())")
    }

    static func folderWithManifest() throws -> (folder: URL, manifest: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let manifest = folder.appendingPathComponent("flat.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        return (folder, manifest)
    }

    @Test(
        "verify one-shot: ok, wrong-power, duplicate and missing from ESPresense and Theengs; none slow or weak from their throttling; receivers named with their gateway",
        .timeLimit(.minutes(3)))
    func oneShot() async throws {
        let (folder, manifest) = try Self.folderWithManifest()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMosquitto { broker in
            let clientID = "verify-\(UUID().uuidString.prefix(8))"
            // 30 s: what beaconctl asks for 3 reports of a Theengs Gateway (a scan cycle of
            // 10 s each); `bag`'s third report comes 10 s after its first, with room to spare
            // on a busy machine; `spare` is judged missing at the timeout.
            // The boards publish first, and the pass starts once the broker has their reports:
            // its 30 s then never depend on how soon this busy test process gets to them.
            let publishers = try Self.publishers(port: broker.port)
            try await Self.waitForPublishing(broker, clients: ["espresense-living_room", "espresense-kitchen", "theengs-gateway"])
            let verify = try BeaconctlProcess(
                ["verify", manifest.path] + Self.inputs(broker) + ["--timeout", "30", "--format", "json"],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": clientID])
            try await Self.waitForSubscriptions(broker, clientIDPrefix: clientID, count: 2)
            let status = await verify.waitForExit()
            await Self.stop(publishers)
            #expect(status == 1, "verify: \(verify.standardError)")
            #expect(!verify.standardError.contains("reports a beacon at most once"), "a timeout long enough is not warned of: \(verify.standardError)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any],
                "\(verify.standardOutput)\n\(verify.standardError)")
            let beacons = try #require(report["beacons"] as? [[String: Any]])
            var statuses: [String: String] = [:]
            var byID: [String: [String: Any]] = [:]
            for beacon in beacons {
                guard let id = beacon["id"] as? String else { continue }
                statuses[id] = beacon["status"] as? String
                byID[id] = beacon
            }
            #expect(statuses == [
                "keys": "ok", "bag": "ok", "door": "wrong-power", "clone": "duplicate", "till": "ok", "spare": "missing",
            ], "\(verify.standardOutput)")

            func receivers(_ id: String) -> Set<String> {
                let heard = byID[id]?["heard"] as? [String: Any]
                return Set((heard?["receivers"] as? [[String: Any]] ?? []).compactMap { $0["receiver"] as? String })
            }
            #expect(receivers("keys") == ["living_room (espresense)", "kitchen (espresense)"])
            #expect(receivers("bag") == ["kitchen (espresense)"])
            #expect(receivers("till") == ["TheengsGateway (theengs)"])
            let till = try #require(byID["till"]?["identity"] as? [String: Any])
            #expect(till["major"] as? Int == 40000)
            // No interval figure from a gateway's cadence, and none presented as the beacon's.
            for (id, beacon) in byID {
                let findings = (beacon["findings"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
                #expect(!findings.contains("slow") && !findings.contains("weak"), "\(id): \(findings)")
                let addresses = (beacon["heard"] as? [String: Any])?["addresses"] as? [[String: Any]] ?? []
                #expect(addresses.allSatisfy { $0["shortest_gap_ms"] == nil }, "\(id): \(addresses)")
            }
            let keysMessage = byID["keys"]?["message"] as? String ?? ""
            #expect(keysMessage.contains("interval not judged"), "\(keysMessage)")
            let clone = (byID["clone"]?["heard"] as? [String: Any])?["addresses"] as? [[String: Any]] ?? []
            #expect(Set(clone.compactMap { $0["address"] as? String }) == ["C4:5B:BE:00:00:04", "C4:5B:BE:00:00:AA"])
        }
    }

    @Test(
        "verify --watch: the same verdicts as changes; no beacon missing between a throttled gateway's reports; receivers named with their gateway",
        .timeLimit(.minutes(3)))
    func watch() async throws {
        let (folder, manifest) = try Self.folderWithManifest()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMosquitto { broker in
            let clientID = "watch-\(UUID().uuidString.prefix(8))"
            // A silence of 20 s: two of a Theengs Gateway's 10 s scan cycles (what beaconctl
            // asks for), so a beacon is missing only when a receiver stopped reporting it,
            // not between reports.
            let silence = 20.0
            let watch = try BeaconctlProcess(
                ["verify", manifest.path, "--watch"] + Self.inputs(broker) + ["--silence", "\(Int(silence))", "--format", "jsonl"],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": clientID])
            try await Self.waitForSubscriptions(broker, clientIDPrefix: clientID, count: 2)
            let publishers = try Self.publishers(port: broker.port)

            /// The latest state of each beacon, from the change lines so far.
            @Sendable func states(_ lines: [String]) -> [String: String] {
                var states: [String: String] = [:]
                for line in lines {
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        object["event"] as? String == "change", let beacon = object["beacon"] as? String,
                        let state = object["state"] as? String
                    else { continue }
                    states[beacon] = state
                }
                return states
            }
            let expected = [
                "keys": "ok", "bag": "ok", "door": "wrong-power", "clone": "duplicate", "till": "ok", "spare": "missing",
            ]
            // `spare` comes out missing once the first silence has passed; by then every
            // board has reported twice more, so the others have had a silence to go wrong.
            try await watch.waitUntil("every beacon's expected state") { lines, _ in states(lines) == expected }
            watch.signal(SIGTERM)
            let status = await watch.waitForExit()
            await Self.stop(publishers)
            #expect(status != nil, "the watch did not exit on SIGTERM: \(watch.standardError)")
            #expect(!watch.standardError.contains("reports a beacon at most once"), "a silence long enough is not warned of: \(watch.standardError)")

            var heardBy: [String: Set<String>] = [:]
            for line in watch.outputLines {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["event"] as? String == "change", let beacon = object["beacon"] as? String
                else { continue }
                let state = object["state"] as? String ?? ""
                // Only `spare` is ever missing: the others are reported every 5 s or faster.
                #expect(state != "missing" || beacon == "spare", "\(line)")
                #expect(state != "slow" && state != "weak", "\(line)")
                for receiver in object["receivers"] as? [[String: Any]] ?? [] {
                    if let name = receiver["receiver"] as? String { heardBy[beacon, default: []].insert(name) }
                }
            }
            // `keys` changed state once, naming whichever board reported it first.
            let boards: Set<String> = ["living_room (espresense)", "kitchen (espresense)"]
            #expect(heardBy["keys"].map { !$0.isEmpty && $0.isSubset(of: boards) } == true, "\(watch.standardOutput)")
            #expect(heardBy["clone"] == boards, "\(watch.standardOutput)")
            #expect(heardBy["till"] == ["TheengsGateway (theengs)"], "\(watch.standardOutput)")
        }
    }
}
