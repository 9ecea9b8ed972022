import BeaconCore
import BeaconMQTT
import Foundation
import Synchronization
import Testing

/// `gateways configure` through a real Mosquitto (docs/gateways.md, "Keep only the fleet's
/// beacons"): two ESPresense boards and an OpenMQTTGateway, each a client of this test that
/// behaves as the gateway's source does (`FakeESPresenseBoard`, `FakeOpenMQTTGateway`), and a
/// watch whose ignored sightings stop growing once the boards keep only the fleet's beacons.
@Suite("gateways configure telling receivers through a broker", .enabled(if: MosquittoBroker.shouldRun), .serialized)
struct GatewayConfigureTests {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    static let manifest = """
        version: 1
        fleet: flat
        uuid: \(uuid)
        defaults:
          measured_power: -59
        venues:
          - id: flat
            major: 7
            beacons:
              - {id: keys, minor: 1, mac: "C4:5B:BE:00:00:01"}
              - {id: bag, minor: 2, mac: "C4:5B:BE:00:00:02"}
        """

    /// What a board hears: the fleet's two beacons and three of the street's (other UUIDs).
    struct Device: Sendable {
        var uuid: String
        var major: Int
        var minor: Int
        var mac: String
        /// ESPresense's id: `iBeacon:UUID-MAJOR-MINOR`, the UUID in lower case with dashes.
        var id: String { "iBeacon:\(uuid.lowercased())-\(major)-\(minor)" }
    }

    static let air = [
        Device(uuid: uuid, major: 7, minor: 1, mac: "c45bbe000001"),
        Device(uuid: uuid, major: 7, minor: 2, mac: "c45bbe000002"),
        Device(uuid: "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3", major: 7, minor: 1, mac: "d00000000001"),
        Device(uuid: "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6", major: 1, minor: 1, mac: "d00000000002"),
        Device(uuid: "FDA50693-A4E2-4FB1-AFCF-C6EB07647825", major: 10, minor: 7, mac: "d00000000003"),
    ]

    /// An ESPresense board, from its source (ESPresense/ESPresense): `src/main.cpp` subscribes
    /// to `espresense/rooms/*/+/set` and its room's `+/set` (`onMqttConnect`), takes the level
    /// before `/set` as the setting (`onMqttMessage`), stores `include`
    /// (`BleFingerprintCollection::Command`) and publishes every setting again, retained, on
    /// `rooms/ROOM/SETTING` (`sendTelemetry`); its status is `rooms/ROOM/status`, `offline` its
    /// last will. It reports a device on `devices/ID/ROOM` (`reportDevice`, the v4 `fill`
    /// payload) unless `shouldHide` (`src/BleFingerprint.cpp`): `include` not empty and no
    /// space-separated prefix of it starting the id (`prefixExists`, `lib/utils/string_utils.cpp`).
    final class FakeESPresenseBoard: Sendable {
        let room: String
        let client: MQTTClient
        let include = Shared("")
        private let listening: Task<Void, Never>

        init(port: UInt16, room: String) throws {
            self.room = room
            let status = "espresense/rooms/\(room)/status"
            client = try MQTTClient(
                broker: MQTTBrokerURL(parsing: "mqtt://127.0.0.1:\(port)"),
                configuration: .init(
                    clientID: "espresense-\(room)", will: .init(topic: status, payload: Array("offline".utf8)),
                    online: .init(topic: status, payload: Array("online".utf8))))
            client.subscribe("espresense/rooms/*/+/set")
            client.subscribe("espresense/rooms/\(room)/+/set")
            try client.start()
            let client = client
            let include = include
            listening = Task {
                for await message in client.messages {
                    client.messageConsumed()
                    guard message.topic.hasSuffix("/include/set") else { continue }
                    let value = String(decoding: message.payload, as: UTF8.self)
                    include.value.withLock { $0 = value }
                    client.publish(topic: "espresense/rooms/\(room)/include", payload: message.payload, retain: true)
                }
            }
        }

        func hides(_ id: String) -> Bool {
            let include = include.value.withLock { $0 }
            guard !include.isEmpty else { return false }
            return !include.split(separator: " ").contains { id.hasPrefix($0) }
        }

        /// One report of every device it hears and keeps; how many it published.
        @discardableResult
        func reportRound() -> Int {
            var published = 0
            for device in GatewayConfigureTests.air where !hides(device.id) {
                let payload = #"{"mac":"\#(device.mac)","id":"\#(device.id)","rssi@1m":-59,"rssi":-71.50,"rxAdj":0,"rssiVar":2.25,"distance":3.21,"var":0.40,"int":1024}"#
                client.publish(topic: "espresense/devices/\(device.id)/\(room)", payload: Array(payload.utf8))
                published += 1
            }
            return published
        }

        func stop() async {
            listening.cancel()
            await client.stop()
        }
    }

    /// An OpenMQTTGateway, from its source (1technophile/OpenMQTTGateway, `main/gatewayBT.cpp`):
    /// `XtoBT` reads `white-list` from `home/NAME/commands/MQTTtoBT/config` (`updateWorB`),
    /// `BTConfig_fromJson` reads `ignoreWBlist`, then `stateBTMeasures` publishes the BT
    /// settings on `home/NAME/BTtoMQTT`, `ignoreWBlist` among them. `home/NAME/LWT` is its status.
    final class FakeOpenMQTTGateway: Sendable {
        let client: MQTTClient
        let whiteList = Shared<[String]>([])
        private let listening: Task<Void, Never>

        init(port: UInt16) throws {
            let lwt = "home/OpenMQTTGateway/LWT"
            client = try MQTTClient(
                broker: MQTTBrokerURL(parsing: "mqtt://127.0.0.1:\(port)"),
                configuration: .init(
                    clientID: "openmqttgateway", will: .init(topic: lwt, payload: Array("offline".utf8)),
                    online: .init(topic: lwt, payload: Array("online".utf8))))
            client.subscribe("home/OpenMQTTGateway/commands/#")
            try client.start()
            let client = client
            let whiteList = whiteList
            listening = Task {
                for await message in client.messages {
                    client.messageConsumed()
                    guard message.topic == "home/OpenMQTTGateway/commands/MQTTtoBT/config",
                          let command = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
                    else { continue }
                    let ignores = command["ignoreWBlist"] as? Bool ?? false
                    if let list = command["white-list"] as? [String] { whiteList.value.withLock { $0 += list } }
                    let settings = #"{"bleconnect":true,"interval":55555,"minrssi":-100,"ignoreWBlist":\#(ignores),"enabled":true,"onlysensors":false}"#
                    client.publish(topic: "home/OpenMQTTGateway/BTtoMQTT", payload: Array(settings.utf8))
                }
            }
        }

        func stop() async {
            listening.cancel()
            await client.stop()
        }
    }

    /// A value the fake receivers' tasks and the test share.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    /// Resumes once a subscriber of `filter` has seen `online` on `count` topics (retained
    /// statuses: a receiver subscribes before it says online, so its subscriptions are in place).
    static func waitForOnline(port: UInt16, filter: String, count: Int) async throws {
        let watcher = try MQTTClient(
            broker: MQTTBrokerURL(parsing: "mqtt://127.0.0.1:\(port)"), configuration: .init(clientID: "status-\(UUID().uuidString.prefix(8))", cleanSession: true))
        watcher.subscribe(filter)
        try watcher.start()
        let seen = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var online = Set<String>()
                for await message in watcher.messages {
                    watcher.messageConsumed()
                    if message.payload == Array("online".utf8) { online.insert(message.topic) }
                    if online.count >= count { return true }
                }
                return false
            }
            group.addTask {
                // Only a hang reaches this: the statuses are retained before this starts.
                try? await Task.sleep(for: .seconds(60))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        await watcher.stop()
        #expect(seen, "fewer than \(count) receivers said online on \(filter)")
    }

    /// A counter of the watch's exposition, e.g. `beaconctl_watch_sightings_total`.
    static func counter(_ name: String, in exposition: String) -> Double? {
        for line in exposition.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// The watch's sightings and ignored sightings once it has read at least `sightings`; the
    /// exposition is read again every 50 ms (the watch copies its counters at its ticks, and
    /// HTTP has no event to wait on), within a deadline only a hang reaches.
    static func counts(port: UInt16, reaching sightings: Double) async throws -> (sightings: Double, ignored: Double) {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = (sightings: 0.0, ignored: 0.0)
        while ContinuousClock.now < deadline {
            let text = try await LoopbackHTTP.get(port: port, "/metrics").text
            last = (
                counter("beaconctl_watch_sightings_total", in: text) ?? 0,
                counter(#"beaconctl_watch_sightings_ignored_total{reason="outside-fleet"}"#, in: text) ?? 0)
            if last.sightings >= sightings { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the watch read \(last.sightings) sightings, not \(sightings)")
        return last
    }

    static func folderWithManifest() throws -> (folder: URL, manifest: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-configure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let manifest = folder.appendingPathComponent("flat.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        return (folder, manifest)
    }

    @Test(
        "ESPresense: both boards take the include list and report it back; the watch's ignored sightings stop growing once they keep only the fleet's beacons",
        .timeLimit(.minutes(3)))
    func espresenseKeepsOnlyTheFleet() async throws {
        let (folder, manifest) = try Self.folderWithManifest()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMosquitto { broker in
            let boards = [try FakeESPresenseBoard(port: broker.port, room: "kitchen"), try FakeESPresenseBoard(port: broker.port, room: "hall")]
            try await Self.waitForOnline(port: broker.port, filter: "espresense/rooms/+/status", count: 2)

            let watchID = "watch-\(UUID().uuidString.prefix(8))"
            let watch = try BeaconctlProcess(
                [
                    "verify", manifest.path, "--watch", "--input", "mqtt://127.0.0.1:\(broker.port)/espresense", "--gateway", "espresense",
                    "--silence", "60", "--format", "jsonl", "--metrics", "127.0.0.1:0",
                ],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": watchID])
            try await watch.waitForError(containing: "/metrics")
            let port = try #require(PrometheusScrapeTests.metricsPort(watch.standardError), "\(watch.standardError)")
            try await MQTTCommandTests.waitForSubscription(broker, clientID: watchID)

            // Before: every board reports all five devices, three of them not the fleet's.
            let first = boards.map { $0.reportRound() }.reduce(0, +)
            #expect(first == 10)
            let before = try await Self.counts(port: port, reaching: 10)
            #expect(before.ignored == 6, "\(before)")

            let configure = try BeaconctlProcess([
                "gateways", "configure", manifest.path, "--mqtt", "mqtt://127.0.0.1:\(broker.port)/espresense",
                "--gateway", "espresense", "--timeout", "60",
            ])
            let status = await configure.waitForExit()
            #expect(status == 0, "\(configure.standardOutput)\(configure.standardError)")
            let prefix = "iBeacon:\(Self.uuid.lowercased())-7-"
            #expect(configure.standardOutput == """
                publishing to espresense/rooms/*/include/set: \(prefix)
                hall (espresense): holds the list (its include setting)
                kitchen (espresense): holds the list (its include setting)

                """)
            #expect(boards.allSatisfy { $0.include.value.withLock { $0 } == prefix })

            // After: the boards keep the fleet's two beacons; the watch reads them, and its
            // ignored sightings stay where they were.
            let second = boards.map { $0.reportRound() }.reduce(0, +)
            #expect(second == 4)
            let after = try await Self.counts(port: port, reaching: 14)
            #expect(after.sightings == 14 && after.ignored == before.ignored, "before \(before), after \(after)")

            watch.signal(SIGTERM)
            _ = await watch.waitForExit()
            for board in boards { await board.stop() }
        }
    }

    @Test("a named board that never answers is reported, exit 1, after --timeout", .timeLimit(.minutes(2)))
    func unansweredBoardIsNamed() async throws {
        let (folder, manifest) = try Self.folderWithManifest()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMosquitto { broker in
            let board = try FakeESPresenseBoard(port: broker.port, room: "kitchen")
            try await Self.waitForOnline(port: broker.port, filter: "espresense/rooms/+/status", count: 1)
            // A real wait: --timeout is what is under test, and nothing answers for attic.
            let configure = try BeaconctlProcess([
                "gateways", "configure", manifest.path, "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                "--gateway", "espresense", "--receiver", "kitchen", "--receiver", "attic", "--timeout", "2",
            ])
            let status = await configure.waitForExit()
            #expect(status == 1, "\(configure.standardOutput)\(configure.standardError)")
            #expect(configure.standardOutput.contains("kitchen (espresense): holds the list"))
            #expect(configure.standardOutput.contains("attic (espresense): not confirmed within 2 s: offline or not on this broker"))
            #expect(configure.standardError.contains("1 receiver did not confirm: attic"), "\(configure.standardError)")
            await board.stop()
        }
    }

    @Test("OpenMQTTGateway: the white-list command reaches the gateway, which answers with its settings", .timeLimit(.minutes(2)))
    func openMQTTGatewayTakesTheWhiteList() async throws {
        let (folder, manifest) = try Self.folderWithManifest()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMosquitto { broker in
            let gateway = try FakeOpenMQTTGateway(port: broker.port)
            try await Self.waitForOnline(port: broker.port, filter: "home/+/LWT", count: 1)
            let configure = try BeaconctlProcess([
                "gateways", "configure", manifest.path, "--mqtt", "mqtt://127.0.0.1:\(broker.port)/home",
                "--gateway", "openmqttgateway", "--timeout", "60",
            ])
            let status = await configure.waitForExit()
            #expect(status == 0, "\(configure.standardOutput)\(configure.standardError)")
            #expect(configure.standardOutput.hasSuffix("OpenMQTTGateway (openmqttgateway): took the white-list command (it does not report the list itself)\n"), "\(configure.standardOutput)")
            #expect(gateway.whiteList.value.withLock { $0 } == ["C4:5B:BE:00:00:01", "c4:5b:be:00:00:01", "C4:5B:BE:00:00:02", "c4:5b:be:00:00:02"])
            await gateway.stop()
        }
    }
}
