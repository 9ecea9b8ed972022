import Testing

@testable import BeaconCLI

@Suite("beaconctl scan --publish-as")
struct ScanPublishAsTests {
    @Test("mqtt-room without --mqtt, or an unknown convention, is a usage error")
    func validation() async {
        let alone = await runBeaconctl(["scan", "--publish-as", "mqtt-room"])
        #expect(alone.status == 2)
        #expect(alone.error.contains("Error: --publish-as mqtt-room says how --mqtt publishes; add --mqtt mqtt://HOST/room_presence."), "\(alone.error)")
        let unknown = await runBeaconctl(["scan", "--mqtt", "mqtt://localhost", "--publish-as", "homeassistant"])
        #expect(unknown.status == 2)
        #expect(unknown.error.contains("--publish-as"), "\(unknown.error)")
    }
}
