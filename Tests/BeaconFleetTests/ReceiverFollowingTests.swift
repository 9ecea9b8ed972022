import BeaconCore
import BeaconMQTT
import BeaconTestKit
import Foundation
import Testing

@testable import BeaconFleet

/// The continuous audit following its receivers, on its own clock: the times are the
/// audit's, fed by hand.
@Suite("receivers followed by the continuous audit (verify --watch)")
struct ReceiverFollowingTests {
    typealias Script = VerificationScript

    static let door = Script.beacon("door", minor: 1)
    static let till = Script.beacon("till", minor: 2)

    static func audit(_ beacons: [ExpectedBeacon] = [door, till], silence: Duration = .seconds(10)) throws -> AuditFeed {
        AuditFeed(plan: try Script.plan(beacons), configuration: .init(silence: silence, followsReceivers: true))
    }

    static func heard(_ beacon: ExpectedBeacon, at time: Double, by receiver: String) -> Sighting {
        var sighting = Script.sighting(beacon.identity, power: -59, address: Script.deviceA, at: time, rssi: -70)
        sighting.receiver = receiver
        if beacon.beaconID == till.beaconID { sighting.address = BluetoothAddress(Script.deviceB) }
        return sighting
    }

    /// What happened, in the order the watch hands it on: beacons' changes and receivers'.
    struct Record {
        var lines: [String] = []
        var receiverEvents: [AuditReceiverEvent] = []
        var beaconEvents: [AuditEvent] = []

        mutating func take(_ events: [AuditEvent], _ audit: inout AuditFeed) {
            let receivers = audit.takeReceiverEvents()
            receiverEvents += receivers
            beaconEvents += events
            // As the watch merges them: a receiver first at one moment.
            var pending = receivers[...]
            for event in events {
                while let first = pending.first, first.time <= event.time {
                    lines.append(Self.line(first))
                    pending.removeFirst()
                }
                lines.append("\(SightingJSONLines.timeText(event.time)) \(event.beaconID ?? "?") \(event.previous?.rawValue ?? "-")→\(event.state.rawValue)")
            }
            lines += pending.map(Self.line)
        }

        static func line(_ event: AuditReceiverEvent) -> String {
            "\(SightingJSONLines.timeText(event.time)) receiver \(event.receiver) \(event.previous?.rawValue ?? "-")→\(event.state.rawValue) (\(event.cause.rawValue)) [\(event.beacons.joined(separator: ","))]"
        }
    }

    /// Feeds `sightings` in time order, a status at its moment among them, then advances to `end`.
    static func play(
        _ audit: inout AuditFeed, _ sightings: [Sighting], statuses: [(Double, ReceiverStatusChange)] = [], until end: Double
    ) -> Record {
        var record = Record()
        var statuses = statuses[...]
        // In time order, those of one moment in the order given.
        let ordered = sightings.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        for sighting in ordered {
            while let (time, change) = statuses.first, time <= sighting.time {
                record.take(audit.receiverStatus(change, at: time), &audit)
                statuses.removeFirst()
            }
            record.take(audit.observe(sighting), &audit)
        }
        for (time, change) in statuses { record.take(audit.receiverStatus(change, at: time), &audit) }
        record.take(audit.advance(to: end), &audit)
        return record
    }

    static func every(_ step: Double, _ beacon: ExpectedBeacon, from start: Double, through end: Double, by receiver: String) -> [Sighting] {
        stride(from: start, through: end, by: step).map { heard(beacon, at: $0, by: receiver) }
    }

    @Test("a receiver none of whose sightings arrive for the silence is offline, once; its beacons unmonitored, none missing")
    func silentReceiver() throws {
        var audit = try Self.audit()
        let record = Self.play(
            &audit, Self.every(1, Self.door, from: 0, through: 5, by: "box-1") + Self.every(1, Self.till, from: 0, through: 5, by: "box-1"),
            until: 60)
        #expect(record.lines == [
            "0 receiver box-1 -→online (sighting) []",
            "0 door -→ok", "0 till -→ok",
            "15 receiver box-1 online→offline (silence) [door,till]",
            "15 door ok→unmonitored", "15 till ok→unmonitored",
        ])
        let offline = try #require(record.receiverEvents.last)
        #expect(offline.reason == "none of its sightings for 10 s")
        #expect(offline.lastSeen == 5)
        let unmonitored = try #require(record.beaconEvents.last)
        #expect(unmonitored.reason.hasPrefix("every receiver that hears it is offline (box-1) (last heard at 5 s)"))
        #expect(audit.statistics.beaconStates[.unmonitored] == 2)
        #expect(audit.statistics.beaconStates[.missing] == 0)
        #expect(audit.statistics.receiversOffline == 1 && audit.statistics.receiversOnline == 0)
        #expect(!audit.statistics.allOK, "unmonitored is no evidence that a beacon is fine")
    }

    @Test("a receiver's last will (its status offline) makes its beacons unmonitored at once; nothing missing after")
    func lastWill() throws {
        var audit = try Self.audit()
        let record = Self.play(
            &audit, Self.every(1, Self.door, from: 0, through: 5, by: "box-1") + Self.every(1, Self.till, from: 0, through: 5, by: "box-1"),
            statuses: [(6, ReceiverStatusChange(receiver: "box-1", online: false))], until: 60)
        #expect(record.lines == [
            "0 receiver box-1 -→online (sighting) []",
            "0 door -→ok", "0 till -→ok",
            "6 receiver box-1 online→offline (status) [door,till]",
            "6 door ok→unmonitored", "6 till ok→unmonitored",
        ])
        #expect(record.receiverEvents.last?.reason.contains("last will") == true)
    }

    @Test("a beacon that stops while its receiver hears others is missing within its silence and the receiver's next sighting")
    func missingWhileReceiverHears() throws {
        var audit = try Self.audit()
        let record = Self.play(
            &audit, Self.every(1, Self.door, from: 0, through: 5, by: "box-1") + Self.every(0.5, Self.till, from: 0, through: 40, by: "box-1"),
            until: 40)
        #expect(record.lines == ["0 receiver box-1 -→online (sighting) []", "0 door -→ok", "0 till -→ok", "15 door ok→missing"])
        #expect(record.beaconEvents.last?.reason.contains("while box-1 still hears others") == true)
    }

    @Test("a beacon whose receiver is quiet at the end of its silence waits for the receiver's next sighting, then is missing as of the end of its silence")
    func waitsForTheReceiversWord() throws {
        var audit = try Self.audit()
        // box-1 hears till every 4 s: at door's deadline (15) it has been quiet since 12.
        var record = Self.play(
            &audit, Self.every(1, Self.door, from: 0, through: 5, by: "box-1") + Self.every(4, Self.till, from: 0, through: 12, by: "box-1"),
            until: 15.9)
        #expect(record.lines == ["0 receiver box-1 -→online (sighting) []", "0 door -→ok", "0 till -→ok"], "not judged before box-1 has shown it still hears")
        record.take(audit.observe(Self.heard(Self.till, at: 16, by: "box-1")), &audit)
        #expect(record.lines.last == "15 door ok→missing")
        #expect(record.lines.count == 4)
    }

    @Test("a receiver back: one online event, and its beacons have one full silence from then before they can be missing")
    func receiverBack() throws {
        var audit = try Self.audit()
        let record = Self.play(
            &audit,
            Self.every(1, Self.door, from: 0, through: 5, by: "box-1") + Self.every(1, Self.till, from: 0, through: 5, by: "box-1")
                + Self.every(1, Self.till, from: 21, through: 45, by: "box-1"),
            statuses: [(6, ReceiverStatusChange(receiver: "box-1", online: false)), (20, ReceiverStatusChange(receiver: "box-1", online: true))],
            until: 45)
        #expect(record.lines == [
            "0 receiver box-1 -→online (sighting) []",
            "0 door -→ok", "0 till -→ok",
            "6 receiver box-1 online→offline (status) [door,till]",
            "6 door ok→unmonitored", "6 till ok→unmonitored",
            "20 receiver box-1 offline→online (status) [door,till]",
            "21 till unmonitored→ok",
            "30 door unmonitored→missing",
        ])
        #expect(record.receiverEvents.count { $0.state == .online && $0.previous == .offline } == 1)
    }

    @Test("a receiver back by a sighting of its own, without a status: one online event")
    func receiverBackBySighting() throws {
        var audit = try Self.audit()
        let record = Self.play(
            &audit,
            Self.every(1, Self.door, from: 0, through: 5, by: "box-1") + Self.every(1, Self.till, from: 0, through: 5, by: "box-1")
                + Self.every(1, Self.till, from: 30, through: 50, by: "box-1"),
            until: 50)
        #expect(record.lines == [
            "0 receiver box-1 -→online (sighting) []",
            "0 door -→ok", "0 till -→ok",
            "15 receiver box-1 online→offline (silence) [door,till]",
            "15 door ok→unmonitored", "15 till ok→unmonitored",
            "30 receiver box-1 offline→online (sighting) [door,till]",
            "30 till unmonitored→ok",
            "40 door unmonitored→missing",
        ])
    }

    @Test("two receivers hear a beacon: one offline, the beacon is still judged by the other")
    func secondReceiverStillJudges() throws {
        var audit = try Self.audit()
        let record = Self.play(
            &audit,
            Self.every(1, Self.door, from: 0, through: 5, by: "box-1") + Self.every(1, Self.door, from: 0.5, through: 5.5, by: "box-2")
                + Self.every(0.5, Self.till, from: 0, through: 40, by: "box-2"),
            statuses: [(6, ReceiverStatusChange(receiver: "box-1", online: false))], until: 40)
        #expect(record.lines == [
            "0 receiver box-1 -→online (sighting) []",
            "0 door -→ok",
            "0 receiver box-2 -→online (sighting) []",
            "0 till -→ok",
            "6 receiver box-1 online→offline (status) []",
            "15.5 door ok→missing",
        ])
    }

    @Test("a beacon already missing stays missing when its receiver goes offline afterwards")
    func missingStaysMissing() throws {
        var audit = try Self.audit()
        let record = Self.play(
            &audit, Self.every(1, Self.door, from: 0, through: 5, by: "box-1") + Self.every(1, Self.till, from: 0, through: 20, by: "box-1"),
            until: 60)
        #expect(record.lines == [
            "0 receiver box-1 -→online (sighting) []",
            "0 door -→ok", "0 till -→ok",
            "15 door ok→missing",
            "30 receiver box-1 online→offline (silence) [till]",
            "30 till ok→unmonitored",
        ])
    }

    @Test("a sighting sent before its receiver's last will, arriving after it, does not bring the receiver back")
    func lateSighting() throws {
        var audit = try Self.audit([Self.door])
        var record = Self.play(&audit, Self.every(1, Self.door, from: 0, through: 5, by: "box-1"), until: 5)
        record.take(audit.receiverStatus(ReceiverStatusChange(receiver: "box-1", online: false), at: 7), &audit)
        // Sent at 6 (its own clock), read after the will.
        record.take(audit.observe(Self.heard(Self.door, at: 6, by: "box-1")), &audit)
        record.take(audit.advance(to: 40), &audit)
        #expect(record.lines == [
            "0 receiver box-1 -→online (sighting) []", "0 door -→ok",
            "7 receiver box-1 online→offline (status) [door]", "7 door ok→unmonitored",
        ])
    }

    @Test("a receiver first known by its retained status; one beyond the followed is counted, and its silence makes its beacons unmonitored, never missing")
    func statusFirstAndBound() throws {
        var audit = AuditFeed(
            plan: try Script.plan([Self.door]), configuration: .init(silence: .seconds(10), maximumFollowedReceivers: 1, followsReceivers: true))
        var record = Record()
        record.take(audit.receiverStatus(ReceiverStatusChange(receiver: "box-9", online: false), at: 0), &audit)
        record.take(Self.play(&audit, Self.every(1, Self.door, from: 1, through: 5, by: "box-1"), until: 30).beaconEvents, &audit)
        // box-1's clock is its own: tied to the audit's (0) at its first sighting.
        // Whether box-1 still hears cannot be told: the door's silence is no evidence.
        #expect(record.lines == ["0 receiver box-9 -→offline (status) []", "0 door -→ok", "14 door ok→unmonitored"])
        #expect(audit.statistics.unfollowedReceiverReports == 5)
        #expect(audit.receiverStates.map(\.receiver) == ["box-9"])
    }

    @Test("not following receivers (this host's controller, a file): no receiver events, a silent beacon missing as before")
    func notFollowing() throws {
        var audit = AuditFeed(plan: try Script.plan([Self.door]), configuration: .init(silence: .seconds(10)))
        var record = Self.play(&audit, Self.every(1, Self.door, from: 0, through: 5, by: "hci0"), until: 30)
        record.take(audit.receiverStatus(ReceiverStatusChange(receiver: "hci0", online: false), at: 31), &audit)
        #expect(record.lines == ["0 door -→ok", "15 door ok→missing"])
        #expect(audit.statistics.receiversOnline == 0 && audit.statistics.receiversOffline == 0)
    }

    @Test("while the input is down, no receiver goes offline by silence; after it, a full silence first")
    func inputDown() throws {
        var audit = try Self.audit([Self.door])
        var record = Self.play(&audit, Self.every(1, Self.door, from: 0, through: 5, by: "box-1"), until: 6)
        record.take(audit.inputLost(at: 6), &audit)
        record.take(audit.advance(to: 30), &audit)
        record.take(audit.inputRestored(at: 30), &audit)
        record.take(audit.advance(to: 39.9), &audit)
        #expect(record.lines == ["0 receiver box-1 -→online (sighting) []", "0 door -→ok"])
        record.take(audit.advance(to: 45), &audit)
        #expect(record.lines.suffix(2) == ["40 receiver box-1 online→offline (silence) [door]", "40 door ok→unmonitored"])
    }

    @Test("restoring from --state takes unmonitored, and old files without it")
    func restoring() throws {
        var audit = try Self.audit()
        #expect(audit.restore(["door": .unmonitored, "till": .ok]) == 2)
        #expect(audit.beaconStates.map(\.state) == [.unmonitored, .ok])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receivers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("watch.state").path
        let old = "{\"state_file\":\"beaconctl-watch\",\"version\":1,\"written_at\":1764141600.5}\n{\"beacon\":\"door\",\"state\":\"missing\"}\n"
        try Data(old.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try AuditStateFile.read(path)?.beacons == ["door": .missing])
        let new = old.replacingOccurrences(of: "missing", with: "unmonitored")
        try Data(new.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try AuditStateFile.read(path)?.beacons == ["door": .unmonitored])
    }

    @Test("a restored unmonitored beacon whose receivers are still offline stays so; when one is back, a full silence, then missing")
    func restoredWithReceivers() throws {
        var audit = try Self.audit()
        #expect(audit.restore(["door": .unmonitored], receivers: ["door": ["box-1"]]) == 1)
        // box-1's retained status says offline at the start; it comes back at 20 and hears till.
        let record = Self.play(
            &audit, Self.every(1, Self.till, from: 21, through: 40, by: "box-1"),
            statuses: [(0, ReceiverStatusChange(receiver: "box-1", online: false)), (20, ReceiverStatusChange(receiver: "box-1", online: true))],
            until: 40)
        #expect(record.lines == [
            "0 receiver box-1 -→offline (status) [door]",
            "10 till -→missing",
            "20 receiver box-1 offline→online (status) [door]",
            // box-1's own clock, tied to the audit's at its first sighting (20).
            "20 till missing→ok",
            "30 door unmonitored→missing",
        ])
    }

    @Test("the state file keeps an unmonitored beacon's receivers, a line each, and reads them back")
    func stateFileReceivers() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receivers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("watch.state").path
        let file = AuditStateFile(path: path, unixTime: { 1_764_141_600 })
        file.deliver(AuditEvent(
            time: 1, beaconID: "door", venueID: "shop", identity: Script.identity(minor: 1), previous: .ok, state: .unmonitored,
            reason: "", receivers: [AuditReceiverSummary(receiver: "box-1", latestRSSI: nil, sightings: 3, lastSeen: 1)], addresses: []))
        file.deliver(AuditEvent(
            time: 1, beaconID: "till", venueID: "shop", identity: Script.identity(minor: 2), previous: nil, state: .ok,
            reason: "", receivers: [AuditReceiverSummary(receiver: "box-1", latestRSSI: nil, sightings: 3, lastSeen: 1)], addresses: []))
        #expect(await file.flush() == nil)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#"{"beacon":"door","state":"unmonitored"}"# + "\n" + #"{"beacon":"door","receiver":"box-1"}"#), "\(text)")
        let read = try #require(try AuditStateFile.read(path))
        #expect(read.beacons == ["door": .unmonitored, "till": .ok])
        #expect(read.receivers == ["door": ["box-1"]])
    }

    // MARK: Outputs

    static let offlineEvent = AuditReceiverEvent(
        time: 42, receiver: "store-12", state: .offline, previous: .online, cause: .status,
        reason: "its status says offline", beacons: ["door", "till"], lastSeen: 40.5, unixTime: 1_764_141_600)

    @Test("JSON lines: one receiver-offline/receiver-online object; statistics carry the receiver counts")
    func jsonLines() {
        #expect(AuditJSONLines.encode(Self.offlineEvent) == #"{"event":"receiver-offline","time":42,"receiver":"store-12","state":"offline","previous":"online","cause":"status","reason":"its status says offline","beacons":["door","till"],"last_seen":40.5,"at":"2025-11-26T07:20:00.000Z"}"#)
        var first = Self.offlineEvent
        first.previous = nil
        first.state = .online
        first.beacons = []
        first.lastSeen = nil
        first.unixTime = nil
        #expect(AuditJSONLines.encode(first) == #"{"event":"receiver-online","time":42,"receiver":"store-12","state":"online","cause":"status","reason":"its status says offline","beacons":[]}"#)
        var statistics = AuditStatistics()
        statistics.receiversOnline = 3
        statistics.receiversOffline = 1
        statistics.beaconStates = [.unmonitored: 2]
        let line = AuditJSONLines.encode(AuditStatusReport(time: 60, statistics: statistics, lostSightings: 0))
        #expect(line.contains(#""unmonitored":2"#))
        #expect(line.contains(#""receivers":{"online":3,"offline":1}"#))
    }

    @Test("Home Assistant: a connectivity binary_sensor per receiver, reading its retained standing")
    func homeAssistantReceiver() throws {
        let discovery = HomeAssistantDiscovery(topics: MQTTTopics(prefix: "chain/eu"))
        let announcement = discovery.announcement(forReceiver: "store/12")
        #expect(announcement.topic == "homeassistant/binary_sensor/beaconctl_chain_eu/receiver_store_12_connectivity/config")
        let config = try #require(try JSONSerialization.jsonObject(with: Data(announcement.payload.utf8)) as? [String: Any])
        #expect(config["device_class"] as? String == "connectivity")
        #expect(config["state_topic"] as? String == "chain/eu/audit/receivers/store_12")
        #expect(config["json_attributes_topic"] as? String == "chain/eu/audit/receivers/store_12")
        #expect(config["unique_id"] as? String == "beaconctl_chain_eu_receiver_store_12_connectivity")
        #expect(config["value_template"] as? String == "{{ 'ON' if value_json.state == 'online' else 'OFF' }}")
        let device = try #require(config["device"] as? [String: Any])
        #expect(device["name"] as? String == "Receiver store/12")
        #expect(MQTTTopics(prefix: "chain/eu").auditReceiver("store/12") == "chain/eu/audit/receivers/store_12")
        #expect(AuditStanding.verdicts.contains("unmonitored"))
    }
}
