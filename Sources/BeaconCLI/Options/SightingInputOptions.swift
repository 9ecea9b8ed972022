import ArgumentParser
import BeaconFleet
import BeaconMQTT

extension GatewayKind: ExpressibleByArgument {}

/// `--input` and `--gateway`, as `scan`, `verify` and `monitor` take them: a recording, or one
/// or more brokers that receivers publish to.
struct SightingInputOptions: ParsableArguments {
    @Option(
        name: .customLong("input"),
        help: ArgumentHelp(
            "Read sightings instead of a controller: JSON lines or a btsnoop, pcap or pcapng capture ('-' for standard input), "
                + "or mqtt://HOST[:PORT][/BASE] for every receiver publishing to a broker (listened to live). "
                + "Repeat it to read several brokers or base topics at once (a mixed fleet).",
            valueName: "file|url"))
    var inputs: [String] = []

    @Option(
        name: .customLong("gateway"),
        help: ArgumentHelp(
            "What publishes on an mqtt:// --input: \(GatewayKind.allCases.map(\.rawValue).joined(separator: ", ")) "
                + "(default beaconctl). BASE defaults to the gateway's own base topic. One for all broker inputs, "
                + "or one per broker input in the order of the --input options (docs/gateways.md).",
            valueName: "name"))
    var gateways: [GatewayKind] = []

    /// The inputs and gateways must pair up before anything is opened.
    func validate() throws {
        do {
            _ = try brokerInputs()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The one input (a recording, or the first broker).
    var input: String? { inputs.first }

    /// Whether the input is a broker's (mqtt://…), not a file or a pipe.
    var inputIsBroker: Bool { input.map(MQTTBrokerURL.looksLikeBroker) ?? false }

    /// The broker inputs with their gateways; empty when the input is not a broker.
    func brokerInputs() throws(CommandFailure) -> [(url: String, gateway: GatewayKind)] {
        let brokers = inputs.filter(MQTTBrokerURL.looksLikeBroker)
        if brokers.isEmpty {
            if !gateways.isEmpty {
                throw CommandFailure(.usageOrInput, "--gateway names what publishes on a broker: it needs an --input mqtt://HOST[/BASE]")
            }
            if inputs.count > 1 {
                throw CommandFailure(.usageOrInput, "only brokers can be read several at once: give one recording (--input \(inputs[0])), or mqtt:// inputs only")
            }
            return []
        }
        if brokers.count != inputs.count {
            let recording = inputs.first { !MQTTBrokerURL.looksLikeBroker($0) } ?? ""
            throw CommandFailure(.usageOrInput, "--input \(recording) is a recording, and the others are brokers: read a recording on its own (its clock is not the brokers')")
        }
        switch gateways.count {
        case 0: return brokers.map { ($0, .beaconctl) }
        case 1: return brokers.map { ($0, gateways[0]) }
        case brokers.count: return Array(zip(brokers, gateways)).map { ($0.0, $0.1) }
        default:
            throw CommandFailure(.usageOrInput, "\(gateways.count) --gateway options for \(brokers.count) broker inputs: give one for all, or one per --input in the same order")
        }
    }
}
