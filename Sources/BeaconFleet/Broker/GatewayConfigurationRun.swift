import BeaconCore
import BeaconMQTT
import Logging
import Synchronization

extension GatewayConfiguration {
    /// How a configuration run ended.
    public enum Outcome: Hashable, Sendable {
        /// Every expected receiver confirmed: the read-back.
        case confirmed(ReadBack)
        /// The time ran out first: what was read back by then.
        case incomplete(ReadBack)
        /// The broker never acknowledged the subscriptions (or refused the client): nothing
        /// was published.
        case notSubscribed(String)
    }

    /// Subscribes `client` (not started) to the answers, starts it, publishes once the broker
    /// acknowledged every subscription (its retained answers then come first, before any
    /// answer to this publication), and reads answers until every expected receiver
    /// confirmed or `seconds` passed. The client is left running; the caller stops it.
    public func run(on client: MQTTClient, within seconds: Double, logger: Logger) async throws(MQTTError) -> Outcome {
        let (acknowledgements, acknowledged) = AsyncStream.makeStream(of: MQTTConnectionEvent.self, bufferingPolicy: .bufferingNewest(64))
        let logging = BrokerConnection.logConnection(client, logger: logger) { event in
            switch event {
            case .subscribed, .refused: acknowledged.yield(event)
            default: break
            }
        }
        defer { logging.cancel() }
        for filter in answerFilters { client.subscribe(filter) }
        try client.start()

        let filters = answerFilters.count
        let subscribed: String? = await Self.within(seconds) {
            var count = 0
            for await event in acknowledgements {
                if case .refused(let error) = event { return error.description }
                count += 1
                if count >= filters { return nil }
            }
            return "the client stopped"
        } ?? "\(client.broker) did not acknowledge the subscriptions within \(NumberText.plain(seconds)) s"
        if let subscribed { return .notSubscribed(subscribed) }

        for publication in publications {
            client.publish(topic: publication.topic, payload: Array(publication.payload.utf8), retain: publication.retain)
        }
        let readBack = Mutex(ReadBack())
        let configuration = self
        let complete = await Self.within(seconds) { () -> Bool? in
            for await message in client.messages {
                client.messageConsumed()
                let done = readBack.withLock { state -> Bool in
                    configuration.read(topic: message.topic, payload: message.payload, retained: message.retained, into: &state)
                    return configuration.isComplete(state)
                }
                if done { return true }
            }
            return nil
        } ?? nil
        let result = readBack.withLock { $0 }
        return complete == true ? .confirmed(result) : .incomplete(result)
    }

    /// `body`'s value, or `nil` when `seconds` pass first (`body` is then cancelled).
    private static func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
