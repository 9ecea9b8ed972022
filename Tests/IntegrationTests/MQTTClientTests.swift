import BeaconMQTT
import Foundation
import Testing

/// The MQTT client against a real Mosquitto broker: delivery at QoS 1, a broker restarted
/// mid-stream, a broker that is not there yet, credentials refused.
@Suite("MQTT client on a real broker", .enabled(if: MosquittoBroker.shouldRun), .serialized)
struct MQTTClientTests {
    static func client(_ broker: MosquittoBroker, id: String, credentials: MQTTCredentials? = nil) throws -> MQTTClient {
        try MQTTClient(
            broker: MQTTBrokerURL(parsing: broker.url),
            configuration: .init(clientID: id, credentials: credentials))
    }

    /// Waits for the next `.connected` (or a refusal, returned as such).
    static func nextConnection(_ client: MQTTClient) async -> MQTTConnectionEvent? {
        for await event in client.connectionEvents {
            switch event {
            case .connected, .refused: return event
            case .disconnected, .subscribed, .statusRefused, .oversizedMessage: continue
            }
        }
        return nil
    }

    /// Waits until the client noticed that its connection is gone.
    static func nextDisconnection(_ client: MQTTClient) async -> Bool {
        for await event in client.connectionEvents {
            if case .disconnected = event { return true }
        }
        return false
    }

    /// Waits until the broker acknowledged the client's subscription: only then do
    /// messages published by others reach it.
    static func nextSubscription(_ client: MQTTClient) async -> Bool {
        for await event in client.connectionEvents {
            switch event {
            case .subscribed: return true
            case .refused: return false
            case .connected, .disconnected, .statusRefused, .oversizedMessage: continue
            }
        }
        return false
    }

    /// Collects payloads until `count` distinct ones arrived.
    static func receive(_ client: MQTTClient, distinct count: Int) async -> Set<String> {
        var seen: Set<String> = []
        for await message in client.messages {
            client.messageConsumed()
            seen.insert(String(decoding: message.payload, as: UTF8.self))
            if seen.count >= count { break }
        }
        return seen
    }

    @Test("QoS 1 messages arrive, in order, and the publisher drains", .timeLimit(.minutes(2)))
    func roundTrip() async throws {
        try await withMosquitto { broker in
            let subscriber = try Self.client(broker, id: "test-subscriber")
            subscriber.subscribe("test/sightings/#")
            try subscriber.start()
            #expect(await Self.nextSubscription(subscriber))
            let publisher = try Self.client(broker, id: "test-publisher")
            try publisher.start()
            for index in 0..<200 { #expect(publisher.publish(topic: "test/sightings/r1", payload: Array("m\(index)".utf8))) }
            await publisher.drain()
            #expect(publisher.pendingMessages == 0)
            var order: [String] = []
            for await message in subscriber.messages {
                subscriber.messageConsumed()
                #expect(message.topic == "test/sightings/r1")
                order.append(String(decoding: message.payload, as: UTF8.self))
                if order.count == 200 { break }
            }
            #expect(order == (0..<200).map { "m\($0)" })
            await publisher.stop()
            await subscriber.stop()
        }
    }

    @Test("the broker restarted mid-stream: nothing published at QoS 1 is lost", .timeLimit(.minutes(3)))
    func brokerRestart() async throws {
        try await withMosquitto { broker in
            let subscriber = try Self.client(broker, id: "restart-subscriber")
            subscriber.subscribe("test/sightings/#")
            try subscriber.start()
            #expect(await Self.nextSubscription(subscriber))
            let publisher = try Self.client(broker, id: "restart-publisher")
            try publisher.start()
            #expect(await Self.nextConnection(publisher) == .connected)
            // Structured, so that the test's time limit cancels it too.
            async let received = Self.receive(subscriber, distinct: 600)
            for index in 0..<200 { publisher.publish(topic: "test/sightings/r1", payload: Array("m\(index)".utf8)) }
            await publisher.drain()
            await broker.stop()
            // Published while the broker is down: kept by the client, sent after reconnecting.
            for index in 200..<400 { publisher.publish(topic: "test/sightings/r1", payload: Array("m\(index)".utf8)) }
            try await broker.restart()
            for index in 400..<600 { publisher.publish(topic: "test/sightings/r1", payload: Array("m\(index)".utf8)) }
            await publisher.drain()
            let seen = await received
            #expect(seen == Set((0..<600).map { "m\($0)" }), "missing: \(Set((0..<600).map { "m\($0)" }).subtracting(seen).sorted().prefix(20))")
            #expect(publisher.droppedMessages == 0)
            await publisher.stop()
            await subscriber.stop()
        }
    }

    @Test("messages published while the broker is down arrive once each, in order", .timeLimit(.minutes(2)))
    func publishedWhileDownArriveOnce() async throws {
        try await withMosquitto { broker in
            let subscriber = try Self.client(broker, id: "once-subscriber")
            subscriber.subscribe("test/sightings/#")
            try subscriber.start()
            #expect(await Self.nextSubscription(subscriber))
            let publisher = try Self.client(broker, id: "once-publisher")
            try publisher.start()
            #expect(await Self.nextConnection(publisher) == .connected)
            await broker.stop()
            // Only once the client knows it is offline: libmosquitto then answers "no
            // connection" and keeps the message, the case that was sent twice.
            #expect(await Self.nextDisconnection(publisher))
            let sent = (0..<50).map { "m\($0)" }
            for payload in sent { #expect(publisher.publish(topic: "test/sightings/r1", payload: Array(payload.utf8))) }
            #expect(publisher.pendingMessages == sent.count)
            try await broker.restart()
            await publisher.drain()
            // Published after every copy of the others was acknowledged: it arrives after them.
            publisher.publish(topic: "test/sightings/r1", payload: Array("end".utf8))
            var received: [String] = []
            for await message in subscriber.messages {
                subscriber.messageConsumed()
                let payload = String(decoding: message.payload, as: UTF8.self)
                if payload == "end" { break }
                received.append(payload)
            }
            #expect(received == sent)
            await publisher.stop()
            await subscriber.stop()
        }
    }

    @Test("a client started before its broker connects once the broker is up", .timeLimit(.minutes(2)))
    func brokerNotThereYet() async throws {
        try await withMosquitto { broker in
            await broker.stop()
            let client = try Self.client(broker, id: "early-client")
            try client.start()
            #expect(!client.isConnected)
            try await broker.restart()
            #expect(await Self.nextConnection(client) == .connected)
            await client.stop()
        }
    }

    @Test("wrong credentials are refused for good, with what to check", .timeLimit(.minutes(2)))
    func wrongCredentials() async throws {
        try await withMosquitto(users: ["gateway": "right-password"]) { broker in
            let refused = try Self.client(broker, id: "wrong", credentials: MQTTCredentials(username: "gateway", password: "wrong"))
            try refused.start()
            guard case .refused(let error)? = await Self.nextConnection(refused) else {
                Issue.record("the broker did not refuse")
                return
            }
            #expect(error.description.contains("refused the connection"))
            #expect(error.description.contains("BEACONCTL_MQTT_USERNAME"))
            #expect(refused.refusal != nil)
            await refused.stop()
            let accepted = try Self.client(broker, id: "right", credentials: MQTTCredentials(username: "gateway", password: "right-password"))
            try accepted.start()
            #expect(await Self.nextConnection(accepted) == .connected)
            await accepted.stop()
        }
    }

    @Test("a broker that speaks only MQTT 3.1.1: the client falls back from 5 and says which it speaks", .timeLimit(.minutes(2)))
    func fallsBackToMQTT311() async throws {
        let broker = try MQTT311OnlyBroker()
        let client = try MQTTClient(
            broker: MQTTBrokerURL(parsing: "mqtt://127.0.0.1:\(broker.port)/test"), configuration: .init(clientID: "fallback-client"))
        #expect(client.protocolVersion == .v5)
        try client.start()
        #expect(await Self.nextConnection(client) == .connected)
        #expect(client.protocolVersion == .v311)
        await client.stop()
        var levels: [UInt8] = []
        for await level in broker.levels { levels.append(level) }
        #expect(levels == [5, 4], "the CONNECT levels the broker saw")
    }

    @Test("MQTT 5 through Mosquitto: the client says so, and a persistent session outlives its connection", .timeLimit(.minutes(2)))
    func mqtt5SessionPersists() async throws {
        try await withMosquitto { broker in
            let reader = try Self.client(broker, id: "v5-session-reader")
            reader.subscribe("test/sightings/#")
            try reader.start()
            #expect(await Self.nextSubscription(reader))
            #expect(reader.protocolVersion == .v5)
            await reader.stop()
            // Published while the reader is away: held for its session (MQTT 5 needs a
            // session expiry interval in CONNECT for that, §3.1.2.11.2).
            let publisher = try Self.client(broker, id: "v5-session-publisher")
            try publisher.start()
            #expect(publisher.publish(topic: "test/sightings/r1", payload: Array("held".utf8)))
            await publisher.drain()
            #expect(publisher.pendingMessages == 0 && publisher.refusedPublications.isEmpty)
            await publisher.stop()
            let back = try Self.client(broker, id: "v5-session-reader")
            try back.start()
            let held = await Self.receive(back, distinct: 1)
            #expect(held == ["held"])
            await back.stop()
        }
    }

    @Test(
        "a message over the reader's limit is never taken in: MQTT 5 tells the broker, which keeps it; under 3.1.1 it is dropped unread and counted",
        .timeLimit(.minutes(2)), arguments: [MQTTProtocolVersion.v5, .v311])
    func oversizedMessage(version: MQTTProtocolVersion) async throws {
        try await withMosquitto { broker in
            var configuration = MQTTClient.Configuration(clientID: "limited-reader-\(version.rawValue)", protocolVersion: version)
            configuration.maximumMessageBytes = 1024
            let reader = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: configuration)
            reader.subscribe("test/sightings/#")
            try reader.start()
            #expect(await Self.nextSubscription(reader))
            let publisher = try Self.client(broker, id: "limited-publisher-\(version.rawValue)")
            try publisher.start()
            #expect(publisher.publish(topic: "test/sightings/r1", payload: [UInt8](repeating: 0x41, count: 256 * 1024)))
            #expect(publisher.publish(topic: "test/sightings/r1", payload: Array("small".utf8)))
            await publisher.drain()
            await publisher.stop()
            // 256 KiB: over the packet limit MQTT 5 announces (the payload limit plus room for
            // a topic), and over the payload limit. The small message comes after it: once
            // it is here, the large one was dealt with, by the broker (5) or the reader (3.1.1).
            let received = await Self.receive(reader, distinct: 1)
            #expect(received == ["small"])
            #expect(reader.oversizedMessages == (version == .v5 ? 0 : 1))
            await reader.stop()
        }
    }

    @Test("a reader stopped and freed with its buffer full (a backlog at SIGTERM) ends cleanly", .timeLimit(.minutes(2)))
    func stoppedWithAFullBuffer() async throws {
        try await withMosquitto { broker in
            var configuration = MQTTClient.Configuration(clientID: "full-reader")
            configuration.maximumBufferedMessages = 2
            var reader: MQTTClient? = try MQTTClient(broker: MQTTBrokerURL(parsing: broker.url), configuration: configuration)
            reader?.subscribe("test/sightings/#")
            try reader?.start()
            if let reader { #expect(await Self.nextSubscription(reader)) }
            let publisher = try Self.client(broker, id: "full-publisher")
            try publisher.start()
            for index in 0..<20 { #expect(publisher.publish(topic: "test/sightings/r1", payload: Array("m\(index)".utf8))) }
            await publisher.drain()
            await publisher.stop()
            // Nothing consumed: the buffer's places are all taken, and the network thread
            // waits for one. Stopping and freeing it must not trap (libdispatch traps on a
            // semaphore freed below the value it was made with).
            await reader?.stop()
            reader = nil
            #expect(reader == nil)
        }
    }
}
