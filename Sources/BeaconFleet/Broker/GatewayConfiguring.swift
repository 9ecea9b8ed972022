import BeaconMQTT
import FleetManifest
import Logging

/// Why `gateways configure` stopped before it had answers to report.
public enum GatewayConfiguringError: Error, Sendable, CustomStringConvertible {
    /// `--venue` names no venue of the manifest.
    case noSuchVenue(String, known: [String])
    /// The keep-list cannot name every beacon (a finding about the manifest).
    case keepList(GatewayKeepList.MissingAddresses)
    /// The broker's URL or the client's settings from the environment are wrong.
    case setup(BrokerSetupError)
    /// The gateway cannot be configured through a broker (Theengs Gateway).
    case unsupported(GatewayConfiguration.Unsupported)
    /// The client could not run (`GatewayConfiguration.run`).
    case client(MQTTError)
    /// Nothing reached the receivers: the subscriptions or the publications were refused, or
    /// the broker did not answer.
    case notPublished(String)

    public var description: String {
        switch self {
        case .noSuchVenue(let venue, let known):
            return "--venue \(venue): the manifest has no such venue (its venues: \(known.joined(separator: ", ")))"
        case .keepList(let error): return error.description
        case .setup(let error): return error.description
        case .unsupported(let error): return error.description
        case .client(let error): return error.description
        case .notPublished(let reason): return reason
        }
    }
}

/// What `gateways configure` will publish, and to which broker.
public struct GatewayConfiguringPlan: Sendable {
    public let broker: MQTTBrokerURL
    public let configuration: GatewayConfiguration

    /// OpenMQTTGateway's white list needs this many commands; a topic retains only the last.
    public var commandCount: Int {
        configuration.list.kind == .openMQTTGateway ? configuration.list.openMQTTGatewayCommands.count : 1
    }
}

/// One receiver's answer: it confirmed the list, or why not.
public struct GatewayReceiverAnswer: Hashable, Sendable {
    public let name: String
    /// `nil` when the receiver confirmed; otherwise what it said, or that it did not answer.
    public let unconfirmedBecause: String?
}

/// The use case of `gateways configure`: the manifest's beacons as a keep-list, published on
/// the gateways' configuration topics through the broker, and what each receiver answered.
public enum GatewayConfiguring {
    /// The keep-list of `fleet` (or `venue`'s beacons) for `gateway`, on the broker `url`
    /// names (its path the gateway's base topic), to `receivers` (none: the gateway's default).
    public static func plan(
        _ fleet: Fleet, gateway: GatewayKeepList.Kind, venue: String?, url: String, receivers: [String]
    ) throws(GatewayConfiguringError) -> GatewayConfiguringPlan {
        var beacons = fleet.beacons
        if let venue {
            guard let chosen = fleet.venues.first(where: { $0.id == venue }) else {
                throw .noSuchVenue(venue, known: fleet.venues.map(\.id))
            }
            beacons = chosen.beacons
        }
        let list: GatewayKeepList
        do {
            list = try GatewayKeepList(gateway, beacons: beacons)
        } catch {
            throw .keepList(error)
        }
        let broker: MQTTBrokerURL
        do {
            broker = try BrokerConnection.broker(url, defaultPrefix: gateway.gateway.decoder.defaultBase)
        } catch {
            throw .setup(error)
        }
        do {
            return GatewayConfiguringPlan(
                broker: broker, configuration: try GatewayConfiguration(list: list, base: broker.topicPrefix, receivers: receivers))
        } catch {
            throw .unsupported(error)
        }
    }

    /// Publishes `plan` with a client configured from `environment`, waits up to `seconds`
    /// for the answers and for the broker to take every publication, and stops the client.
    /// The answers come one per receiver expected, in order; none when no receiver answered.
    public static func run(
        _ plan: GatewayConfiguringPlan, within seconds: Double, environment: [String: String], logger: Logger
    ) async throws(GatewayConfiguringError) -> [GatewayReceiverAnswer] {
        let client: MQTTClient
        do {
            client = try BrokerConnection.client(
                plan.broker, name: "gateways-configure-\(ReceiverName.hostName())", environment: environment, logger: logger)
        } catch {
            throw .setup(error)
        }
        let outcome: GatewayConfiguration.Outcome
        do {
            outcome = try await plan.configuration.run(on: client, within: seconds, logger: logger)
        } catch {
            await client.stop()
            throw .client(error)
        }
        let delivered = await BrokerConnection.drain(client, within: seconds)
        await client.stop()
        let readBack: GatewayConfiguration.ReadBack
        switch outcome {
        case .notSubscribed(let reason):
            throw .notPublished("nothing was published: \(reason)")
        case .confirmed(let read), .incomplete(let read):
            readBack = read
        }
        guard delivered, client.refusedPublications.isEmpty else {
            let refused = client.refusedPublications.isEmpty ? "" : " (\(client.refusedPublications.summary))"
            throw .notPublished(
                "\(client.broker) did not take the configuration\(refused): check the broker's ACL for the gateway's command topics")
        }
        return plan.configuration.expected(readBack).map { receiver in
            if readBack.confirmed.contains(receiver) { return GatewayReceiverAnswer(name: receiver, unconfirmedBecause: nil) }
            let why = readBack.differing[receiver] ?? (readBack.online.contains(receiver) ? "no answer" : "offline or not on this broker")
            return GatewayReceiverAnswer(name: receiver, unconfirmedBecause: why)
        }
    }
}
