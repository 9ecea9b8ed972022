import BeaconMQTT
import Foundation
import Glibc
import Testing

/// `scan --mqtt` publishing and `verify --input mqtt://` subscribing, through a real broker,
/// as separate processes the way two machines would run them.
@Suite("beaconctl through an MQTT broker", .enabled(if: MosquittoBroker.shouldRun), .serialized)
struct MQTTCommandTests {
    static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"
    static let manifest = """
        version: 1
        fleet: mqtt-test
        uuid: \(uuid)
        venues:
          - id: shop
            major: 1
            beacons:
              - id: door
                minor: 1
                tx_power: -4

        """

    /// 5 s of the door beacon at 10 Hz heard alternately by two receivers (the same device,
    /// so not a duplicate), on the wall clock.
    static func recording() -> String {
        (0..<50).map { tick in
            let receiver = tick.isMultiple(of: 2) ? "shop-1:hci0" : "shop-2:hci0"
            // As beaconctl writes times: no trailing zeros.
            let time = "\(1_795_000_000 + tick / 10)" + (tick % 10 == 0 ? "" : ".\(tick % 10)")
            return #"{"uuid":"\#(uuid)","major":1,"minor":1,"measured_power":-45,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":-60,"time":\#(time),"clock":"unix","receiver":"\#(receiver)"}"#
        }.joined(separator: "\n") + "\n"
    }

    /// Waits until the broker logged that a client whose id starts with `clientID` subscribed.
    static func waitForSubscription(_ broker: MosquittoBroker, clientID: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let log = (try? String(contentsOf: broker.logFile, encoding: .utf8)) ?? ""
            if log.contains("Received SUBSCRIBE from \(clientID)-") { return }
            // The real broker's log file announces nothing: read again every 20 ms.
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(clientID) never subscribed; broker log:\n\(broker.logTail())")
    }

    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("two receivers' sightings published by scan reach a subscriber intact: receivers, times, all of them", .timeLimit(.minutes(3)))
    func publishAndSubscribe() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try Self.recording().write(to: recording, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            let clientID = "subscriber-test-\(UUID().uuidString.prefix(8))"
            let subscriber = try BeaconctlProcess(
                ["scan", "--input", broker.url, "--format", "jsonl"], environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": clientID])
            try await Self.waitForSubscription(broker, clientID: clientID)
            let scan = try BeaconctlProcess(["scan", "--input", recording.path, "--mqtt", broker.url, "--format", "jsonl"])
            #expect(await scan.waitForExit() == 0, "scan: \(scan.standardError)")
            #expect(scan.standardError.contains("publishing sightings to mqtt://127.0.0.1:\(broker.port)/test"))
            // A publisher's messages arrive in order: each receiver's last sighting comes last.
            let sent = Self.recording().split(separator: "\n").map(String.init)
            for last in sent.suffix(2) {
                _ = try await subscriber.waitForLine("the last sighting of a receiver") { $0 == last }
            }
            subscriber.signal(SIGINT)
            #expect(await subscriber.waitForExit() == 0, "\(subscriber.standardError)")
            let received = subscriber.outputLines.filter { !$0.isEmpty }
            #expect(Set(received) == Set(sent), "missing: \(Array(Set(sent).subtracting(received).prefix(3))); unexpected: \(Array(Set(received).subtracting(sent).prefix(3)))")
        }
    }

    @Test("a one-shot verify over a broker: two receivers' sightings judged live, each receiver named in the report", .timeLimit(.minutes(3)))
    func verifyOnceThroughTheBroker() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        // The door heard by two receivers (wall clock of now, the second box's clock 30 ms
        // behind): one device, so ok, not a duplicate.
        let now = Date().timeIntervalSince1970
        var lines: [String] = []
        for tick in 0..<20 {
            for (receiver, skew, rssi) in [("shop-1:hci0", 0.0, -58), ("shop-2:hci0", 0.03, -77)] {
                let time = String(format: "%.3f", now + Double(tick) / 10 + skew)
                lines.append(#"{"uuid":"\#(Self.uuid)","major":1,"minor":1,"measured_power":-45,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":\#(rssi),"time":\#(time),"clock":"unix","receiver":"\#(receiver)"}"#)
            }
        }
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: recording, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            let clientID = "verify-test-\(UUID().uuidString.prefix(8))"
            // K = 30 of the 40 receptions: the verdict rests on both receivers; the timeout
            // only bounds a run whose sightings never came.
            let verify = try BeaconctlProcess(
                ["verify", manifest.path, "--input", broker.url, "--required-sightings", "30", "--timeout", "120", "--format", "json"],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": clientID])
            try await Self.waitForSubscription(broker, clientID: clientID)
            let scan = try BeaconctlProcess(["scan", "--input", recording.path, "--mqtt", broker.url, "--format", "jsonl"])
            #expect(await scan.waitForExit() == 0, "scan: \(scan.standardError)")
            #expect(await verify.waitForExit() == 0, "\(verify.standardOutput)\(verify.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any])
            let door = try #require((report["beacons"] as? [[String: Any]])?.first)
            #expect(door["status"] as? String == "ok")
            let receivers = try #require((door["heard"] as? [String: Any])?["receivers"] as? [[String: Any]])
            #expect(receivers.compactMap { $0["receiver"] as? String } == ["shop-1:hci0", "shop-2:hci0"])
        }
    }

    @Test("a one-shot verify whose broker is lost mid-pass judges nothing by the silence: stopped while blind, its beacon is unmonitored, exit 3", .timeLimit(.minutes(3)))
    func verifyThroughLostBroker() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            let clientID = "verify-lost-\(UUID().uuidString.prefix(8))"
            // The timeout only bounds a run that went wrong: the pass ends by the stop below.
            let verify = try BeaconctlProcess(
                ["verify", manifest.path, "--input", broker.url, "--timeout", "600", "--format", "json"],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": clientID])
            try await Self.waitForSubscription(broker, clientID: clientID)
            await broker.stop()
            // Said once the pass took the loss: from then on the beacons' clock stands still.
            try await verify.waitForError(containing: "the input is not delivering")
            kill(verify.processIdentifier, SIGINT)
            #expect(await verify.waitForExit() == 3, "\(verify.standardOutput)\(verify.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any])
            #expect(report["end"] as? String == "interrupted")
            let statuses = (report["beacons"] as? [[String: Any]])?.compactMap { $0["status"] as? String }
            #expect(statuses == ["unmonitored"], "\(verify.standardOutput)")
            let warnings = (report["warnings"] as? [String]) ?? []
            #expect(warnings.contains { $0.contains("could not be judged") }, "\(warnings)")
        }
    }

    @Test("a one-shot verify over a broker that never answers: no verdict, exit 3, the reason said", .timeLimit(.minutes(3)))
    func verifyThroughNoBroker() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        // Nothing listens on loopback's port 1: every connection is refused. The timeout is
        // what is tested (the run must not call its beacons missing), so the wait is real.
        let verify = try BeaconctlProcess(["verify", manifest.path, "--input", "mqtt://127.0.0.1:1/fleet", "--timeout", "2", "--format", "json"])
        #expect(await verify.waitForExit() == 3, "\(verify.standardOutput)\(verify.standardError)")
        #expect(verify.standardError.contains("not connected within 2.0 s"), "\(verify.standardError)")
        #expect(verify.standardError.contains("nothing can be said of the beacons"), "\(verify.standardError)")
        #expect(!verify.standardOutput.contains("missing"), "no verdict from a broker that never delivered: \(verify.standardOutput)")
    }

    @Test("monitor over a broker leaves a region after its exit period of silence, on the wall clock, with nothing more published", .timeLimit(.minutes(3)))
    func monitorLeavesOnSilence() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // On a tenth of a second, as the lines write it.
        let now = (Date().timeIntervalSince1970 * 10).rounded() / 10
        let lines = (0..<5).map { tick in
            #"{"uuid":"\#(Self.uuid)","major":1,"minor":1,"measured_power":-45,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":-60,"time":\#(String(format: "%.1f", now + Double(tick) / 10)),"clock":"unix","receiver":"shop-1:hci0"}"#
        }
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: recording, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            let clientID = "monitor-test-\(UUID().uuidString.prefix(8))"
            let monitor = try BeaconctlProcess(
                ["monitor", "--input", broker.url, "--region", "shop=\(Self.uuid)/1", "--exit-period", "1", "--format", "jsonl"],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": clientID])
            try await Self.waitForSubscription(broker, clientID: clientID)
            let scan = try BeaconctlProcess(["scan", "--input", recording.path, "--mqtt", broker.url, "--format", "jsonl"])
            #expect(await scan.waitForExit() == 0, "scan: \(scan.standardError)")
            let enter = try await monitor.waitForLine("the enter event") { $0.contains(#""event":"enter""#) }
            #expect(enter.contains(#""region":"shop""#))
            let exit = try await monitor.waitForLine("the exit event") { $0.contains(#""event":"exit""#) }
            // Left at the last sighting plus the exit period, on the sightings' Unix clock.
            let exitEvent = try #require(try JSONSerialization.jsonObject(with: Data(exit.utf8)) as? [String: Any])
            let time = try #require(exitEvent["time"] as? Double)
            // Never before the exit period. Exactly then when the sightings arrived within it; a
            // busy machine that started the scan late delivers them after it, and the monitor,
            // whose clock never goes back, leaves when they arrive: so only a bound a hang
            // reaches above.
            let due = now + 0.4 + 1
            #expect(time >= due - 0.01 && time - due < 60, "exit at \(time), last sighting at \(now + 0.4)")
            monitor.signal(SIGTERM)
            #expect(await monitor.waitForExit() == 0, "\(monitor.standardError)")
        }
    }

    @Test("scan and monitor --input mqtt:// --duration count real seconds: they end with nothing published", .timeLimit(.minutes(2)))
    func scanBrokerDuration() async throws {
        try await withMosquitto { broker in
            let scan = try BeaconctlProcess(["scan", "--input", broker.url, "--duration", "1", "--format", "jsonl"])
            let monitor = try BeaconctlProcess(["monitor", "--input", broker.url, "--region", "shop=\(Self.uuid)", "--duration", "1", "--format", "jsonl"])
            #expect(await scan.waitForExit() == 0, "\(scan.standardError)")
            #expect(scan.standardOutput.isEmpty)
            #expect(await monitor.waitForExit() == 0, "\(monitor.standardError)")
            #expect(monitor.standardOutput.isEmpty)
        }
    }

    @Test("monitor --mqtt publishes every event as it writes it, each region's latest state retained, and its status", .timeLimit(.minutes(2)))
    func monitorPublishes() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The door at 1 Hz for 10 s, then a foreign beacon carrying the clock to 30 s.
        func line(_ uuid: String, minor: Int, at second: Int) -> String {
            #"{"uuid":"\#(uuid)","major":1,"minor":\#(minor),"measured_power":-59,"address":"C4:5B:BE:00:00:0\#(minor)","address_random":false,"rssi":-60,"time":\#(second),"receiver":"shop-1:hci0"}"#
        }
        let lines = (0...10).map { line(Self.uuid, minor: 1, at: $0) } + (11...30).map { line("00000000-0000-0000-0000-000000000001", minor: 9, at: $0) }
        let recording = folder.appendingPathComponent("walk.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: recording, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            let dashboard = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: .init(clientID: "monitor-dashboard"))
            dashboard.subscribe("test/monitor/events")
            try dashboard.start()
            #expect(await MQTTClientTests.nextSubscription(dashboard))
            let monitor = try BeaconctlProcess([
                "monitor", "--input", recording.path, "--region", "shop=\(Self.uuid)/1", "--region", "depot=\(Self.uuid)/2",
                "--notify-state-on-start", "--exit-period", "5", "--mqtt", broker.url, "--format", "jsonl",
            ])
            #expect(await monitor.waitForExit() == 0, "\(monitor.standardError)")
            let written = monitor.outputLines
            #expect(written.contains { $0.contains(#""event":"exit""#) }, "\(written)")
            var published: [String] = []
            for await message in dashboard.messages {
                dashboard.messageConsumed()
                published.append(String(decoding: message.payload, as: UTF8.self))
                if published.count == written.count { break }
            }
            #expect(published == written, "the same lines, in the same order")
            await dashboard.stop()

            // A dashboard that connects afterwards still sees each region's latest state.
            let late = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: .init(clientID: "monitor-late"))
            late.subscribe("test/monitor/regions/+")
            late.subscribe("test/monitor/status")
            try late.start()
            var retained: [String: String] = [:]
            for await message in late.messages {
                late.messageConsumed()
                #expect(message.retained)
                retained[message.topic] = String(decoding: message.payload, as: UTF8.self)
                if retained.count == 3 { break }
            }
            let lastOf = { (region: String) in written.last { $0.contains(#""region":"\#(region)""#) && !$0.contains(#""event":"range""#) } }
            #expect(retained["test/monitor/regions/shop"] == lastOf("shop"))
            #expect(retained["test/monitor/regions/depot"] == lastOf("depot"))
            #expect(retained["test/monitor/status"] == "offline", "a clean stop says offline")
            await late.stop()
        }
    }

    @Test("verify --watch --home-assistant: every beacon announced to discovery, its standing and last-seen time retained, the audit's status", .timeLimit(.minutes(2)))
    func homeAssistantDiscovery() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try Self.recording().write(to: recording, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            let watch = try BeaconctlProcess([
                "verify", manifest.path, "--watch", "--input", recording.path, "--silence", "1", "--format", "jsonl",
                "--mqtt", broker.url, "--home-assistant", "--discovery-prefix", "ha",
            ])
            // The recording ends while the door is still heard: ok.
            #expect(await watch.waitForExit() == 0, "\(watch.standardError)")

            // Home Assistant, connecting afterwards, finds everything retained.
            let home = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: .init(clientID: "home-assistant"))
            home.subscribe("ha/#")
            home.subscribe("test/audit/beacons/+")
            home.subscribe("test/audit/status")
            try home.start()
            var retained: [String: String] = [:]
            for await message in home.messages {
                home.messageConsumed()
                #expect(message.retained)
                retained[message.topic] = String(decoding: message.payload, as: UTF8.self)
                if retained.count == 5 { break }
            }
            await home.stop()
            let presence = try #require(retained["ha/binary_sensor/beaconctl_test/door_presence/config"], "\(retained.keys)")
            let config = try #require(try JSONSerialization.jsonObject(with: Data(presence.utf8)) as? [String: Any])
            #expect(config["state_topic"] as? String == "test/audit/beacons/door")
            #expect(config["device_class"] as? String == "presence")
            #expect(config["availability_topic"] as? String == "test/audit/status")
            #expect(retained["ha/sensor/beaconctl_test/door_last_seen/config"]?.contains(#""device_class":"timestamp""#) == true)
            #expect(retained["ha/sensor/beaconctl_test/door_verdict/config"]?.contains(#""device_class":"enum""#) == true)
            // The recording's times are Unix time: the last reception has a UTC time.
            let state = try #require(retained["test/audit/beacons/door"])
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(state.utf8)) as? [String: Any])
            #expect(fields["event"] as? String == "state", "the final report's refresh")
            #expect(fields["state"] as? String == "ok")
            #expect(fields["verdict"] as? String == "ok", "the state under a name Home Assistant keeps")
            #expect(fields["last_seen_at"] as? String == "2026-11-18T11:06:44.900Z", "\(state)")
            #expect(retained["test/audit/status"] == "offline")
        }
    }

    @Test("verify --watch over a broker nobody publishes to: the beacons go missing after the silence", .timeLimit(.minutes(2)))
    func watchSilentBroker() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            let watch = try BeaconctlProcess(["verify", manifest.path, "--watch", "--input", broker.url, "--silence", "1", "--format", "jsonl"])
            let missing = try await watch.waitForLine("the door missing") { $0.contains(#""state":"missing""#) }
            #expect(missing.contains(#""beacon":"door""#))
            #expect(missing.contains("not heard in the first 1 s of the watch"), "\(missing)")
            watch.signal(SIGTERM)
            #expect(await watch.waitForExit() == 0, "\(watch.standardError)")
        }
    }

    @Test("a restarted watch replaces the previous run's retained standing at once: unknown until it judges the beacon", .timeLimit(.minutes(2)))
    func restartUnconfirmsStandings() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            // What a previous run left: the door ok.
            let dashboard = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: .init(clientID: "dashboard"))
            dashboard.subscribe("test/audit/beacons/door")
            try dashboard.start()
            #expect(await MQTTClientTests.nextSubscription(dashboard))
            let previous = #"{"event":"state","time":600,"beacon":"door","state":"ok"}"#
            _ = dashboard.publish(topic: "test/audit/beacons/door", payload: Array(previous.utf8), retain: true)
            // A silence far longer than the test: this watch judges nothing.
            let watch = try BeaconctlProcess(["verify", manifest.path, "--watch", "--input", broker.url, "--silence", "600", "--format", "jsonl", "--mqtt", broker.url])
            // The first standing that is not the previous run's, unless the watch ends first.
            let standing = await withTaskGroup(of: String?.self) { group in
                group.addTask {
                    for await message in dashboard.messages {
                        dashboard.messageConsumed()
                        let payload = String(decoding: message.payload, as: UTF8.self)
                        if payload != previous { return payload }
                    }
                    return nil
                }
                group.addTask {
                    _ = await watch.waitForExit()
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            let fields = try #require(
                try JSONSerialization.jsonObject(with: Data((standing ?? "").utf8)) as? [String: Any],
                "no new standing; the watch: \(watch.standardError)\nthe broker:\n\(broker.logTail())")
            #expect(fields["verdict"] as? String == "unknown", "\(standing ?? "")")
            #expect(fields["state"] as? String == "unknown")
            #expect(fields["last_seen"] is NSNull, "nothing heard by this run")
            // SIGKILL: the watch may still be starting, and how it stops is not this test's
            // question (a SIGTERM that early is not always honoured, a separate problem).
            watch.signal(SIGKILL)
            _ = await watch.waitForExit()
            await dashboard.stop()
        }
    }

    @Test("a publisher with wrong credentials is refused and says so; nothing is claimed delivered", .timeLimit(.minutes(2)))
    func refusedCredentials() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try Self.recording().write(to: recording, atomically: true, encoding: .utf8)
        try await withMosquitto(users: ["gateway": "right"]) { broker in
            let scan = try BeaconctlProcess(
                ["scan", "--input", recording.path, "--mqtt", broker.url, "--format", "jsonl"],
                environment: ["BEACONCTL_MQTT_USERNAME": "gateway", "BEACONCTL_MQTT_PASSWORD": "wrong"])
            #expect(await scan.waitForExit() == 3, "\(scan.standardError)")
            #expect(scan.standardError.contains("refused the connection"), "\(scan.standardError)")
            #expect(scan.standardError.contains("not every sighting reached"), "\(scan.standardError)")
        }
    }

    @Test("a password in the URL is refused before anything connects")
    func noPasswordOnTheCommandLine() async throws {
        let scan = try BeaconctlProcess(["scan", "--input", "/dev/null", "--mqtt", "mqtt://user:secret@127.0.0.1/test"])
        #expect(await scan.waitForExit() == 2)
        #expect(scan.standardError.contains("credentials do not go in the URL"), "\(scan.standardError)")
    }

    @Test("verify --watch on a broker: two receivers, a clone reported duplicate, both receivers silent reported offline and the beacon unmonitored, changes published", .timeLimit(.minutes(3)))
    func watchThroughTheBroker() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
        // 3 s of the door beacon heard by two receivers, a clone on the second receiver, on
        // the wall clock of now (the watch compares Unix times with its own clock).
        let now = Date().timeIntervalSince1970
        var lines: [String] = []
        for tick in 0..<30 {
            let time = String(format: "%.1f", now + Double(tick) / 10)
            for receiver in ["shop-1:hci0", "shop-2:hci0"] {
                lines.append(#"{"uuid":"\#(Self.uuid)","major":1,"minor":1,"measured_power":-45,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":-60,"time":\#(time),"clock":"unix","receiver":"\#(receiver)"}"#)
            }
            if tick % 3 == 0 {
                lines.append(#"{"uuid":"\#(Self.uuid)","major":1,"minor":1,"measured_power":-45,"address":"C4:5B:BE:00:00:99","address_random":false,"rssi":-70,"time":\#(time),"clock":"unix","receiver":"shop-2:hci0"}"#)
            }
        }
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: recording, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            // A dashboard listening to the audit's changes.
            let dashboard = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: .init(clientID: "dashboard"))
            dashboard.subscribe("test/audit/events")
            try dashboard.start()
            #expect(await MQTTClientTests.nextSubscription(dashboard))
            let clientID = "watch-test-\(UUID().uuidString.prefix(8))"
            let watch = try BeaconctlProcess(
                ["verify", manifest.path, "--watch", "--input", broker.url, "--silence", "1", "--format", "jsonl", "--mqtt", broker.url],
                environment: ["BEACONCTL_MQTT_CLIENT_ID_PREFIX": clientID])
            try await Self.waitForSubscription(broker, clientID: clientID)
            let scan = try BeaconctlProcess(["scan", "--input", recording.path, "--mqtt", broker.url, "--format", "jsonl"])
            #expect(await scan.waitForExit() == 0, "scan: \(scan.standardError)")
            let duplicate = try await watch.waitForLine("a duplicate change") { $0.contains(#""state":"duplicate""#) }
            #expect(duplicate.contains("C4:5B:BE:00:00:99"))
            // Nothing more is published: both receivers go silent with the beacon, so by the
            // watch's clock alone they are offline and the beacon unmonitored, not missing
            // (docs/verify.md, "Receivers").
            let unmonitored = try await watch.waitForLine("an unmonitored change") { $0.contains(#""state":"unmonitored""#) }
            #expect(unmonitored.contains(#""beacon":"door""#))
            #expect(watch.outputLines.count { $0.hasPrefix(#"{"event":"receiver-offline""#) } == 2, "\(watch.outputLines)")
            #expect(!watch.outputLines.contains { $0.contains(#""state":"missing""#) }, "\(watch.outputLines)")
            watch.signal(SIGTERM)
            #expect(await watch.waitForExit() == 0, "\(watch.standardError)")
            var published: [String] = []
            for await message in dashboard.messages {
                dashboard.messageConsumed()
                published.append(String(decoding: message.payload, as: UTF8.self))
                if published.contains(where: { $0.contains(#""state":"unmonitored""#) }) { break }
            }
            #expect(published.contains { $0.contains(#""state":"duplicate""#) }, "\(published)")
            await dashboard.stop()
        }
    }
}
