import BeaconCore
import BeaconMQTT
import BeaconTestKit
import Foundation
import Testing

@testable import BeaconFleet

@Suite("Home Assistant discovery and the audit's per-beacon state")
struct HomeAssistantDiscoveryTests {
    let beacon = ExpectedBeacon(
        beaconID: "door", name: "Front door", venueID: "store-12", identity: VerificationScript.identity(minor: 1),
        measuredPower: .calibrated(-59), intervalMilliseconds: 100)

    @Test("three retained configurations per beacon: verdict, presence and last seen, reading the beacon's standing")
    func announcements() throws {
        let discovery = HomeAssistantDiscovery(topics: MQTTTopics(prefix: "chain/eu"))
        let announcements = discovery.announcements(for: [beacon])
        #expect(announcements.map(\.topic) == [
            "homeassistant/sensor/beaconctl_chain_eu/door_verdict/config",
            "homeassistant/binary_sensor/beaconctl_chain_eu/door_presence/config",
            "homeassistant/sensor/beaconctl_chain_eu/door_last_seen/config",
        ])
        let device = #"{"identifiers":["beaconctl_chain_eu_door"],"name":"Front door","model":"iBeacon \#(beacon.identity)","manufacturer":"beaconctl","suggested_area":"store-12"}"#
        let common = #""state_topic":"chain/eu/audit/beacons/door","availability_topic":"chain/eu/audit/status","payload_available":"online","payload_not_available":"offline","qos":1"#
        let options = AuditState.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + #","unknown""#
        #expect(announcements[0].payload == #"{"name":"Verdict","unique_id":"beaconctl_chain_eu_door_verdict",\#(common),"device_class":"enum","options":[\#(options)],"value_template":"{{ value_json.verdict | default(value_json.state | default('unknown')) }}","json_attributes_topic":"chain/eu/audit/beacons/door","device":\#(device)}"#)
        #expect(announcements[1].payload == #"{"name":"Presence","unique_id":"beaconctl_chain_eu_door_presence",\#(common),"device_class":"presence","value_template":"{{ 'OFF' if value_json.state == 'missing' else ('ON' if value_json.state in ['ok', 'wrong-power', 'duplicate'] else 'None') }}","json_attributes_topic":"chain/eu/audit/beacons/door","device":\#(device)}"#)
        #expect(announcements[2].payload == #"{"name":"Last seen","unique_id":"beaconctl_chain_eu_door_last_seen",\#(common),"device_class":"timestamp","value_template":"{{ value_json.last_seen_at or 'None' }}","device":\#(device)}"#)
        for announcement in announcements {
            #expect(try JSONSerialization.jsonObject(with: Data(announcement.payload.utf8)) is [String: Any], "valid JSON")
        }
    }

    @Test("the verdict's options are every audit state, wrong-power and duplicate among them, and unknown")
    func verdictOptions() throws {
        let payload = HomeAssistantDiscovery(topics: MQTTTopics(prefix: "p")).announcements(for: [beacon])[0].payload
        let config = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
        let options = try #require(config["options"] as? [String])
        #expect(Set(options) == Set(AuditState.allCases.map(\.rawValue) + ["unknown"]))
        #expect(options.contains("wrong-power") && options.contains("duplicate"))
    }

    @Test("the device's area is the venue's name where the manifest gives one, else its id")
    func areaFromVenueName() {
        var elsewhere = beacon
        elsewhere.beaconID = "till"
        elsewhere.venueID = "store-13"
        let discovery = HomeAssistantDiscovery(topics: MQTTTopics(prefix: "p"), venueNames: ["store-12": "Main Street"])
        let payloads = discovery.announcements(for: [beacon, elsewhere]).map(\.payload)
        #expect(payloads[0].contains(#""suggested_area":"Main Street""#))
        #expect(payloads[3].contains(#""suggested_area":"store-13""#))
    }

    @Test("ids keep letters, digits, _ and - only", arguments: [
        ("door", "door"), ("chain/eu", "chain_eu"), ("café 2", "caf__2"), ("", "_"), ("a+b#c", "a_b_c"),
    ])
    func identifiers(text: String, expected: String) {
        #expect(HomeAssistantDiscovery.identifier(text) == expected)
    }

    @Test("a change says when the beacon was last heard, on the audit's clock and in UTC when known")
    func lastSeenInChanges() {
        let event = AuditEvent(
            time: 42, beaconID: "door", venueID: "store-12", identity: beacon.identity, previous: .ok, state: .missing,
            reason: "gone quiet", receivers: [], addresses: [], lastSeen: 12.5, lastSeenUnixTime: 1_795_000_012.5)
        #expect(AuditJSONLines.encode(event).hasSuffix(#""receivers":[],"last_seen":12.5,"last_seen_at":"2026-11-18T11:06:52.500Z"}"#))
        var never = event
        never.lastSeen = nil
        never.lastSeenUnixTime = nil
        #expect(AuditJSONLines.encode(never).hasSuffix(#""receivers":[]}"#))
    }

    @Test("a standing has the same fields whether a change, a statistics report or the start published it")
    func standingsKeepTheirFields() throws {
        let receiver = AuditReceiverSummary(receiver: "shop-1:hci0", latestRSSI: -60, sightings: 12, lastSeen: 41)
        let change = AuditEvent(
            time: 42, beaconID: "door", venueID: "store-12", identity: beacon.identity, previous: .ok, state: .wrongPower,
            reason: "measured power -40 dBm, expected -59", receivers: [receiver], addresses: ["C4:5B:BE:00:00:01"],
            lastSeen: 41, lastSeenUnixTime: 1_795_000_041)
        let summary = AuditBeaconSummary(beacon: beacon, state: .wrongPower, lastSeen: 59.9, lastSeenUnixTime: 1_795_000_059.9)
        let fromChange = AuditStanding(change).jsonLine
        let refreshed = AuditStanding(summary, at: 60, latestChange: change).jsonLine
        let unconfirmed = AuditStanding.unconfirmed(beacon).jsonLine
        #expect(refreshed == #"{"event":"state","time":60,"beacon":"door","venue":"store-12","uuid":"\#(beacon.identity.uuid)","major":1,"minor":1,"state":"wrong-power","verdict":"wrong-power","reason":"measured power -40 dBm, expected -59","addresses":["C4:5B:BE:00:00:01"],"receivers":[{"receiver":"shop-1:hci0","rssi":-60,"sightings":12,"last_seen":41}],"last_seen":59.9,"last_seen_at":"2026-11-18T11:07:39.900Z"}"#)
        #expect(unconfirmed == #"{"event":"state","time":null,"beacon":"door","venue":"store-12","uuid":"\#(beacon.identity.uuid)","major":1,"minor":1,"state":"unknown","verdict":"unknown","reason":"not judged yet: this watch has not heard it, and its silence period has not passed","addresses":[],"receivers":[],"last_seen":null,"last_seen_at":null}"#)
        func keys(_ line: String) throws -> [String] {
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).keys.sorted()
        }
        #expect(try keys(fromChange) == keys(refreshed))
        #expect(try keys(unconfirmed) == keys(refreshed))
        #expect(try keys(refreshed).contains("verdict"))
    }

    @Test("an unexpected identity's standing has no beacon or venue, and says so with null")
    func unexpectedStanding() throws {
        let event = AuditEvent(
            time: 5, beaconID: nil, venueID: nil, identity: beacon.identity, previous: nil, state: .unexpected,
            reason: "not in the manifest", receivers: [], addresses: ["C4:5B:BE:00:00:09"])
        let line = AuditStanding(event).jsonLine
        #expect(line.hasPrefix(#"{"event":"state","time":5,"beacon":null,"venue":null,"#))
        #expect(line.hasSuffix(#""last_seen":null,"last_seen_at":null}"#))
    }

    @Test("UTC timestamps", arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"), (-0.5, "1969-12-31T23:59:59.500Z"), (951_782_400.25, "2000-02-29T00:00:00.250Z"),
    ])
    func utc(time: Double, expected: String) {
        #expect(WallClock.iso8601(time) == expected)
    }

    @Test("no timestamp for a time no date can say", arguments: [Double.nan, .infinity, 2e10])
    func noTimestamp(time: Double) {
        #expect(WallClock.iso8601(time) == nil)
    }
}
