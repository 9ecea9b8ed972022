import BeaconMQTT
import Foundation
import Glibc
import Testing

/// `verify --watch --mqtt … --home-assistant` against a real Home Assistant (installed by
/// scripts/test-home-assistant.sh, which sets BEACONCTL_HOME_ASSISTANT_VENV; skipped
/// without it): what a Home Assistant user sees of the audit, read back from its API.
@Suite("beaconctl's audit in a real Home Assistant", .enabled(if: HomeAssistantInstance.shouldRun), .serialized)
struct HomeAssistantTests {
    static let uuid = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"
    static let venueName = "Main Street store"
    /// An `ok` beacon, a `wrong-power` one (heard at -40 dBm, calibrated at -59) and one
    /// that is never heard (`missing` after the silence).
    static let manifest = """
        version: 1
        fleet: home-assistant-test
        uuid: \(uuid)
        venues:
          - id: store-12
            name: \(venueName)
            major: 1
            beacons:
              - id: door
                name: Front door
                minor: 1
                measured_power: -59
                battery_low: 2.5V
              - id: till
                name: Till
                minor: 2
                measured_power: -59
                battery_low: 2.5V
              - id: shelf
                name: Back shelf
                minor: 3
                measured_power: -59

        """

    static let beacons = [(name: "Front door", verdict: "ok", presence: "on"), (name: "Till", verdict: "wrong-power", presence: "on"), (name: "Back shelf", verdict: "missing", presence: "off")]

    /// The entity whose friendly name is `name` (Home Assistant names an entity after its
    /// device and its own name), with its state and attributes.
    static func entity(_ name: String, in states: [String: [String: Any]]) -> (id: String, state: String, attributes: [String: Any])? {
        for (id, state) in states {
            guard let attributes = state["attributes"] as? [String: Any], attributes["friendly_name"] as? String == name else { continue }
            return (id, state["state"] as? String ?? "", attributes)
        }
        return nil
    }

    /// Every beacon's verdict, presence and last-seen entity, by friendly name.
    static let entityNames = beacons.flatMap { ["\($0.name) Verdict", "\($0.name) Presence", "\($0.name) Last seen"] }
    /// The receiver's connectivity entity (announced when the watch first knows it).
    static let connectivityName = "Receiver store-12:hci0 Connectivity"

    @Test("verdicts, presence, stable attributes, the venue's area, unavailable after SIGKILL of the watch, unknown after a restart", .timeLimit(.minutes(15)))
    func audit() async throws {
        let venv = try #require(HomeAssistantInstance.venv)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-ha-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("fleet.yaml")
        try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)

        try await withMosquitto { broker in
            try await withHomeAssistant(venv: venv) { home in
                try await home.onboard()
                try await home.addMQTT(brokerPort: broker.port)
                // docs/mqtt.md's example: an automation on the verdict turning wrong-power.
                // Its action is a persistent notification, which every Home Assistant has.
                try await home.addAutomation(id: "beacon_wrong_power", [
                    "alias": "Beacon with the wrong measured power",
                    "trigger": [["platform": "state", "entity_id": "sensor.till_verdict", "to": "wrong-power"]],
                    "action": [[
                        "service": "persistent_notification.create",
                        "data": [
                            "title": "{{ trigger.to_state.name }}: wrong power",
                            "message": "{{ state_attr(trigger.entity_id, 'reason') }}",
                        ],
                    ]],
                ])

                let watch = try BeaconctlProcess([
                    "verify", manifest.path, "--watch", "--input", broker.url, "--silence", "10", "--format", "jsonl",
                    "--mqtt", broker.url, "--home-assistant",
                ])
                let receiver = try Self.startReceiver(broker)
                defer { receiver.cancel() }

                // The audit's verdicts, as Home Assistant shows them.
                let judged = try await home.waitForStates("ok, wrong-power and missing, presence on, on and off, the receiver connected") { states in
                    Self.beacons.allSatisfy { beacon in
                        Self.entity("\(beacon.name) Verdict", in: states)?.state == beacon.verdict
                            && Self.entity("\(beacon.name) Presence", in: states)?.state == beacon.presence
                    } && Self.entity(Self.connectivityName, in: states)?.state == "on"
                }
                let connectivity = try #require(Self.entity(Self.connectivityName, in: judged))
                #expect(connectivity.id.hasPrefix("binary_sensor."), "\(connectivity.id)")
                #expect(connectivity.attributes["device_class"] as? String == "connectivity")
                #expect(connectivity.attributes["receiver"] as? String == "store-12:hci0", "the latest receiver event as attributes: \(connectivity.attributes)")
                let verdict = try #require(Self.entity("Till Verdict", in: judged))
                #expect(verdict.id == "sensor.till_verdict", "named after the device and the entity, as docs/mqtt.md says")
                #expect(verdict.attributes["device_class"] as? String == "enum")
                let automation = try await home.waitForStates("the wrong-power automation triggered") { states in
                    (states["automation.beacon_with_the_wrong_measured_power"]?["attributes"] as? [String: Any])?["last_triggered"] is String
                }
                #expect(automation["automation.beacon_with_the_wrong_measured_power"]?["state"] as? String == "on")
                // The options are in the entity registry, not the state; an enum sensor refuses a
                // state outside them, so `wrong-power` and `missing` shown are the evidence.
                #expect(verdict.attributes["verdict"] as? String == "wrong-power", "the verdict among the attributes: \(verdict.attributes)")
                #expect(Self.entity("Front door Last seen", in: judged)?.state.hasPrefix("20") == true, "a heard beacon has a time")

                // Batteries: the door's 2.98 V is fine, the till's 2.41 V below its 2.5 V. Home
                // Assistant's battery class (on = low) and a voltage sensor in V, on each device.
                let batteries = try await home.waitForStates("the till's battery low, the door's not") { states in
                    Self.entity("Till Battery", in: states)?.state == "on" && Self.entity("Front door Battery", in: states)?.state == "off"
                        && Self.entity("Till Battery voltage", in: states)?.state == "2.41"
                }
                let tillBattery = try #require(Self.entity("Till Battery", in: batteries))
                #expect(tillBattery.id.hasPrefix("binary_sensor."), "\(tillBattery.id)")
                #expect(tillBattery.attributes["device_class"] as? String == "battery")
                let voltage = try #require(Self.entity("Till Battery voltage", in: batteries))
                #expect(voltage.attributes["device_class"] as? String == "voltage")
                #expect(voltage.attributes["unit_of_measurement"] as? String == "V")
                #expect(Self.entity("Front door Battery voltage", in: batteries)?.state == "2.98")
                // A beacon with no battery settings gets no battery entity.
                #expect(Self.entity("Back shelf Battery", in: batteries) == nil)
                #expect(Self.entity("Back shelf Last seen", in: judged)?.state == "unknown", "a beacon never heard has none")
                var keysBefore: [String: Set<String>] = [:]
                for name in Self.beacons.map({ "\($0.name) Verdict" }) {
                    let attributes = try #require(Self.entity(name, in: judged)).attributes
                    keysBefore[name] = Set(attributes.keys)
                    #expect(Set(["verdict", "reason", "addresses", "receivers", "last_seen", "venue"]).isSubset(of: Set(attributes.keys)), "\(name): \(attributes.keys.sorted())")
                }

                // The first statistics report (60 s on the audit's clock) refreshes every
                // standing: the same attributes after it.
                let refreshed = try await home.waitForStates("the standings of the first statistics report") { states in
                    Self.beacons.allSatisfy { beacon in
                        ((Self.entity("\(beacon.name) Verdict", in: states)?.attributes["time"] as? Double) ?? 0) >= 60
                    }
                }
                for beacon in Self.beacons {
                    let after = try #require(Self.entity("\(beacon.name) Verdict", in: refreshed))
                    #expect(after.state == beacon.verdict)
                    #expect(Set(after.attributes.keys) == keysBefore["\(beacon.name) Verdict"], "\(beacon.name): attributes came or went with the refresh")
                    #expect(Self.entity("\(beacon.name) Presence", in: refreshed)?.state == beacon.presence)
                }
                let reason = Self.entity("Till Verdict", in: refreshed)?.attributes["reason"] as? String
                #expect(reason?.isEmpty == false, "the refresh keeps the reason")

                // The device's area, created from the discovery's suggested area.
                let door = try #require(Self.entity("Front door Verdict", in: refreshed))
                #expect(try await home.render("{{ area_name('\(door.id)') }}") == Self.venueName)

                // The watch dies without a word: its last will makes every entity unavailable.
                watch.signal(SIGKILL)
                _ = await watch.waitForExit()
                receiver.cancel()
                _ = try await home.waitForStates("every entity unavailable after SIGKILL") { states in
                    (Self.entityNames + [Self.connectivityName]).allSatisfy { Self.entity($0, in: states)?.state == "unavailable" }
                }
                // A watch started again (nothing heard, a silence longer than the test): every
                // beacon unknown at once, not the dead run's standing, and available again.
                let again = try BeaconctlProcess([
                    "verify", manifest.path, "--watch", "--input", broker.url, "--silence", "600", "--format", "jsonl",
                    "--mqtt", broker.url, "--home-assistant",
                ])
                _ = try await home.waitForStates("every entity unknown after a restart") { states in
                    Self.entityNames.allSatisfy { Self.entity($0, in: states)?.state == "unknown" }
                }
                again.signal(SIGKILL)
                _ = await again.waitForExit()
                let complaints = home.loggedErrors().filter { line in
                    ["mqtt", "sensor", "automation", "template"].contains { line.lowercased().contains($0) }
                }
                #expect(complaints.isEmpty, "Home Assistant logged errors about the entities:\n\(complaints.joined(separator: "\n"))")
            }
        }
    }

    /// A receiver on the air, live: the door at its calibrated power and the till too
    /// strong, each with its battery (the door's fine, the till's low), twice a second with Unix times of now, until cancelled. Paced by the wall
    /// clock because the watch judges a live broker on it (no other way to be "heard lately").
    static func startReceiver(_ broker: MosquittoBroker) throws -> Task<Void, Never> {
        let client = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: .init(clientID: "receiver-\(UUID().uuidString.prefix(8))"))
        try client.start()
        return Task {
            while !Task.isCancelled {
                let time = String(format: "%.3f", Date().timeIntervalSince1970)
                let beacons = [
                    (minor: 1, power: -59, address: "C4:5B:BE:00:00:01", millivolts: 2980), (minor: 2, power: -40, address: "C4:5B:BE:00:00:02", millivolts: 2410),
                ]
                let lines = beacons.map { beacon in
                    #"{"uuid":"\#(uuid)","major":1,"minor":\#(beacon.minor),"measured_power":\#(beacon.power),"address":"\#(beacon.address)","address_random":false,"rssi":-60,"time":\#(time),"clock":"unix","receiver":"store-12:hci0"}"#
                } + beacons.map { beacon in
                    // Each beacon's Eddystone-TLM reading, from the address of its iBeacon (docs/sightings.md).
                    #"{"telemetry":1,"source":"eddystone-tlm","address":"\#(beacon.address)","address_random":false,"battery_mv":\#(beacon.millivolts),"battery_percent":null,"temperature":21.5,"time":\#(time),"clock":"unix","receiver":"store-12:hci0"}"#
                }
                _ = client.publish(topic: "test/sightings/store-12:hci0", payload: Array((lines.joined(separator: "\n") + "\n").utf8))
                // A box's pace in real time, against a real broker and a watch in a real process.
                try? await Task.sleep(for: .milliseconds(500))
            }
            await client.stop()
        }
    }
}
