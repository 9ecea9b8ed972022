import ArgumentParser
import BeaconMQTT

/// `--mqtt URL`, shared by the commands that publish what they report to a broker (`scan`,
/// `monitor`, `verify --watch`): one help text, one check of the URL. What each command
/// publishes, on which topics, is in docs/mqtt.md.
struct MQTTPublishOption: ParsableArguments, Sendable {
    @Option(
        name: .customLong("mqtt"),
        help: ArgumentHelp(
            "Also publish what is reported to this MQTT broker, QoS 1, on topics under PREFIX (docs/mqtt.md): "
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
