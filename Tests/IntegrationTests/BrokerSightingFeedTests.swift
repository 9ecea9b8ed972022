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
