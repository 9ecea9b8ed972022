import ArgumentParser
import BeaconCore
import BeaconFleet
import BeaconMQTT
import FleetManifest

/// `beaconctl gateways …`: the receivers other software runs (ESPresense, OpenMQTTGateway, …).
struct GatewaysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateways",
        abstract: "Configure the receivers on a broker from the manifest.",
        subcommands: [GatewaysConfigureCommand.self])
}

extension GatewayKeepList.Kind: ExpressibleByArgument {}

struct GatewaysConfigureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "configure",
        abstract: "Tell the receivers to report only the manifest's beacons, through the broker, and read back what they report.",
        discussion: """
            Publishes each gateway's keep-list on its own configuration topic (docs/gateways.md, \
            "Keep only the fleet's beacons"): ESPresense's include setting, OpenMQTTGateway's \
            white-list command. The --mqtt URL's path is the gateway's base topic (its factory \
            default when absent). Exit 0 when every receiver confirmed, 1 when some did not \
            within --timeout (they are named), 2 for a usage error or a gateway that cannot be \
            configured through the broker (Theengs Gateway: see `fleet export --format theengs`), \
            3 when the broker refused or could not be reached.
            """)

    @OptionGroup var globals: GlobalOptions

    @Argument(help: "Manifest files or folders. A folder is one namespace: every .yaml/.yml file in it, recursively.")
    var paths: [String] = []

    @OptionGroup var publishing: MQTTPublishOption

    @Option(help: ArgumentHelp("The receivers' software: espresense, openmqttgateway (or theengs, which takes its list from a file).", valueName: "kind"))
    var gateway: GatewayKeepList.Kind

    @Option(help: ArgumentHelp("Only this venue's beacons; the receivers keep the fleet's otherwise.", valueName: "id"))
    var venue: String?

    @Option(name: .customLong("receiver"), help: ArgumentHelp(
        "Configure this receiver only (an ESPresense room, an OpenMQTTGateway name); repeatable. Default: every ESPresense board, or the gateway named OpenMQTTGateway.",
        valueName: "name"))
    var receivers: [String] = []

    @Option(help: ArgumentHelp("Seconds to wait for the receivers' answers.", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(name: .customLong("dry-run"), help: "Print the topics and payloads that would be published; publish nothing.")
    var dryRun = false

    func validate() throws {
        if paths.isEmpty {
            throw ValidationError("Name at least one manifest file or folder, e.g. `beaconctl gateways configure fleets/ --mqtt … --gateway espresense`.")
        }
        guard publishing.url != nil else {
            throw ValidationError("Name the broker the receivers use: --mqtt mqtt://HOST[:PORT]/BASE (BASE: the gateway's base topic).")
        }
        try SecondsFlag.check(timeout, "--timeout")
        for receiver in receivers where receiver.isEmpty || receiver.contains(where: { "/+#".contains($0) }) {
            throw ValidationError("--receiver \(JSONText.stringLiteral(receiver)): a receiver's name is one topic level, without /, + or #.")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("gateways configure")
        guard let url = publishing.url else { return }
        let result = try await ManifestInput.load(paths: paths, options: ValidationOptions())
        try reportBlockingDiagnostics(result)
        let beacons = try beaconsToKeep(result.fleet)
        let list: GatewayKeepList
        do {
            list = try GatewayKeepList(gateway, beacons: beacons)
        } catch {
            throw CommandFailure(.findings, error.description)
        }
        let broker: MQTTBrokerURL
        do {
            broker = try BrokerConnection.broker(url, defaultPrefix: gateway.gateway.decoder.defaultBase)
        } catch {
            throw CommandFailure(error)
        }
        let configuration: GatewayConfiguration
        do {
            configuration = try GatewayConfiguration(list: list, base: broker.topicPrefix, receivers: receivers)
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        let console = Console.current
        for publication in configuration.publications {
            let retained = publication.retain ? " (retained)" : ""
            console.line("\(dryRun ? "would publish" : "publishing") to \(publication.topic)\(retained): \(publication.payload)")
        }
        let commands = list.kind == .openMQTTGateway ? list.openMQTTGatewayCommands.count : 1
        if commands > 1 {
            console.errorLine("beaconctl: warning: the white list takes \(commands) commands and a topic retains only the last: OpenMQTTGateway forgets the list when it restarts; run `gateways configure` again after a restart")
        }
        if dryRun { return }

        let logger = globals.makeLogger()
        let client: MQTTClient
        do {
            client = try BrokerConnection.client(broker, name: "gateways-configure-\(ReceiverName.hostName())", environment: console.environment, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
        let outcome: GatewayConfiguration.Outcome
        do {
            outcome = try await configuration.run(on: client, within: timeout, logger: logger)
        } catch {
            await client.stop()
            throw CommandFailure(.usageOrInput, error.description)
        }
        let delivered = await BrokerConnection.drain(client, within: timeout)
        await client.stop()
        try report(outcome, configuration: configuration, delivered: delivered, client: client)
    }

    private func beaconsToKeep(_ fleet: Fleet) throws -> [ResolvedBeacon] {
        guard let venue else { return fleet.beacons }
        guard let chosen = fleet.venues.first(where: { $0.id == venue }) else {
            let known = fleet.venues.map(\.id).joined(separator: ", ")
            throw CommandFailure(.usageOrInput, "--venue \(venue): the manifest has no such venue (its venues: \(known))")
        }
        return chosen.beacons
    }

    /// One line per receiver; exit 1 unless every one confirmed.
    private func report(
        _ outcome: GatewayConfiguration.Outcome, configuration: GatewayConfiguration, delivered: Bool, client: MQTTClient
    ) throws {
        let console = Console.current
        let readBack: GatewayConfiguration.ReadBack
        switch outcome {
        case .notSubscribed(let reason):
            throw CommandFailure(.controller, "nothing was published: \(reason)")
        case .confirmed(let read), .incomplete(let read):
            readBack = read
        }
        guard delivered, client.refusedPublications.isEmpty else {
            let refused = client.refusedPublications.isEmpty ? "" : " (\(client.refusedPublications.summary))"
            throw CommandFailure(.controller, "\(client.broker) did not take the configuration\(refused): check the broker's ACL for the gateway's command topics")
        }
        let what = gateway == .espresense ? "holds the list (its include setting)" : "took the white-list command (it does not report the list itself)"
        let expected = configuration.expected(readBack)
        var unconfirmed: [String] = []
        for receiver in expected {
            if readBack.confirmed.contains(receiver) {
                console.line("\(receiver) (\(gateway.rawValue)): \(what)")
            } else {
                unconfirmed.append(receiver)
                let why = readBack.differing[receiver]
                    ?? (readBack.online.contains(receiver) ? "no answer" : "offline or not on this broker")
                console.line("\(receiver) (\(gateway.rawValue)): not confirmed within \(NumberText.plain(timeout)) s: \(why)")
            }
        }
        if expected.isEmpty {
            throw CommandFailure(.findings, "no \(gateway.displayName) receiver answered under \(configuration.base) within \(NumberText.plain(timeout)) s: check --mqtt's base topic and that the receivers are online")
        }
        if !unconfirmed.isEmpty {
            throw CommandFailure(.findings, "\(NumberText.count(unconfirmed.count, "receiver")) did not confirm: \(unconfirmed.joined(separator: ", ")); run again once they are online (the command is safe to repeat)")
        }
    }
}
