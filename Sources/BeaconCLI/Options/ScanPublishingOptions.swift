import ArgumentParser
import BeaconFleet

extension SightingPublishing.Convention: ExpressibleByArgument {}

/// `scan --mqtt URL [--publish-as CONVENTION]`: where every sighting is also published, and
/// by which convention (docs/mqtt.md, docs/gateways.md).
struct ScanPublishingOptions: ParsableArguments {
    /// Every sighting also published, stamped with Unix time.
    @OptionGroup var publishing: MQTTPublishOption
    var mqtt: String? { publishing.url }

    @Option(
        name: .customLong("publish-as"),
        help: ArgumentHelp(
            "With --mqtt: beaconctl (every sighting, docs/mqtt.md) or mqtt-room (each beacon's ranged distance on room_presence/RECEIVER, as Home Assistant's mqtt_room sensor reads it; docs/gateways.md).",
            valueName: "convention"))
    var publishAs: SightingPublishing.Convention = .beaconctl

    func validate() throws {
        if publishAs != .beaconctl && mqtt == nil {
            throw ValidationError("--publish-as \(publishAs.rawValue) says how --mqtt publishes; add --mqtt mqtt://HOST/room_presence.")
        }
    }

    /// The publishing asked for, every sighting under `receiver` (`nil`: each keeps its own).
    func request(receiver: String?, environment: [String: String]) -> ScanRun.PublishingRequest? {
        mqtt.map { ScanRun.PublishingRequest(url: $0, receiver: receiver, convention: publishAs, environment: environment) }
    }
}
