import BeaconCore
import BeaconFleet
import BeaconMQTT
import BeaconTestKit
import Logging
import Testing

/// The broker input on a real Mosquitto: sightings decoded once, receivers' statuses, and
/// the messages a publisher numbered that never arrived.
@Suite("broker input on a real broker", .enabled(if: MosquittoBroker.shouldRun), .serialized)
struct BrokerSightingFeedTests {
    typealias Script = VerificationScript

    static func line(minor: UInt16, at time: Double) -> [UInt8] {
        var sighting = Script.sighting(Script.identity(minor: minor), at: time)
        sighting.receiver = "store-1"
        return Array((SightingJSONLines.encode(sighting) + "\n").utf8)
    }

    @Test("MQTT 5 user properties travel with a message, and a gap in a publisher's numbering is counted and said", .timeLimit(.minutes(2)))
    func numberedMessages() async throws {
        try await withMosquitto { broker in
            let url = try MQTTBrokerURL(parsing: broker.url + "/fleet")
            let reader = try MQTTClient(broker: url, configuration: .init(clientID: "feed-reader"))
            let feed = try BrokerSightingFeed(
                subscriptions: [BrokerSubscription(client: reader, gateway: .beaconctl, base: "fleet", name: broker.url + "/fleet")],
                logger: Logger(label: "test"))
            for await event in reader.connectionEvents {
                if case .subscribed = event { break }
            }
            let publisher = try MQTTClient(broker: url, configuration: .init(clientID: "feed-publisher"))
            try publisher.start()
            let topic = MQTTTopics(prefix: "fleet").sightings(receiver: "store-1")
            // Numbers 1, 2 and 5: messages 3 and 4 were dropped on the way.
            for (minor, number) in [(1, 1), (2, 2), (3, 5)] as [(UInt16, Int)] {
                let property = MQTTUserProperty(name: MessageSequence.propertyName, value: "box/\(number)")
                #expect(publisher.publish(topic: topic, payload: Self.line(minor: minor, at: 1e9 + Double(minor)), userProperties: [property]))
            }
            publisher.publish(topic: MQTTTopics(prefix: "fleet").status(receiver: "store-1"), payload: MQTTTopics.offline, retain: true)
            await publisher.drain()

            var minors: [UInt16] = []
            for try await sighting in feed.sightings {
                minors.append(sighting.identity.minor)
                #expect(sighting.receiver == "store-1")
                if minors.count == 3 { break }
            }
            #expect(minors == [1, 2, 3])
            var losses = feed.losses.makeAsyncIterator()
            let loss = try #require(await losses.next())
            #expect(loss.messages == 2)
            #expect(loss.topic == topic)
            #expect(feed.lostCount == 2)
            var statuses = feed.receiverStatuses.makeAsyncIterator()
            #expect(await statuses.next() == ReceiverStatusChange(receiver: "store-1", online: false))
            await publisher.stop()
            await feed.stop()
        }
    }

    @Test("a batch of 64 sightings with one corrupt line through Mosquitto: 63 read, 1 line counted, no message skipped", .timeLimit(.minutes(2)))
    func oneBadLineInABatch() async throws {
        try await withMosquitto { broker in
            let url = try MQTTBrokerURL(parsing: broker.url + "/fleet")
            let reader = try MQTTClient(broker: url, configuration: .init(clientID: "batch-reader"))
            let feed = try BrokerSightingFeed(
                subscriptions: [BrokerSubscription(client: reader, gateway: .beaconctl, base: "fleet", name: broker.url + "/fleet")],
                logger: Logger(label: "test"))
            for await event in reader.connectionEvents {
                if case .subscribed = event { break }
            }
            let publisher = try MQTTClient(broker: url, configuration: .init(clientID: "batch-publisher"))
            try publisher.start()
            var payload: [UInt8] = []
            for minor in 1...64 {
                var line = Self.line(minor: UInt16(minor), at: 1e9 + Double(minor))
                // A corrupt RSSI in the 41st (a number no Double holds).
                if minor == 41 { line = Array(String(decoding: line, as: UTF8.self).replacing(#""rssi":-70"#, with: #""rssi":1e400"#).utf8) }
                payload += line
            }
            #expect(publisher.publish(topic: MQTTTopics(prefix: "fleet").sightings(receiver: "store-1"), payload: payload))
            await publisher.drain()
            var minors: [UInt16] = []
            for try await sighting in feed.sightings {
                minors.append(sighting.identity.minor)
                if minors.count == 63 { break }
            }
            #expect(minors == (1...64).filter { $0 != 41 }.map(UInt16.init))
            #expect(feed.skippedMessages.unreadableLines == 1)
            #expect(feed.skippedMessages.malformed == 0)
            await publisher.stop()
            await feed.stop()
        }
    }

    @Test("battery fields through Mosquitto: Theengs Gateway's volt and beaconctl's telemetry lines land in the feed's inbox, tied to the address", .timeLimit(.minutes(2)))
    func telemetryThroughTheBroker() async throws {
        try await withMosquitto { broker in
            let beaconctlURL = try MQTTBrokerURL(parsing: broker.url + "/fleet")
            let homeURL = try MQTTBrokerURL(parsing: broker.url + "/home")
            let fleetReader = try MQTTClient(broker: beaconctlURL, configuration: .init(clientID: "tlm-fleet-reader"))
            let homeReader = try MQTTClient(broker: homeURL, configuration: .init(clientID: "tlm-home-reader"))
            let feed = try BrokerSightingFeed(
                subscriptions: [
                    BrokerSubscription(client: fleetReader, gateway: .beaconctl, base: "fleet", name: "fleet"),
                    BrokerSubscription(client: homeReader, gateway: .theengs, base: "home", name: "home"),
                ],
                logger: Logger(label: "test"))
            for reader in [fleetReader, homeReader] {
                for await event in reader.connectionEvents {
                    if case .subscribed = event { break }
                }
            }
            let client = try MQTTClient(broker: beaconctlURL, configuration: .init(clientID: "tlm-publisher"))
            try client.start()
            // A box publishing with --telemetry: a reading, then a sighting of the same address, one batch.
            let publisher = MQTTSightingPublisher(client: client, topics: MQTTTopics(prefix: "fleet"), receiver: "store-1", wallClockOffset: 1e9)
            let address = BluetoothAddress("C4:5B:BE:00:00:01")
            publisher.add(TelemetryReading(
                address: address, addressIsRandom: false, batteryMillivolts: 2990, temperature: 21.5, time: 5, clock: .elapsed,
                receiver: "hci0", source: .eddystoneTLM), now: 0)
            var sighting = Script.sighting(Script.identity(minor: 1), at: 6)
            sighting.address = address
            sighting.clock = .elapsed
            publisher.add(sighting, now: 0)
            publisher.flushAll()
            // Theengs Gateway: a KKM sensor frame's battery, then the same beacon's iBeacon, on its one topic.
            let topic = "home/TheengsGateway/BTtoMQTT/DD330A102030"
            #expect(client.publish(topic: topic, payload: Array(#"{"id": "DD:33:0A:10:20:30", "rssi": -66, "brand": "KKM", "model_id": "K6P", "tempc": 22.5, "volt": 2.987}"#.utf8)))
            #expect(client.publish(topic: topic, payload: Array(#"{"id": "DD:33:0A:10:20:30", "rssi": -70, "brand": "GENERIC", "model": "iBeacon", "model_id": "IBEACON", "type": "BCON", "mfid": "4c00", "uuid": "e2c56db5dffb48d2b060d0f5a71096e0", "major": 1, "minor": 2, "txpower": -59}"#.utf8)))
            // No address: counted.
            #expect(client.publish(topic: "home/TheengsGateway/BTtoMQTT/x", payload: Array(#"{"rssi": -66, "volt": 2.9}"#.utf8)))
            #expect(client.publish(topic: topic, payload: Array(#"{"id": "DD:33:0A:10:20:30", "rssi": -71, "brand": "GENERIC", "model": "iBeacon", "model_id": "IBEACON", "type": "BCON", "mfid": "4c00", "uuid": "e2c56db5dffb48d2b060d0f5a71096e0", "major": 1, "minor": 3, "txpower": -59}"#.utf8)))
            await client.drain()
            // Each topic's messages are read in order: once its last sighting is out, its telemetry was put.
            var addresses: [String] = []
            for try await sighting in feed.sightings {
                addresses.append(sighting.address?.description ?? "")
                if addresses.count == 3 { break }
            }
            #expect(Set(addresses) == ["C4:5B:BE:00:00:01", "DD:33:0A:10:20:30"])
            let readings = feed.sightings.telemetry.take()
            #expect(Set(readings.map(\.batteryMillivolts)) == [2990, 2987])
            let boxReading = try #require(readings.first { $0.batteryMillivolts == 2990 })
            #expect(boxReading.address == address && boxReading.receiver == "store-1")
            #expect(boxReading.clock == .unix && boxReading.time == 1e9 + 5, "on the Unix time its sightings get")
            let gatewayReading = try #require(readings.first { $0.batteryMillivolts == 2987 })
            #expect(gatewayReading.address == BluetoothAddress("DD:33:0A:10:20:30") && gatewayReading.source == .gateway)
            #expect(feed.skippedMessages.telemetryWithoutBeacon == 1)
            await client.stop()
            await feed.stop()
        }
    }

    @Test("the publisher beaconctl boxes use numbers every message on its topic", .timeLimit(.minutes(2)))
    func publisherNumbers() async throws {
        try await withMosquitto { broker in
            let url = try MQTTBrokerURL(parsing: broker.url + "/fleet")
            let subscriber = try MQTTClient(broker: url, configuration: .init(clientID: "numbers-subscriber"))
            subscriber.subscribe("fleet/sightings/+")
            try subscriber.start()
            for await event in subscriber.connectionEvents {
                if case .subscribed = event { break }
            }
            let client = try MQTTClient(broker: url, configuration: .init(clientID: "numbers-publisher"))
            try client.start()
            let publisher = MQTTSightingPublisher(client: client, topics: MQTTTopics(prefix: "fleet"), receiver: "store-1", wallClockOffset: 0)
            for index in 0..<(MQTTSightingPublisher.maximumBatch * 3) {
                publisher.add(Script.sighting(Script.identity(minor: 1), at: 1e9 + Double(index)), now: 0)
            }
            await client.drain()
            var numbers: [String] = []
            for await message in subscriber.messages {
                subscriber.messageConsumed()
                let value = try #require(message.userProperties.first { $0.name == MessageSequence.propertyName }?.value)
                numbers.append(String(value.split(separator: "/").last ?? ""))
                if numbers.count == 3 { break }
            }
            #expect(numbers == ["1", "2", "3"])
            await client.stop()
            await subscriber.stop()
        }
    }
}
