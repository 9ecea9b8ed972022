import BeaconCore
import BeaconFleet
import BeaconMQTT
import Foundation
import Testing

/// `scan --mqtt … --publish-as mqtt-room` through a real broker: what a subscriber of the
/// `room_presence` convention (Home Assistant's `mqtt_room`) receives, read back by the
/// `mqtt-room` gateway decoder.
@Suite("scan --publish-as mqtt-room through a broker", .enabled(if: MosquittoBroker.shouldRun), .serialized)
struct GatewayPublishAsMQTTRoomTests {
    @Test("a recorded beacon is published on room_presence/ROOM with its ranged distance, and reads back as the same beacon", .timeLimit(.minutes(2)))
    func publishesRangedBeacons() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beaconctl-mqtt-room-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // 3 s of one beacon at 10 Hz, at 1 m (RSSI = measured power).
        let lines = (0..<30).map { tick in
            let time = "\(1_795_000_000 + tick / 10)" + (tick % 10 == 0 ? "" : ".\(tick % 10)")
            return #"{"uuid":"\#(MQTTCommandTests.uuid)","major":40000,"minor":1,"measured_power":-45,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":-45,"time":\#(time),"clock":"unix","receiver":"shop-1:hci0"}"#
        }
        let recording = folder.appendingPathComponent("sightings.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: recording, atomically: true, encoding: .utf8)
        try await withMosquitto { broker in
            let subscriber = try MQTTClientTests.client(broker, id: "room-subscriber")
            subscriber.subscribe("room_presence/#")
            try subscriber.start()
            #expect(await MQTTClientTests.nextSubscription(subscriber))
            let url = "mqtt://127.0.0.1:\(broker.port)"
            let scan = try BeaconctlProcess([
                "scan", "--input", recording.path, "--mqtt", url, "--publish-as", "mqtt-room", "--receiver", "living_room",
                "--format", "jsonl",
            ])
            #expect(await scan.waitForExit() == 0, "scan: \(scan.standardError)")
            #expect(scan.standardError.contains("in the mqtt_room convention (room_presence/living_room)"), "\(scan.standardError)")
            var message: MQTTMessage?
            for await received in subscriber.messages {
                subscriber.messageConsumed()
                message = received
                break
            }
            let first = try #require(message)
            #expect(first.topic == "room_presence/living_room")
            let reading = MQTTRoomGatewayDecoder.read(
                topic: first.topic, payload: first.payload, base: MQTTRoomGatewayDecoder.defaultBase, arrivalTime: 1)
            guard case .sightings(let sightings) = reading, let sighting = sightings.first else {
                Issue.record("not an mqtt_room sighting: \(reading) from \(String(decoding: first.payload, as: UTF8.self))")
                return
            }
            #expect(sighting.identity.major == 40000 && sighting.identity.minor == 1)
            #expect(sighting.identity.uuid.description == MQTTCommandTests.uuid)
            #expect(sighting.advertisement.measuredPower == -45)
            #expect(sighting.receiver == "living_room (mqtt-room)")
            // Home Assistant requires a numeric distance.
            #expect(String(decoding: first.payload, as: UTF8.self).contains(#""distance":"#))
            await subscriber.stop()
        }
    }
}
