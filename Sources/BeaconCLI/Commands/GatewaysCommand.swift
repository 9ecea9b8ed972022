import ArgumentParser
import BeaconCore
import BeaconFleet
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
        let console = Console.current
        let plan: GatewayConfiguringPlan
        let answers: [GatewayReceiverAnswer]
        do throws(GatewayConfiguringError) {
            plan = try GatewayConfiguring.plan(result.fleet, gateway: gateway, venue: venue, url: url, receivers: receivers)
            GatewaysOutput.printPlan(plan, dryRun: dryRun, console: console)
            if dryRun { return }
            answers = try await GatewayConfiguring.run(plan, within: timeout, environment: console.environment, logger: globals.makeLogger())
        } catch {
            throw CommandFailure(error)
        }
        try GatewaysOutput.report(answers, gateway: gateway, base: plan.configuration.base, timeout: timeout, console: console)
    }
}
