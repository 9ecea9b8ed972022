import BeaconCore
import Testing

@testable import BeaconFleet

@Suite("Gateway: publishing in the mqtt_room convention")
struct MQTTRoomPublicationTests {
    static func beacon(major: UInt16, accuracy: Double?, rssi: Int? = -70, receiver: String = "living room") -> RangedBeacon {
        RangedBeacon(
            identity: BeaconIdentity(uuid: GatewayDecoderTests.uuid, major: major, minor: 2), address: BluetoothAddress("C4:5B:BE:00:00:01"),
            addressIsRandom: false, measuredPower: -59, measuredPowerIsPlausible: true, rssi: rssi, filteredRSSI: -70.4,
            accuracy: accuracy, proximity: .near, packetsPerSecond: 10, sampleCount: 20, packetCount: 20, firstSeen: 0,
            lastSeen: 2, receiver: receiver)
    }

    @Test("the payload carries the fields Home Assistant's mqtt_room reads, and the mqtt-room gateway reads it back")
    func roundTrip() throws {
        let ranged = Self.beacon(major: 40000, accuracy: 2.3456)
        let payload = try #require(MQTTRoomPublisher.payload(ranged))
        let text = String(decoding: payload, as: UTF8.self)
        #expect(text == #"{"id":"e2c56db5dffb48d2b060d0f5a71096e0-40000-2","uuid":"e2c56db5dffb48d2b060d0f5a71096e0","major":40000,"minor":2,"txPower":-59,"rssi":-70,"distance":2.35}"#)
        let topic = MQTTRoomPublisher.topic(base: MQTTRoomPublisher.defaultBase, room: "living room")
        #expect(topic == "room_presence/living room")
        let reading = MQTTRoomGatewayDecoder.read(topic: topic, payload: payload, base: "room_presence", arrivalTime: 5)
        guard case .sightings(let sightings) = reading, let sighting = sightings.first else {
            Issue.record("not read back: \(reading)")
            return
        }
        #expect(sighting.identity == ranged.identity)
        #expect(sighting.advertisement.measuredPower == -59)
        #expect(sighting.rssi == -70)
        #expect(sighting.receiver == "living room (mqtt-room)")
    }

    @Test("no message before ranging has a distance; a room name cannot escape its topic level")
    func edges() {
        #expect(MQTTRoomPublisher.payload(Self.beacon(major: 1, accuracy: nil)) == nil)
        #expect(MQTTRoomPublisher.payload(Self.beacon(major: 1, accuracy: .infinity)) == nil)
        let noRSSI = MQTTRoomPublisher.payload(Self.beacon(major: 1, accuracy: 1e20, rssi: nil)).map { String(decoding: $0, as: UTF8.self) }
        #expect(noRSSI?.contains("\"rssi\"") == false)
        #expect(MQTTRoomPublisher.topic(base: "room_presence", room: "a/b+#") == "room_presence/a_b__")
    }
}
