import BeaconCore
import BeaconMQTT
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How beaconctl reaches a broker as a client, configured from the environment — secrets never go on a command
/// line (docs/mqtt.md):
///
/// | variable | what |
/// |---|---|
/// | `BEACONCTL_MQTT_USERNAME`, `BEACONCTL_MQTT_PASSWORD` | credentials |
/// | `BEACONCTL_MQTT_CREDENTIALS` | a file: line 1 the user name, line 2 the password |
/// | `BEACONCTL_MQTT_CA_FILE`, `BEACONCTL_MQTT_CERT_FILE`, `BEACONCTL_MQTT_KEY_FILE` | TLS for `mqtts://` |
/// | `BEACONCTL_MQTT_CLIENT_ID_PREFIX` | the start of every client id (default `beaconctl`): ids are PREFIX-ROLE-NAME |
/// | `BEACONCTL_MQTT_PROTOCOL` | `5` (the default; 3.1.1 when the broker speaks nothing newer) or `3.1.1` |
public enum BrokerConnection {
    public static let clientIDPrefixVariable = "BEACONCTL_MQTT_CLIENT_ID_PREFIX"
    public static let protocolVariable = "BEACONCTL_MQTT_PROTOCOL"

    /// `url` read once, where a client starts: what is wrong with it is `.url`, which the
    /// command line words as its `--mqtt` value's.
    public static func broker(
        _ url: String, defaultPrefix: String = MQTTBrokerURL.defaultPrefix
    ) throws(BrokerSetupError) -> MQTTBrokerURL {
        do {
            return try MQTTBrokerURL(parsing: url, defaultPrefix: defaultPrefix)
        } catch {
            throw .url(error)
        }
    }

    /// A client for `broker` (not started), configured from `environment`; its id is
    /// `PREFIX-NAME` (PREFIX `beaconctl` unless the environment sets one). A persistent
    /// session is per id, and two clients with the same id take it from each other: every
    /// client of a process has its own NAME.
    public static func client(
        _ broker: MQTTBrokerURL, name: String,
        will: MQTTClient.Will? = nil, online: MQTTClient.Will? = nil,
        maximumReconnectDelaySeconds: UInt32? = nil, environment: [String: String], logger: Logger
    ) throws(BrokerSetupError) -> MQTTClient {
        let protocolVersion = try protocolVersion(environment)
        do {
            var credentials = try MQTTCredentials.fromEnvironment(environment)
            if credentials == nil, let file = environment[MQTTCredentials.fileVariable], !file.isEmpty {
                credentials = try MQTTCredentials.fromFile(file) { logger.warning("\($0)") }
            }
            let tls = broker.usesTLS ? MQTTTLS.fromEnvironment(environment) : nil
            let prefix = environment[clientIDPrefixVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "beaconctl"
            let clientID = prefix + "-" + MQTTTopics.level(name)
            var configuration = MQTTClient.Configuration(
                clientID: clientID, credentials: credentials, tls: tls, will: will, online: online,
                protocolVersion: protocolVersion)
            if let maximumReconnectDelaySeconds { configuration.maximumReconnectDelaySeconds = maximumReconnectDelaySeconds }
            return try MQTTClient(broker: broker, configuration: configuration)
        } catch {
            throw .client(error)
        }
    }

    /// `BEACONCTL_MQTT_PROTOCOL`: `5` by default, `3.1.1` to hold the client to it.
    public static func protocolVersion(_ environment: [String: String]) throws(BrokerSetupError) -> MQTTProtocolVersion {
        switch environment[protocolVariable] ?? "" {
        case "", "5", "5.0": return .v5
        case "3.1.1", "311": return .v311
        case let other:
            throw .protocolVersion(other)
        }
    }

    /// Logs connection changes until the client stops, handing each to `forward` too; a
    /// refusal is an error.
    public static func logConnection(
        _ client: MQTTClient, logger: Logger, forward: (@Sendable (MQTTConnectionEvent) -> Void)? = nil
    ) -> Task<Void, Never> {
        Task {
            for await event in client.connectionEvents {
                forward?(event)
                switch event {
                case .connected: logger.info("connected to \(client.broker) (\(client.protocolVersion))")
                case .subscribed: logger.debug("\(client.broker) acknowledged the subscription")
                case .disconnected(let reason): logger.warning("\(client.broker): \(reason); reconnecting")
                case .refused(let error): logger.error("\(error)")
                case .statusRefused(let topic, let reason):
                    logger.warning("\(client.broker) refused the status on \(topic) (\(reason)): dashboards will not see this client online; the broker's ACL must let it write there")
                case .oversizedMessage(let topic, let bytes, let limit):
                    logger.warning("\(client.broker): a message of \(bytes) bytes on \(topic) is over the \(limit)-byte limit and was dropped unread (so is every later one, counted at the end): find the publisher that sends it")
                }
            }
        }
    }

    /// The closing words for a client that spoke MQTT 3.1.1, whose acknowledgements do not
    /// say whether the broker took a message or refused it; `nil` under MQTT 5.
    public static func unconfirmedAuthorisation(_ client: MQTTClient) -> String? {
        guard client.protocolVersion == .v311 else { return nil }
        return "\(client.broker) spoke MQTT 3.1.1, which acknowledges a publish it refuses like one it accepts: that the broker's ACL let these messages through cannot be confirmed (MQTT 5 would say; check the broker's ACL, or a subscriber)"
    }

}

extension BrokerConnection {
    /// A publishing client, started (connecting in the background), with its connection
    /// logged; with `status`, that topic says `online` while it is connected and `offline`
    /// after it (retained; the last will says `offline`).
    public static func start(
        _ broker: MQTTBrokerURL, name: String, status: String?, environment: [String: String], logger: Logger
    ) throws(BrokerSetupError) -> (client: MQTTClient, logging: Task<Void, Never>) {
        let client = try client(
            broker, name: name,
            will: status.map { MQTTClient.Will(topic: $0, payload: MQTTTopics.offline) },
            online: status.map { MQTTClient.Will(topic: $0, payload: MQTTTopics.online) },
            environment: environment, logger: logger)
        let logging = logConnection(client, logger: logger)
        do {
            try client.start()
        } catch {
            logging.cancel()
            throw .client(error)
        }
        return (client, logging)
    }

    /// Waits until the broker acknowledged everything `client` published, at most `seconds`;
    /// whether it did.
    public static func drain(_ client: MQTTClient, within seconds: Double) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await client.drain()
                return !Task.isCancelled && client.pendingMessages == 0
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

}

/// Why a broker client could not be set up: all of them input errors (the command line's
/// exit status 2), found before anything is sent.
public enum BrokerSetupError: Error, Sendable, CustomStringConvertible {
    /// The broker's URL (the value of the command line's `--mqtt`).
    case url(MQTTError)
    /// The client: its URL, credentials or TLS files, or it would not start.
    case client(MQTTError)
    /// `BEACONCTL_MQTT_PROTOCOL` names no version beaconctl speaks.
    case protocolVersion(String)
    /// The broker input's subscriptions (a gateway's topics).
    case subscriptions(MQTTError)

    public var description: String {
        switch self {
        case .url(let error), .client(let error), .subscriptions(let error): error.description
        case .protocolVersion(let other):
            "\(BrokerConnection.protocolVariable)=\(other): not an MQTT version beaconctl speaks; use 5 (the default, falling back to 3.1.1 by itself) or 3.1.1"
        }
    }
}
