import ArgumentParser
import BeaconMQTT

/// `--mqtt URL`, shared by the commands that publish to a broker (`scan`, `monitor`,
/// `verify --watch` what they report; `gateways configure` the receivers' keep-lists): one
/// help text, one check of the URL. What each command publishes, on which topics, is in
/// docs/mqtt.md and docs/gateways.md.
struct MQTTPublishOption: ParsableArguments, Sendable {
    @Option(
        name: .customLong("mqtt"),
        help: ArgumentHelp(
            "The MQTT broker to publish to, QoS 1, on topics under PREFIX (what each command publishes: docs/mqtt.md, docs/gateways.md): "
                + "mqtt://HOST[:PORT]/PREFIX, or mqtts:// for TLS. Credentials come from the environment (BEACONCTL_MQTT_CREDENTIALS).",
            valueName: "url"))
    var url: String?

    init() {}

    func validate() throws {
        guard let url else { return }
        do {
            _ = try MQTTBrokerURL(parsing: url)
        } catch {
            throw ValidationError("--mqtt \(error)")
        }
    }
}
