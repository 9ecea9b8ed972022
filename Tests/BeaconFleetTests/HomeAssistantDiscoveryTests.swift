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

    @Test("two retained configurations per beacon: presence and last seen, reading the audit's beacon topic")
    func announcements() throws {
        let discovery = HomeAssistantDiscovery(topics: MQTTTopics(prefix: "chain/eu"))
        let announcements = discovery.announcements(for: [beacon])
        #expect(announcements.map(\.topic) == [
            "homeassistant/binary_sensor/beaconctl_chain_eu/door_presence/config",
            "homeassistant/sensor/beaconctl_chain_eu/door_last_seen/config",
        ])
        let device = #"{"identifiers":["beaconctl_chain_eu_door"],"name":"Front door","model":"iBeacon \#(beacon.identity)","manufacturer":"beaconctl","suggested_area":"store-12"}"#
        let common = #""state_topic":"chain/eu/audit/beacons/door","availability_topic":"chain/eu/audit/status","payload_available":"online","payload_not_available":"offline","qos":1"#
        #expect(announcements[0].payload == #"{"name":"Presence","unique_id":"beaconctl_chain_eu_door_presence",\#(common),"device_class":"presence","value_template":"{{ 'OFF' if value_json.state == 'missing' else ('ON' if value_json.state is defined else 'None') }}","json_attributes_topic":"chain/eu/audit/beacons/door","device":\#(device)}"#)
        #expect(announcements[1].payload == #"{"name":"Last seen","unique_id":"beaconctl_chain_eu_door_last_seen",\#(common),"device_class":"timestamp","value_template":"{{ value_json.last_seen_at | default('None') }}","device":\#(device)}"#)
        for announcement in announcements {
            #expect(try JSONSerialization.jsonObject(with: Data(announcement.payload.utf8)) is [String: Any], "valid JSON")
        }
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

    @Test("the state line a statistics report refreshes")
    func stateLine() {
        let summary = AuditBeaconSummary(beacon: beacon, state: .ok, lastSeen: 59.9, lastSeenUnixTime: 1_795_000_059.9)
        #expect(AuditJSONLines.encode(summary, at: 60) == #"{"event":"state","time":60,"beacon":"door","venue":"store-12","uuid":"\#(beacon.identity.uuid)","major":1,"minor":1,"state":"ok","last_seen":59.9,"last_seen_at":"2026-11-18T11:07:39.900Z"}"#)
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
